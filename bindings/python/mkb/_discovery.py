"""What a framework builds its menus from: the suite's problems and the DSLs usable here
(mkb_list_problems, mkb_list_dsls), as small immutable records."""
from __future__ import annotations

import ctypes
import json
from dataclasses import dataclass
from typing import Any, Optional

from ._native import lib
from ._offline import owned_result
from ._options import StrPath, open_options


@dataclass(frozen=True)
class Tensor:
    """An input or output of a problem: its name, element type ("bf16", ...) and shape."""

    name: str
    dtype: str
    shape: tuple[int, ...]

    @classmethod
    def _from_json(cls, data: dict[str, Any]) -> "Tensor":
        return cls(data["name"], data["dtype"], tuple(data["shape"]))


@dataclass(frozen=True)
class Problem:
    """A problem of the suite: its id, family, description, inputs and outputs."""

    id: str
    family: str
    description: str
    inputs: tuple[Tensor, ...]
    outputs: tuple[Tensor, ...]

    @classmethod
    def _from_json(cls, data: dict[str, Any]) -> "Problem":
        return cls(data["id"], data["family"], data["description"],
                   tuple(Tensor._from_json(t) for t in data["inputs"]),
                   tuple(Tensor._from_json(t) for t in data["outputs"]))


@dataclass(frozen=True)
class Dsl:
    """A registered DSL: `name` as options take it, whether it is usable here, and `detail`: why
    not, or what it uses when it is."""

    name: str
    display_name: str
    usable: bool
    detail: str


@dataclass(frozen=True)
class Sandbox:
    """The sandbox of the Python DSL frontends: `usable` (their submissions can run), `confined`
    (they run inside it, not opted out), and `detail` (what confines them, or why nothing does)."""

    usable: bool
    confined: bool
    detail: str


@dataclass(frozen=True)
class DslList:
    """The DSLs as `mkb doctor` sees them: the frontends' interpreter, the default pair, the pair the
    options select and whether both of it can run here, the Sandbox, and every registered Dsl.
    `dsl_list["triton"]` looks one up by name."""

    python: str
    default_pair: tuple[str, str]
    pair: tuple[str, str]
    pair_usable: bool
    sandbox: Sandbox
    dsls: tuple[Dsl, ...]

    def __getitem__(self, name: str) -> Dsl:
        """The DSL named `name`; KeyError naming the registered ones if there is none."""
        for dsl in self.dsls:
            if dsl.name == name:
                return dsl
        raise KeyError(f"no DSL named {name!r}; registered: {', '.join(d.name for d in self.dsls)}")


def _call(function: Any, options: Any) -> dict[str, Any]:
    out, error = ctypes.c_void_p(), ctypes.c_void_p()
    status = function(ctypes.byref(options), ctypes.byref(out), ctypes.byref(error))
    return json.loads(owned_result(status, out, error))


def list_problems(suite_path: Optional[StrPath] = None) -> list[Problem]:
    """The problems of a suite folder (str or os.PathLike), or of the built-in suite when None.
    Raises NotFoundError for a missing folder, SpecError for a malformed spec in it."""
    data = _call(lib.mkb_list_problems, open_options(suite_path=suite_path))
    return [Problem._from_json(p) for p in data["problems"]]


def list_dsls(*, python: Optional[StrPath] = None, dsl_a: Optional[str] = None, dsl_b: Optional[str] = None,
              no_sandbox: bool = False) -> DslList:
    """Every registered DSL and whether it can be used here, for a session opened with the same
    options (python defaults as in Session: MKB_PYTHON, else this interpreter)."""
    data = _call(lib.mkb_list_dsls, open_options(python=python, dsl_a=dsl_a, dsl_b=dsl_b, no_sandbox=no_sandbox))
    sandbox = Sandbox(bool(data["sandbox"]["usable"]), bool(data["sandbox"]["confined"]), data["sandbox"]["detail"])
    return DslList(data["python"], tuple(data["default_pair"]), tuple(data["pair"]), bool(data["pair_usable"]), sandbox,
                   tuple(Dsl(d["name"], d["display_name"], bool(d["usable"]), d["detail"]) for d in data["dsls"]))
