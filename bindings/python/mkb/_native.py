"""The C ABI of libmkb (include/mkb.h) declared for ctypes. Nothing here is public."""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
from pathlib import Path

ABI_VERSION = 1


class OpenOptions(ctypes.Structure):
    """mkb_open_options as include/mkb.h declares it, later additions included."""

    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("suite_path", ctypes.c_char_p),
        ("dsl_a", ctypes.c_char_p),
        ("dsl_b", ctypes.c_char_p),
        ("problems", ctypes.c_char_p),
        ("families", ctypes.c_char_p),
        ("replicates", ctypes.c_uint32),
        ("budget_seconds", ctypes.c_uint32),
        ("budget_submissions", ctypes.c_uint32),
        ("budget_source_bytes", ctypes.c_uint32),
        ("skill_max_bytes", ctypes.c_uint32),
        ("model", ctypes.c_char_p),
        ("ledger_path", ctypes.c_char_p),
        ("gpus", ctypes.c_char_p),
        ("seed", ctypes.c_uint64),
        ("flags", ctypes.c_uint32),
        ("worker_path", ctypes.c_char_p),
        ("cache_dir", ctypes.c_char_p),
        ("python", ctypes.c_char_p),
        ("gpu_lock_dir", ctypes.c_char_p),
        ("trials", ctypes.c_char_p),
        ("directions", ctypes.c_char_p),
        ("target_arch", ctypes.c_char_p),
        ("shard_index", ctypes.c_uint32),
        ("shard_count", ctypes.c_uint32),
    ]


def _candidates() -> list[str]:
    """Where libmkb is looked for: $MKB_LIB_PATH (a file or a folder), this package's folder (where
    the libmkb wheel puts it, beside its worker), the prefix this Python runs in, then the system's
    search."""
    found = []
    override = os.environ.get("MKB_LIB_PATH")
    if override:
        path = Path(override)
        found.append(str(path / "libmkb.so.1") if path.is_dir() else str(path))
    here = Path(__file__).resolve().parent
    found += [str(here / "libmkb.so.1"), str(Path(sys.prefix) / "lib" / "libmkb.so.1")]
    system = ctypes.util.find_library("mkb")
    if system:
        found.append(system)
    return found


def _load() -> ctypes.CDLL:
    errors = []
    for candidate in _candidates():
        if not os.path.exists(candidate) and "/" in candidate:
            errors.append(f"{candidate}: not found")
            continue
        try:
            return ctypes.CDLL(candidate)
        except OSError as error:
            errors.append(f"{candidate}: {error}")
    raise ImportError("libmkb was not found; install the libmkb wheel (`pip install .` in libmkb's repository) "
                      "or set MKB_LIB_PATH to libmkb.so.1 or its folder. Tried: " + "; ".join(errors))


lib = _load()

