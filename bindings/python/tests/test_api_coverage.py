"""The bindings against include/mkb.h: every function declared, mkb_open_options laid out as a C
compiler lays it out, and its later fields read by the library where the header says they are."""
import ctypes
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import mkb
from mkb import _native

ROOT = Path(__file__).resolve().parents[3]


def header_functions() -> set[str]:
    text = (ROOT / "include" / "mkb.h").read_text()
    return set(re.findall(r"^MKB_API [^(]*?\b(mkb_\w+)\(", text, re.MULTILINE))


def test_every_function_of_the_header_is_declared():
    declared = set(_native._declarations)
    assert len(header_functions()) > 40  # the pattern still finds the header's declarations
    assert header_functions() == declared


def test_open_options_layout_matches_c(tmp_path):
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler (cc) to take the C layout of mkb_open_options")
    fields = [name for name, _ in _native.OpenOptions._fields_]
    offsets = "".join(f' printf(" %zu", offsetof(mkb_open_options, {name}));' for name in fields)
    probe = tmp_path / "layout.c"
    probe.write_text('#include <stddef.h>\n#include <stdio.h>\n#include "mkb.h"\n'
                     f'int main(void) {{ printf("%zu", sizeof(mkb_open_options));{offsets} return 0; }}\n')
    subprocess.run([compiler, "-I", str(ROOT / "include"), str(probe), "-o", str(tmp_path / "layout")], check=True)
    c_layout = [int(v) for v in subprocess.run([str(tmp_path / "layout")], capture_output=True, text=True,
                                               check=True).stdout.split()]
    python_layout = [ctypes.sizeof(_native.OpenOptions)]
    python_layout += [getattr(_native.OpenOptions, name).offset for name in fields]
    assert python_layout == c_layout


def test_later_option_fields_reach_the_library(worker):
    # Each error names a value only the field at its C offset could have carried.
    with pytest.raises(mkb.ConfigError, match=r'trials: "nothing/\*" matches no trial'):
        mkb.Session(worker_path=worker, dsl_a="cuda", dsl_b="cuda", trials="nothing/*")
    with pytest.raises(mkb.ConfigError, match='directions: .* got "sideways"'):
        mkb.Session(worker_path=worker, dsl_a="cuda", dsl_b="cuda", directions="sideways")
    with pytest.raises(mkb.ConfigError, match="gpu_lock_dir"):
        mkb.Session(worker_path=worker, dsl_a="cuda", dsl_b="cuda", gpu_lock_dir="/nonexistent/locks")
    with pytest.raises(TypeError, match="no_such_option"):
        mkb.Session(worker_path=worker, no_such_option=1)
