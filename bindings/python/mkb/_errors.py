"""Every failing status of libmkb as an exception: MkbError is the common base, and each subclass
also derives from the built-in exception a Python caller would catch for that kind of failure."""
from __future__ import annotations

from typing import NoReturn, Optional

from ._native import lib


class MkbError(Exception):
    """A failed libmkb call: `status` is the mkb_status, the message the library's error text."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{lib.mkb_status_name(status).decode()}: {message}")
        self.status = status


class InvalidArgumentError(MkbError, ValueError):
    """MKB_ERR_INVALID_ARGUMENT: a value the call cannot take (a bad enum value, a missing value)."""


class ConfigError(MkbError, ValueError):
    """MKB_ERR_CONFIG: an option or configuration value is wrong; the text names it."""


class NotFoundError(MkbError, LookupError):
    """MKB_ERR_NOT_FOUND: a problem, DSL, submission or file that does not exist."""


class StateError(MkbError, RuntimeError):
    """MKB_ERR_STATE: the call is not valid now (the task has ended, the handle was released, ...)."""


class BudgetError(MkbError, RuntimeError):
    """MKB_ERR_BUDGET: the task's budget is spent; nothing was evaluated."""


class LedgerIOError(MkbError, OSError):
    """MKB_ERR_IO: reading or writing a file failed (an OSError, as Python's own file errors are)."""


class LedgerError(MkbError, RuntimeError):
    """MKB_ERR_LEDGER: the ledger cannot be used (not a ledger, damaged, or in use elsewhere)."""


class WorkerError(MkbError, RuntimeError):
    """MKB_ERR_WORKER: infrastructure; a GPU worker could not start or answer."""


class NoMemoryError(MkbError, RuntimeError):
    """MKB_ERR_NO_MEMORY: host memory was exhausted inside the library."""


class UnsupportedError(MkbError, NotImplementedError):
    """MKB_ERR_UNSUPPORTED: not supported by this build or this version yet."""


class VersionError(MkbError, RuntimeError):
    """MKB_ERR_VERSION: a struct size or ABI version the library does not understand."""


class SpecError(MkbError, ValueError):
    """MKB_ERR_SPEC: a problem spec in the suite is malformed; the text says where."""


class InternalError(MkbError, RuntimeError):
    """MKB_ERR_INTERNAL: a bug in libmkb; the text says what was caught."""


_BY_STATUS = {-1: InvalidArgumentError, -2: ConfigError, -3: NotFoundError, -4: StateError, -5: BudgetError,
              -6: LedgerIOError, -7: LedgerError, -8: WorkerError, -9: NoMemoryError, -10: UnsupportedError,
              -11: VersionError, -12: SpecError, -13: InternalError}

STATE = -4


def raise_status(status: int, text: Optional[bytes]) -> NoReturn:
    """Raises the exception of a failing status with the library's error text."""
    message = text.decode("utf-8", "replace") if text else ""
    raise _BY_STATUS.get(status, MkbError)(status, message)
