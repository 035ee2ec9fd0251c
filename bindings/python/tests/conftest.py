"""Test settings: libmkb from the build under test (MKB_LIB_PATH), and the worker TEST DOUBLE at the
GPU boundary (MKB_TEST_WORKER_DOUBLE) unless MKB_TEST_REAL_GPU=1. CTest passes the build's paths
(tests/CMakeLists.txt); there is no build folder to fall back on, since a build may be anywhere."""
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def from_build(name: str) -> str:
    """A path into the build under test, from the environment CTest sets."""
    value = os.environ.get(name)
    if not value:
        raise pytest.UsageError(f"{name} is not set: run these tests through CTest (ctest -R bindings.python), "
                                "which passes the build's paths")
    return value


from_build("MKB_LIB_PATH")  # `import mkb` in the tests loads the library it names


@pytest.fixture
def worker() -> "str | None":
    if os.environ.get("MKB_TEST_REAL_GPU") == "1":
        return None  # the library's own worker, next to it
    return from_build("MKB_TEST_WORKER_DOUBLE")


@pytest.fixture
def mkb_cli() -> str:
    """The `mkb` tool of the build under test."""
    return from_build("MKB_TEST_CLI")


@pytest.fixture
def solutions() -> Path:
    return ROOT / "problems"
