"""What the PyTorch cross-check and the eager check share: the suite's problems that have a given file,
each checked on its own, and reading what `mkb draw` writes (index.json and one raw array per tensor)
into CUDA tensors."""
import json
import shutil
import subprocess

import numpy as np
import torch

_RAW = {"bf16": np.uint16, "fp16": np.float16, "fp32": np.float32, "fp64": np.float64, "int8": np.int8,
        "uint8": np.uint8, "bool": np.uint8, "int32": np.int32, "int64": np.int64,
        "fp8_e4m3": np.uint8, "fp8_e5m2": np.uint8}
_NATIVE = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32, "fp64": torch.float64,
           "int8": torch.int8, "uint8": torch.uint8, "bool": torch.bool, "int32": torch.int32, "int64": torch.int64,
           "fp8_e4m3": torch.float8_e4m3fn, "fp8_e5m2": torch.float8_e5m2}


def check_each_problem(suite, needs, only, check):
    """check(spec_path) for every problem of `suite` with the file `needs` (only those named in `only`,
    comma-separated ids as `mkb suite validate --problem` takes them, when given), leaving out the
    folders set aside (a name starting with '_'). A problem whose check raises fails alone. Returns
    {problem: what check returned, or False}."""
    wanted = set(only.split(",")) if only else None
    results = {}
    for spec_path in sorted(suite.glob("*/*/spec.json")):
        if any(part.startswith("_") for part in spec_path.relative_to(suite).parts[:2]):
            continue
        problem = spec_path.parent.name
        if not (spec_path.parent / needs).exists() or (wanted and problem not in wanted):
            continue
        print(f"{problem}:", flush=True)
        try:
            results[problem] = check(spec_path)
        except Exception as e:  # a broken problem file or draw is a failure of that problem only
            print(f"  ERROR: {type(e).__name__}: {e}")
            results[problem] = False
        torch.cuda.empty_cache()
    return results


def write_draw(mkb, suite, problem, seed, folder):
    """Runs `mkb draw` into a fresh `folder` and returns {"input": {name: entry}, "anchor": {...}}."""
    shutil.rmtree(folder, ignore_errors=True)
    subprocess.run([mkb, "draw", "--suite", str(suite), "--problem", problem, "--seed", str(seed),
                    "--out", str(folder)], check=True, stdout=subprocess.DEVNULL)
    index = json.loads((folder / "index.json").read_text())
    roles = {"input": {}, "anchor": {}}
    for entry in index["tensors"]:
        roles[entry["role"]][entry["name"]] = entry
    return roles


def load_float64(folder, entry):
    """Floating tensors as float64 (their exact values), integers as int64."""
    raw = np.fromfile(folder / entry["file"], dtype=_RAW[entry["dtype"]])
    if entry["dtype"] == "bf16":
        values = torch.from_numpy(raw.astype(np.int32) << 16).view(torch.float32).double()
    elif entry["dtype"].startswith("fp8"):
        values = torch.from_numpy(raw).view(_NATIVE[entry["dtype"]]).double()
    elif entry["dtype"] in ("fp16", "fp32", "fp64"):
        values = torch.from_numpy(raw).double()
    else:
        values = torch.from_numpy(raw.astype(np.int64))
    return values.reshape(entry["shape"]).cuda()


def load_native(folder, entry):
    """The tensor at its own dtype, bit for bit."""
    raw = np.fromfile(folder / entry["file"], dtype=_RAW[entry["dtype"]])
    if entry["dtype"] == "bf16":
        values = torch.from_numpy(raw.view(np.int16)).view(torch.bfloat16)
    elif entry["dtype"] == "bool":
        values = torch.from_numpy(raw) != 0
    elif entry["dtype"].startswith("fp8"):
        values = torch.from_numpy(raw).view(_NATIVE[entry["dtype"]])
    else:
        values = torch.from_numpy(raw)
    return values.reshape(entry["shape"]).cuda()
