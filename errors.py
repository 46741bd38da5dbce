"""User-facing errors of minitvm.

Everything a user can cause (an unsupported model, a bad option) raises a `MinitvmError`; the
CLIs print its message on one line and exit 1. Anything else escaping is a minitvm bug and
keeps its traceback.
"""


class MinitvmError(Exception):
    """Base of every error caused by the user's input rather than by a bug in minitvm."""


class FrontendError(MinitvmError):
    """The model cannot be imported: unsupported op, attribute value, opset or shape.
    `where` names the node at fault (`node 'Add_3' (Add, opset 14)`) where one is."""

    def __init__(self, message: str, where: str = ""):
        super().__init__(message)
        self.where = where


class NonConstantOperandError(FrontendError):
    """An operand the frontend must know at import time (a shape, axes, pads, ...) is computed
    at run time. `value_name` is the ONNX value, so a caller that can supply it (ONNX's node
    test backend specializes on run-time inputs) knows which one."""

    def __init__(self, message: str, value_name: str):
        super().__init__(message)
        self.value_name = value_name


class MinitvmWarning(UserWarning):
    """Something a user should know that does not stop the work (e.g. records ignored); the
    CLIs print it as one line, `minitvm: warning: ...`."""
