"""The Python DSL frontend of libmkb: compiles one submission's kernels for a GPU architecture without
needing a GPU, and answers with code (PTX units or CUDA C++) and the facts the launch plan needs.

libmkb runs this file as `PYTHON mkb_frontend.py` in a fresh temporary folder, sends one JSON request
on file descriptor 3, closes its end for writing, and reads one JSON response (src/dsl/frontend.fbs)
from the same descriptor. The submission is the agent's own Python code: it runs here, in this
child process, under the time and resource limits libmkb enforces, never inside the library, and
(unless the user opted out) in a sandbox: no network, no home, a private /tmp (src/dsl/sandbox.hpp).
"""
import contextlib
import importlib.util
import io
import json
import os
import re
import socket
import sys
import traceback

# Plan argument kinds and tensor dtypes, as each DSL spells them.
TRITON_SCALARS = {"i32": "i32", "i64": "i64", "u32": "u32", "u64": "u64", "f32": "fp32", "f64": "fp64"}
TRITON_POINTERS = {"bf16": "*bf16", "fp16": "*fp16", "fp32": "*fp32", "fp64": "*fp64", "int8": "*i8",
                   "uint8": "*u8", "int32": "*i32", "int64": "*i64", "bool": "*i8", "fp8_e4m3": "*fp8e4nv",
                   "fp8_e5m2": "*fp8e5"}


class SubmissionError(Exception):
    """What is wrong with the submission, in words for its author."""


# How libmkb counts an error (src/dsl/frontend.fbs, docs/CONTRACT.md): Python that does not parse never
# enters evaluation, nor does a submission this machine cannot compile at all; everything else the
# submission does wrong is a counted compile error.
SYNTAX, INFRASTRUCTURE, COMPILE = "syntax", "infrastructure", "compile"

# The package each DSL's compiler lives in: (module to import, distribution).
PACKAGES = {"triton": ("triton", "triton"), "cute-dsl": ("cutlass.cute", "nvidia-cutlass-dsl"),
            "tirx": ("tvm.tirx", "apache-tvm")}


def parse_submission(source):
    """The submission compiled to a code object, or the SyntaxError that says where it does not parse."""
    path = os.path.abspath("submission.py")  # DSLs read kernel source back from the file
    with open(path, "w") as f:
        f.write(source)
    try:
        return compile(source, path, "exec", dont_inherit=True)
    except ValueError as e:  # null bytes in the source: not Python either
        raise SyntaxError(str(e)) from None


def load_submission(code):
    spec = importlib.util.spec_from_file_location("submission", code.co_filename)
    module = importlib.util.module_from_spec(spec)
    sys.modules["submission"] = module
    exec(code, module.__dict__)
    return module


def gpu_target(arch):
    """(major, minor) of "sm_90a" or "sm_100a"."""
    match = re.fullmatch(r"sm_(\d+)(\d)a?", arch)
    if not match:
        raise ValueError(f"not an architecture: {arch!r}")
    return int(match.group(1)), int(match.group(2))


def installed(distribution):
    from importlib.metadata import version
    return version(distribution)


def kernel_of(module, name):
    kernel = getattr(module, name, None)
    if kernel is None:
        raise SubmissionError(f"the plan launches '{name}', but the submission defines no '{name}'")
    return kernel


def entries_in(ptx):
    return re.findall(r"\.entry\s+([A-Za-z_$][\w$]*)", ptx)


# ---- Triton ------------------------------------------------------------------------------------------

