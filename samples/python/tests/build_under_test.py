"""The build under test, as CTest (ctest -R bindings.python) names it in MKB_* variables; importing this
makes the binding and the samples importable."""
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
for folder in (Path(__file__).resolve().parent, ROOT / "samples" / "python", ROOT / "bindings" / "python"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))


def require_build(*names: str) -> None:
    """Stops the run when CTest did not name the build under test."""
    for name in names:
        if not os.environ.get(name):
            raise pytest.UsageError(f"{name} is not set: run these tests through CTest (ctest -R bindings.python)")
