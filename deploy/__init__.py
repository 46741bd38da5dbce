"""Deployment: a compiled model written out as a shared library with a C API (`minitvm
export`; the API is c/minitvm.h, the runtime that implements it c/runtime.c)."""

from minitvm.deploy.library import ExportResult, NativeModel, export_library

__all__ = ["ExportResult", "NativeModel", "export_library"]