def compile_triton(module, request):
    import triton
    from triton.backends.compiler import GPUTarget
    major, minor = gpu_target(request["arch"])
    options = getattr(module, "MKB_OPTIONS", {})
    response = {"versions": "triton " + installed("triton"), "ptx": [], "entries": []}
    for kernel in request["kernels"]:
        fn = kernel_of(module, kernel["name"])
        if not isinstance(fn, triton.runtime.jit.JITFunction):
            raise SubmissionError(f"'{kernel['name']}' is not a @triton.jit function")
        own = dict(options.get(kernel["name"], {}))
        constexprs = dict(own.pop("constexprs", {}))
        runtime = [p for p in fn.params if not p.is_constexpr]
        for p in fn.params:
            if p.is_constexpr and p.name not in constexprs:
                if not p.has_default:
                    raise SubmissionError(f"constexpr '{p.name}' of '{kernel['name']}' has no value: give it a default "
                                          f"or set MKB_OPTIONS['{kernel['name']}']['constexprs']")
                constexprs[p.name] = p.default
        if len(runtime) != len(kernel["params"]):
            raise SubmissionError(f"'{kernel['name']}' takes {len(runtime)} runtime arguments; the plan passes "
                                  f"{len(kernel['params'])}")
        signature, attrs = {}, {}
        for i, (p, arg) in enumerate(zip(runtime, kernel["params"])):
            signature[p.name] = TRITON_POINTERS[arg["dtype"]] if arg["kind"] == "pointer" else TRITON_SCALARS[arg["kind"]]
            if arg["kind"] == "pointer" or arg.get("multiple_of_16"):
                attrs[(fn.arg_names.index(p.name),)] = [["tt.divisibility", 16]]  # buffers are 256-byte aligned
        for name in constexprs:
            signature[name] = "constexpr"
        threads = kernel["block"][0] * kernel["block"][1] * kernel["block"][2]
        if kernel["block"][1:] != [1, 1] or threads % 32:
            raise SubmissionError(f"'{kernel['name']}': a Triton launch takes block(32 * num_warps), not "
                                  f"block({', '.join(map(str, kernel['block']))})")
        compile_options = {"num_warps": threads // 32}
        compile_options.update(own)
        src = triton.compiler.ASTSource(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs)
        compiled = triton.compile(src, target=GPUTarget("cuda", major * 10 + minor, 32), options=compile_options)
        meta = compiled.metadata
        if meta.global_scratch_size or meta.profile_scratch_size:
            raise SubmissionError(f"'{kernel['name']}' needs Triton global scratch memory, which libmkb does not "
                                  "provide (device-side tensor descriptors): use pointers")
        if getattr(meta, "num_ctas", 1) != 1:
            raise SubmissionError(f"'{kernel['name']}': num_ctas > 1 is not supported")
        entry = f"{meta.name}_{len(response['ptx'])}"  # unique across kernels and specializations
        ptx = re.sub(rf"\b{re.escape(meta.name)}\b", entry, compiled.asm["ptx"])
        response["ptx"].append(ptx)
        response["entries"].append({"name": kernel["name"], "entry": entry, "block": [32 * meta.num_warps, 1, 1],
                                    "shared_bytes": int(meta.shared),
                                    "extra_u64_args": trailing_scratch_params(ptx, entry, len(runtime))})
    return response


def trailing_scratch_params(ptx, entry, runtime_count):
    """Triton appends scratch pointers (global, and from 3.5 profile) after the runtime arguments."""
    match = re.search(rf"\.entry\s+{re.escape(entry)}\s*\((.*?)\)", ptx, re.S)
    count = len(re.findall(r"\.param\b", match.group(1))) if match else runtime_count
    return count - runtime_count


# ---- CuTe DSL ----------------------------------------------------------------------------------------

def compile_cute_dsl(module, request):
    import cutlass
    import cutlass.cute as cute
    from cutlass.cute.runtime import make_ptr
    element = {"bf16": cutlass.BFloat16, "fp16": cutlass.Float16, "fp32": cutlass.Float32, "fp64": cutlass.Float64,
               "int8": cutlass.Int8, "uint8": cutlass.Uint8, "int32": cutlass.Int32, "int64": cutlass.Int64,
               "bool": cutlass.Uint8, "fp8_e4m3": cutlass.Float8E4M3FN, "fp8_e5m2": cutlass.Float8E5M2}
    scalar = {"i32": (cutlass.Int32, 1), "i64": (cutlass.Int64, 1), "u32": (cutlass.Uint32, 1),
              "u64": (cutlass.Uint64, 1), "f32": (cutlass.Float32, 1.0), "f64": (cutlass.Float64, 1.0)}
    response = {"versions": "nvidia-cutlass-dsl " + installed("nvidia-cutlass-dsl"), "ptx": [], "entries": []}
    for kernel in request["kernels"]:
        fn = kernel_of(module, kernel["name"])
        args = []
        for arg in kernel["params"]:
            if arg["kind"] == "pointer":
                args.append(make_ptr(element[arg["dtype"]], 0, cute.AddressSpace.gmem, assumed_align=256))
            else:
                kind, value = scalar[arg["kind"]]
                args.append(kind(value))
        launch = dict(grid=kernel["grid"], block=kernel["block"], smem=kernel["shared"])
        if kernel["cluster"][0]:
            launch["cluster"] = kernel["cluster"]

        @cute.jit  # the DSL rewrites this body's control flow: keep it straight-line
        def host(*runtime):
            fn(*runtime).launch(**launch)

        compiled = cute.compile(host, *args, options=f"--gpu-arch {request['arch']} --keep-ptx")
        ptx = compiled.__ptx__
        found = entries_in(ptx)
        if len(found) != 1:
            raise SubmissionError(f"'{kernel['name']}' compiled to {len(found)} kernels; launch one @cute.kernel per "
                                  "plan launch")
        entry = f"mkb_{kernel['name']}_{len(response['ptx'])}"
        response["ptx"].append(re.sub(rf"\b{re.escape(found[0])}\b", entry, ptx))
        response["entries"].append({"name": kernel["name"], "entry": entry})
    return response


# ---- TIRx --------------------------------------------------------------------------------------------

def compile_tirx(module, request):
    import tvm
    target = tvm.target.Target({"kind": "cuda", "arch": request["arch"]})
    functions = {}
    for kernel in request["kernels"]:
        fn = kernel_of(module, kernel["name"])
        if not isinstance(fn, tvm.tirx.PrimFunc):
            raise SubmissionError(f"'{kernel['name']}' is not a TIRx @T.prim_func")
        functions[kernel["name"]] = fn
    # In scope, so that TVM's CUDA compile callback takes the arch from the target: the sandboxed
    # frontend sees no GPU, and TVM otherwise asks the device.
    with target:
        executable = tvm.compile(tvm.IRModule(functions), target=target, tir_pipeline="tirx")
    device_modules = [m for m in executable.mod.imports if m.kind == "cuda"] if hasattr(executable, "mod") else []
    if not device_modules:
        raise SubmissionError("TVM produced no CUDA module")
    cuda = device_modules[0].inspect_source()
    found = set(re.findall(r'extern "C" __global__ void (?:__launch_bounds__\([^)]*\)\s+)?(\w+)\(', cuda))
    entries = []
    for kernel in request["kernels"]:
        entry = kernel["name"] + "_kernel"
        if entry not in found:
            raise SubmissionError(f"TVM generated no single kernel '{entry}' for '{kernel['name']}' (found: "
                                  f"{', '.join(sorted(found)) or 'none'}); give each launched function one device entry")
        entries.append({"name": kernel["name"], "entry": entry,
                        "arg_order": tirx_argument_order(functions[kernel["name"]], cuda, entry, kernel)})
    return {"versions": "apache-tvm " + installed("apache-tvm"), "cuda": cuda, "entries": entries}


def tirx_argument_order(fn, cuda, entry, kernel):
    """TVM orders a kernel's parameters by name, not as declared: for each parameter of the generated
    entry, the position of the declared parameter (handle, buffer or scalar) it is."""
    signature = re.search(rf"void\s+(?:__launch_bounds__\([^)]*\)\s+)?{entry}\((.*?)\)", cuda, re.S)
    names = [p.strip().split()[-1] for p in signature.group(1).split(",") if p.strip()] if signature else []
    # A parsed function's handle parameters carry their buffer's name; the kernel calls them <name>_ptr.
    declared = [{param.name, param.name + "_ptr"} for param in fn.params]
    if len(names) != len(kernel["params"]) or len(declared) != len(kernel["params"]):
        raise SubmissionError(f"'{kernel['name']}' declares {len(declared)} parameters and its kernel takes "
                              f"{len(names)}; the plan passes {len(kernel['params'])}")
    order = []
    for name in names:
        matches = [i for i, aliases in enumerate(declared) if name in aliases]
        if len(matches) != 1:
            raise SubmissionError(f"cannot tell which declared parameter of '{kernel['name']}' the kernel "
                                  f"parameter '{name}' is: give handles and buffers distinct names")
        order.append(matches[0])
    return order


COMPILERS = {"triton": compile_triton, "cute-dsl": compile_cute_dsl, "tirx": compile_tirx}


def probe(dsl):
    """Which version of the DSL's package is installed (or, for `cute`, where CUTLASS's headers are)."""
    if dsl == "cute":
        spec = importlib.util.find_spec("cutlass_library")  # finds the package without importing it
        if spec is None or not spec.submodule_search_locations:
            return {"error": "the nvidia-cutlass package (CUTLASS's headers) is not installed"}
        return {"path": os.path.join(spec.submodule_search_locations[0], "source", "include")}
    package, distribution = PACKAGES[dsl]
    try:
        importlib.import_module(package)
        return {"versions": f"{distribution} {installed(distribution)}"}
    except Exception as e:  # missing, or broken by its own dependencies
        return {"error": f"{distribution} cannot be imported: {type(e).__name__}: {e}"}


def failure(kind, text):
    return {"error": text, "error_kind": kind}


def answer(request):
    if request.get("probe"):
        return probe(request["dsl"])
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured), contextlib.redirect_stderr(captured):
        # The DSL's own package first: when it cannot be imported here, no submission can compile.
        found = probe(request["dsl"])
        if "error" in found:
            return failure(INFRASTRUCTURE, found["error"] + captured.getvalue()[-2000:])
        try:
            code = parse_submission(request["source"])
        except SyntaxError:
            return failure(SYNTAX, "".join(traceback.format_exception_only(*sys.exc_info()[:2])))
        try:
            module = load_submission(code)
            return COMPILERS[request["dsl"]](module, request)
        except SubmissionError as e:
            return failure(COMPILE, str(e))
        except BaseException:  # the submission's own raise, exit() included, counts as its compile error
            trace = traceback.format_exc()
            # The submission's own frames are the useful part: keep from the first one on. Without
            # one (the DSL's compiler found the error), its message says where, in the submission.
            start = trace.find('File "' + os.path.abspath("submission.py"))
            if start < 0:
                trace = "".join(traceback.format_exception_only(*sys.exc_info()[:2]))
            return failure(COMPILE, trace[max(start, 0):][-6000:] + captured.getvalue()[-2000:])


def main():
    os.chdir(os.path.dirname(os.path.abspath(__file__)))  # the run's private folder
    # Native parts of the DSLs print to stdout and stderr: a pipe whose tail libmkb adds to an error.
    channel = socket.socket(fileno=3)
    data = b""
    while chunk := channel.recv(1 << 20):
        data += chunk
    response = answer(json.loads(data))
    channel.sendall(json.dumps(response).encode())
    channel.close()


if __name__ == "__main__":
    main()
