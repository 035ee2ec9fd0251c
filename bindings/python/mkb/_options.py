"""mkb_open_options from Python keywords: paths may be os.PathLike, lists may be sequences, and None
keeps the library's default wherever C uses 0 or NULL for it."""
from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Iterable
from typing import Optional, Union

from . import _native
from ._native import lib

StrPath = Union[str, "os.PathLike[str]"]
Names = Union[str, Iterable[Union[str, int]]]

_UINT32, _UINT64 = 2**32 - 1, 2**64 - 1


def path_bytes(name: str, value: Optional[StrPath], *, required: bool = False) -> Optional[bytes]:
    """A path option as the library takes it; None stays NULL unless a path is required."""
    if value is None and not required:
        return None
    if not isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError(f"{name}: expected a path (str or os.PathLike), got {type(value).__name__}")
    return os.fsencode(value)


def text_bytes(name: str, value: Optional[str]) -> Optional[bytes]:
    """A text option as UTF-8; None stays NULL."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{name}: expected a str, got {type(value).__name__}")
    return value.encode("utf-8")


def names_bytes(name: str, value: Optional[Names]) -> Optional[bytes]:
    """A list option: a comma-joined str as C takes it, or a list or tuple of its items."""
    if value is None or isinstance(value, str):
        return text_bytes(name, value)
    if isinstance(value, (bytes, os.PathLike)) or not isinstance(value, Iterable):
        raise TypeError(f"{name}: expected a str or a list of str, got {type(value).__name__}")
    items = []
    for item in value:
        if isinstance(item, bool) or not isinstance(item, (str, int)):
            raise TypeError(f"{name}: expected str items, got {type(item).__name__}")
        items.append(str(item))
    return ",".join(items).encode("utf-8")


def count(name: str, value: Optional[int], default: str, largest: int = _UINT32) -> int:
    """A number option: None is the library's default (C's 0), so 0 itself is refused rather than
    silently meaning the default."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name}: expected an int or None, got {type(value).__name__}")
    if not 1 <= value <= largest:
        raise ValueError(f"{name}: expected 1 to {largest}, got {value}; None selects {default}")
    return value


def default_python(python: Optional[StrPath]) -> Optional[StrPath]:
    """The frontends' interpreter: the one given, else MKB_PYTHON (read by the library), else this
    one, so that the DSL packages installed beside this package are the ones used."""
    if python is None and not os.environ.get("MKB_PYTHON"):
        return sys.executable or None
    return python


def open_options(*, suite_path: Optional[StrPath] = None, dsl_a: Optional[str] = None,
                 dsl_b: Optional[str] = None, problems: Optional[Names] = None, families: Optional[Names] = None,
                 replicates: Optional[int] = None, budget_seconds: Optional[int] = None,
                 budget_submissions: Optional[int] = None, budget_source_bytes: Optional[int] = None,
                 skill_max_bytes: Optional[int] = None, model: Optional[str] = None,
                 ledger_path: Optional[StrPath] = None, gpus: Optional[Names] = None, seed: Optional[int] = None,
                 compile_only: bool = False, rerun_stale: bool = False, no_sandbox: bool = False,
                 worker_path: Optional[StrPath] = None, cache_dir: Optional[StrPath] = None,
                 python: Optional[StrPath] = None, gpu_lock_dir: Optional[StrPath] = None,
                 trials: Optional[Names] = None, directions: Optional[Names] = None,
                 target_arch: Optional[str] = None,
                 shard: Optional[Union[str, tuple[int, int]]] = None) -> _native.OpenOptions:
    """mkb_open_options from keyword options named as its fields; the flags are booleans; shard is
    (index, count) or "I/N" (shard_index, shard_count: docs/SCALING.md)."""
    options = _native.OpenOptions()
    lib.mkb_open_options_init(ctypes.byref(options), ctypes.sizeof(options))
    # The library copies every string during the call; the struct only needs to live until then.
    options.suite_path = path_bytes("suite_path", suite_path)
    options.dsl_a, options.dsl_b = text_bytes("dsl_a", dsl_a), text_bytes("dsl_b", dsl_b)
    options.problems, options.families = names_bytes("problems", problems), names_bytes("families", families)
    options.replicates = count("replicates", replicates, "1")
    options.budget_seconds = count("budget_seconds", budget_seconds, "2400")
    options.budget_submissions = count("budget_submissions", budget_submissions, "10")
    options.budget_source_bytes = count("budget_source_bytes", budget_source_bytes, "300000")
    options.skill_max_bytes = count("skill_max_bytes", skill_max_bytes, "65536")
    options.model = text_bytes("model", model)
    options.ledger_path = path_bytes("ledger_path", ledger_path)
    options.gpus = names_bytes("gpus", gpus)
    options.seed = count("seed", seed, "a seed from the OS", _UINT64)
    options.flags = ((_native.OPEN_COMPILE_ONLY if compile_only else 0)
                     | (_native.OPEN_RERUN_STALE if rerun_stale else 0)
                     | (_native.OPEN_NO_SANDBOX if no_sandbox else 0))
    options.worker_path = path_bytes("worker_path", worker_path)
    options.cache_dir = path_bytes("cache_dir", cache_dir)
    options.python = path_bytes("python", default_python(python))
    options.gpu_lock_dir = path_bytes("gpu_lock_dir", gpu_lock_dir)
    options.trials, options.directions = names_bytes("trials", trials), names_bytes("directions", directions)
    options.target_arch = text_bytes("target_arch", target_arch)
    options.shard_index, options.shard_count = shard_pair(shard)
    return options


def shard_pair(shard: Optional[Union[str, tuple[int, int]]]) -> tuple[int, int]:
    """(shard_index, shard_count) from (i, n) or "i/n"; (0, 0) for None (no sharding)."""
    if shard is None:
        return 0, 0
    if isinstance(shard, str):
        index, slash, count_text = shard.partition("/")
        if not slash or not index.strip().isdigit() or not count_text.strip().isdigit():
            raise ValueError(f'shard: expected "I/N" such as "0/4" (shards count from 0), got {shard!r}')
        shard = (int(index), int(count_text))
    if (not isinstance(shard, tuple) or len(shard) != 2 or not all(isinstance(v, int) and not isinstance(v, bool)
                                                                     for v in shard)):
        raise TypeError(f'shard: expected (index, count) or "I/N", got {shard!r}')
    index, total = shard
    if total < 1 or not 0 <= index < total or total > _UINT32:
        raise ValueError(f"shard: expected 0 <= index < count, got {index}/{total}")
    return index, total
