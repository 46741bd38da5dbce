"""Passes on the te dialect (schedule-level rewrites that keep results unchanged)."""
