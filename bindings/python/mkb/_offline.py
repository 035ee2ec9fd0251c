"""The calls that need no session: scores of ledger files and the dry run of a session's plan."""
from __future__ import annotations

import ctypes
import json
import os
from typing import Any, Iterable, Literal, Union, overload

from . import _native
from ._errors import raise_status
from ._native import lib
from ._options import StrPath, open_options, path_bytes
from ._session import _score_format

_OK = 0


def owned_result(status: int, out: ctypes.c_void_p, error: ctypes.c_void_p) -> str:
    """The owned text of a call that hands back either a text or an owned error text."""
    if status != _OK:
        raise_status(status, _native.owned_text(error).encode() if error.value else None)
    return _native.owned_text(out)


@overload
def score_ledgers(paths: Union[StrPath, Iterable[StrPath]], table: Literal[True], with_stale: bool = False) -> str: ...
@overload
def score_ledgers(paths: Union[StrPath, Iterable[StrPath]], table: Literal[False] = False,
                  with_stale: bool = False) -> dict[str, Any]: ...


def score_ledgers(paths: Union[StrPath, Iterable[StrPath]], table: bool = False,
                  with_stale: bool = False) -> Union[str, dict[str, Any]]:
    """The scores of the finished trials of ledger files (one path or several, str or os.PathLike),
    without a session: a dict, or with table=True a readable table. Stale trials (judged per file)
    are left out unless with_stale."""
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    encoded = [path_bytes("paths", p, required=True) for p in paths]
    array = (ctypes.c_char_p * len(encoded))(*encoded)
    out, error = ctypes.c_void_p(), ctypes.c_void_p()
    status = lib.mkb_score_ledgers(array, len(encoded), _score_format(table, with_stale), ctypes.byref(out),
                                   ctypes.byref(error))
    text = owned_result(status, out, error)
    return text if table else json.loads(text)


@overload
def plan(table: Literal[True], **options: Any) -> str: ...
@overload
def plan(table: Literal[False] = False, **options: Any) -> dict[str, Any]: ...


def plan(table: bool = False, **options: Any) -> Union[str, dict[str, Any]]:
    """A dry run: the trials Session(**options) would plan, each with its state ("done", "skipped",
    "stale", "interrupted", "pending"), as a dict or with table=True a readable list. Starts
    nothing; reads the ledger without writing or locking it."""
    raw = open_options(**options)
    out, error = ctypes.c_void_p(), ctypes.c_void_p()
    status = lib.mkb_plan(ctypes.byref(raw), _native.PLAN_TABLE if table else _native.PLAN_JSON, ctypes.byref(out),
                          ctypes.byref(error))
    text = owned_result(status, out, error)
    return text if table else json.loads(text)
