"""Test settings: libmkb from the build tree (MKB_LIB_PATH), and the worker TEST DOUBLE at the GPU
boundary (MKB_TEST_WORKER_DOUBLE, or build/bin/mkb-worker-double) unless MKB_TEST_REAL_GPU=1."""
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("MKB_LIB_PATH", str(ROOT / "build" / "lib"))


@pytest.fixture
def worker() -> "str | None":
    if os.environ.get("MKB_TEST_REAL_GPU") == "1":
        return None  # the library's own worker, next to it
    return os.environ.get("MKB_TEST_WORKER_DOUBLE", str(ROOT / "build" / "bin" / "mkb-worker-double"))


@pytest.fixture
def solutions() -> Path:
    return ROOT / "problems"