P = ctypes.c_void_p
_status = ctypes.c_int32
_declarations = {
    "mkb_status_name": ([_status], ctypes.c_char_p),
    "mkb_verdict_name": ([ctypes.c_int32], ctypes.c_char_p),
    "mkb_arm_name": ([ctypes.c_int32], ctypes.c_char_p),
    "mkb_version": ([], ctypes.c_char_p),
    "mkb_version_number": ([], ctypes.c_uint32),
    "mkb_abi_version": ([], ctypes.c_uint32),
    "mkb_free": ([P], None),
    "mkb_open_options_init": ([ctypes.POINTER(OpenOptions), ctypes.c_size_t], _status),
    "mkb_open": ([ctypes.POINTER(OpenOptions), ctypes.POINTER(P)], _status),
    "mkb_close": ([P], None),
    "mkb_session_errmsg": ([P], ctypes.c_char_p),
    "mkb_next_task": ([P, ctypes.c_uint32, ctypes.POINTER(P), ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)], _status),
    "mkb_task_id": ([P], ctypes.c_char_p),
    "mkb_task_problem": ([P], ctypes.c_char_p),
    "mkb_task_family": ([P], ctypes.c_char_p),
    "mkb_task_dsl": ([P], ctypes.c_char_p),
    "mkb_task_arm": ([P], ctypes.c_int32),
    "mkb_task_replicate": ([P], ctypes.c_uint32),
    "mkb_task_instruction": ([P], ctypes.c_char_p),
    "mkb_task_source_skill": ([P], ctypes.c_char_p),
    "mkb_task_json": ([P], ctypes.c_char_p),
    "mkb_task_errmsg": ([P], ctypes.c_char_p),
    "mkb_submit_attempt": ([P, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(P)], _status),
    "mkb_task_compile": ([P, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(P)], _status),
    "mkb_task_submissions_left": ([P], ctypes.c_uint32),
    "mkb_task_seconds_left": ([P], ctypes.c_double),
    "mkb_submit_skill": ([P, ctypes.c_char_p, ctypes.c_size_t], _status),
    "mkb_task_add_usage": ([P, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_double], _status),
    "mkb_task_add_usage_v2": ([P, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_double], _status),
    "mkb_task_set_final": ([P, ctypes.c_char_p, ctypes.c_size_t], _status),
    "mkb_task_set_final_submission": ([P, ctypes.c_uint32], _status),
    "mkb_finalize": ([P, ctypes.POINTER(P)], _status),
    "mkb_task_release": ([P], None),
    "mkb_report_verdict": ([P], ctypes.c_int32),
    "mkb_report_counted": ([P], ctypes.c_int32),
    "mkb_report_final": ([P], ctypes.c_int32),
    "mkb_report_time_us": ([P], ctypes.c_double),
    "mkb_report_baseline_us": ([P], ctypes.c_double),
    "mkb_report_speedup": ([P], ctypes.c_double),
    "mkb_report_eager_us": ([P], ctypes.c_double),
    "mkb_report_speedup_vs_eager": ([P], ctypes.c_double),
    "mkb_report_submission": ([P], ctypes.c_uint32),
    "mkb_report_submissions_left": ([P], ctypes.c_uint32),
    "mkb_report_seconds_left": ([P], ctypes.c_double),
    "mkb_report_message": ([P], ctypes.c_char_p),
    "mkb_report_json": ([P], ctypes.c_char_p),
    "mkb_report_free": ([P], None),
    "mkb_evaluate": ([P, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(P)], _status),
    "mkb_score": ([P, ctypes.c_uint32, ctypes.POINTER(P)], _status),
    "mkb_score_ledgers": ([ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t, ctypes.c_uint32, ctypes.POINTER(P), ctypes.POINTER(P)], _status),
    "mkb_plan": ([ctypes.POINTER(OpenOptions), ctypes.c_uint32, ctypes.POINTER(P), ctypes.POINTER(P)], _status),
    "mkb_list_problems": ([ctypes.POINTER(OpenOptions), ctypes.POINTER(P), ctypes.POINTER(P)], _status),
    "mkb_list_dsls": ([ctypes.POINTER(OpenOptions), ctypes.POINTER(P), ctypes.POINTER(P)], _status),
}

# Flags and formats (include/mkb.h).
OPEN_COMPILE_ONLY, OPEN_RERUN_STALE, OPEN_NO_SANDBOX = 0x1, 0x2, 0x4
SCORE_JSON, SCORE_TABLE, SCORE_WITH_STALE = 0, 1, 0x100
PLAN_JSON, PLAN_TABLE = 0, 1

for _name, (_arguments, _result) in _declarations.items():
    try:
        _function = getattr(lib, _name)
    except AttributeError as error:
        raise ImportError(f"libmkb lacks {_name}: these bindings need a newer library") from error
    _function.argtypes = _arguments
    _function.restype = _result

if lib.mkb_abi_version() != ABI_VERSION:
    raise ImportError(f"libmkb has ABI version {lib.mkb_abi_version()}; these bindings are for ABI {ABI_VERSION}")
_probe = OpenOptions()
if lib.mkb_open_options_init(ctypes.byref(_probe), ctypes.sizeof(OpenOptions)) != 0:
    raise ImportError("libmkb rejects this binding's mkb_open_options layout")


def owned_text(pointer: ctypes.c_void_p) -> str:
    """Copies a library-owned char * and releases it with mkb_free."""
    try:
        return ctypes.string_at(pointer).decode("utf-8", "replace")
    finally:
        lib.mkb_free(pointer)
