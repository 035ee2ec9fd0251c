#!/usr/bin/env python3
"""Checks one DSL guide (src/dsl/guides/<dsl-id>.md) against the guide format (docs/DSLS.md, Guides).

    usage: guides_check.py REPO MKB DSL_ID [--guide FILE] [--run]

REPO is the source tree, MKB the built `mkb` tool, DSL_ID one of cuda, cute, triton, cute-dsl, tirx;
--guide checks FILE instead of REPO/src/dsl/guides/DSL_ID.md (the checker's own tests use it).
--run (on a GPU machine: .ci/gpu-tests) evaluates each example instead of compiling it only: `mkb
check` must then find it correct, as a submission is graded.

What it checks, in this order:
1. `# <title>` first, then exactly the eight H2 sections of SECTIONS, in order; 20-50 KiB.
2. `signature` blocks: each line `dotted.path.name(params)`; the longest importable module prefix is
   imported, the rest resolved with getattr, and inspect.signature (a class: its constructor; after
   unwrapping __wrapped__) rendered without annotations, without parameters starting with `_` and
   without the MLIR plumbing `loc` and `ip`, must equal the line (whitespace collapsed).
3. `signature-unchecked` blocks: a first line `# why: <reason>`, then lines whose dotted path (what
   precedes any `(`) resolves.
4. `cuda api` blocks (cuda, cute): the block is the body of `extern "C" __global__ void
   mkb_guide_api_check(float *scratch)` after the DSL's PRELUDE, launched by a plan on API_PROBLEM, and
   must pass `mkb check --compile-only` (NVRTC for sm_90a, as a submission is compiled).
5. `<lang> example problem=<id>` blocks (lang cuda, cpp or python): a complete submission; `mkb check
   --compile-only --problem <id> --dsl DSL_ID` must exit 0. The Examples section holds 3 or 4 of them.
   An example must not solve a graded problem: <id> is one of problems/_guides (checked with `--suite
   REPO/problems/_guides`) or of the built-in suite's `extra` family (left out of default sessions);
   any other id fails with the rule, before the DSL's package is looked for.
Every failure is printed with the guide's line; the exit status is 0 when all pass, 1 otherwise, and 77
(after the format checks passed) when this interpreter lacks the DSL's package, printing
"SKIPPED: <package> not importable".
"""
import argparse
import importlib
import importlib.util
import inspect
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

SECTIONS = [
    "Programming model",
    "The API a kernel uses",
    "Memory spaces and layouts",
    "Tensor cores on Hopper",
    "The launch plan",
    "Pitfalls",
    "Examples",
    "Before you submit",
]
MIN_BYTES, MAX_BYTES = 20 * 1024, 50 * 1024
EXAMPLES_MIN, EXAMPLES_MAX = 3, 4
EXAMPLE_MAX_LINES = 150  # the format asks for under ~120; past this a block is no longer short
DROPPED_PARAMS = {"loc", "ip"}  # MLIR plumbing of the Python DSLs' builders
SKIP = 77
GUIDES_SUITE = Path("problems") / "_guides"  # the set-aside problems the examples solve (its README.md)
ALLOWED_FAMILY = "extra"  # the built-in family default sessions leave out
RULE = "examples must not solve a graded problem: use problems/_guides or the extra family"

# The Python package each DSL's guide documents (the checker's interpreter must import it), or, for
# cute, the package holding CUTLASS's headers; cuda needs none.
PACKAGES = {"triton": "triton", "cute-dsl": "cutlass", "tirx": "tvm", "cute": "cutlass_library"}

# What a `cuda api` block sees before its body: the headers a submission in that DSL can include.
PRELUDE = {
    "cuda": "#include <cuda_bf16.h>\n#include <cuda_fp16.h>\n#include <cuda_fp8.h>\n#include <cuda_pipeline.h>\n"
            "#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\n"
            "#include <cuda/barrier>\n#include <cuda/pipeline>\n",
    "cute": "#include <cute/tensor.hpp>\n#include <cute/atom/mma_atom.hpp>\n#include <cute/atom/copy_atom.hpp>\n"
            "#include <cute/arch/mma_sm90.hpp>\n#include <cute/arch/copy_sm90.hpp>\n"
            "#include <cutlass/arch/barrier.h>\n#include <cutlass/arch/reg_reconfig.h>\n"
            "#include <cutlass/numeric_types.h>\nusing namespace cute;\n",
}
API_PROBLEM = "fused_add_rmsnorm_h4096_llama31_8b_bf16"
API_PLAN = """
/* mkb:plan
scratch scratch fp32[16384]
launch mkb_guide_api_check grid(1) block(128) args(scratch)
*/
"""


@dataclass
class Block:
    info: str
    line: int  # the guide's line of the opening fence
    text: str
    section: str


class Guide:
    def __init__(self, text: str):
        self.text = text
        self.lines = text.split("\n")
        self.title = None
        self.headings = []  # (H2 title, line)
        self.blocks = []
        self.unclosed = None
        fence, info, start, body, section = None, "", 0, [], ""
        for number, line in enumerate(self.lines, 1):
            stripped = line.strip()
            if fence:
                if stripped.startswith(fence) and stripped.strip("`~") == "":
                    self.blocks.append(Block(info, start, "\n".join(body) + "\n", section))
                    fence = None
                else:
                    body.append(line)
                continue
            opening = re.match(r"^\s*(`{3,}|~{3,})(.*)$", line)
            if opening:
                fence, info, start, body = opening.group(1), opening.group(2).strip(), number, []
            elif line.startswith("# ") and self.title is None and not self.headings:
                self.title = (line[2:].strip(), number)
            elif line.startswith("## "):
                section = line[3:].strip()
                self.headings.append((section, number))
        if fence:
            self.unclosed = start


class Checker:
    def __init__(self, dsl: str, mkb: str, repo: Path, guide_path: Path, run_examples: bool = False):
        self.dsl, self.mkb, self.repo, self.path = dsl, mkb, repo, guide_path
        self.run_examples = run_examples  # evaluate on the GPU rather than compile only
        self.failures = 0
        self.suites = None  # problem id -> the --suite folder it is checked against ("" for the built-in)
        self.checked = {"signature": 0, "signature-unchecked": 0, "cuda api": 0, "example": 0}

    def fail(self, line: int, message: str):
        self.failures += 1
        print(f"{self.path}:{line}: {message}")

    # 1. The shape of the guide.
    def check_format(self, guide: Guide):
        size = len(guide.text.encode())
        if not MIN_BYTES <= size <= MAX_BYTES:
            self.fail(1, f"{size} bytes: a guide holds {MIN_BYTES} to {MAX_BYTES} bytes")
        first = next((i for i, line in enumerate(guide.lines, 1) if line.strip()), 1)
        if guide.title is None or guide.title[1] != first or not guide.title[0]:
            self.fail(first, "the guide must start with its title, '# <title>'")
        names = [name for name, _ in guide.headings]
        if names != SECTIONS:
            for i, expected in enumerate(SECTIONS):
                got = guide.headings[i] if i < len(guide.headings) else None
                if not got or got[0] != expected:
                    where = got[1] if got else len(guide.lines)
                    self.fail(where, f"section {i + 1} must be '## {expected}', found "
                                     f"{repr('## ' + got[0]) if got else 'the end of the guide'}")
                    break
            if len(names) > len(SECTIONS) and names[:len(SECTIONS)] == SECTIONS:
                self.fail(guide.headings[len(SECTIONS)][1], f"'## {names[len(SECTIONS)]}': only the eight sections")
        if guide.unclosed:
            self.fail(guide.unclosed, "a fenced block is never closed")
        examples = [b for b in guide.blocks if b.section == "Examples" and example_problem(b.info)]
        if not EXAMPLES_MIN <= len(examples) <= EXAMPLES_MAX:
            self.fail(next((l for n, l in guide.headings if n == "Examples"), 1),
                      f"the Examples section holds {len(examples)} example blocks, not {EXAMPLES_MIN} or {EXAMPLES_MAX}")
        for b in guide.blocks:
            kind = block_kind(b.info)
            if kind == "malformed":
                self.fail(b.line, f"fence info '{b.info}' is none of 'signature', 'signature-unchecked', "
                                  f"'cuda api' or '<cuda|cpp|python> example problem=<id>'")
            elif kind == "example" and b.text.count("\n") > EXAMPLE_MAX_LINES:
                self.fail(b.line, f"an example of {b.text.count(chr(10))} lines: at most {EXAMPLE_MAX_LINES}")
            if kind == "example" and self.example_suite(b) is None:
                self.fail(b.line, f"problem={example_problem(b.info)}: {RULE}")

    def example_suite(self, block: Block):
        """The --suite folder an example's problem is checked against ("" for the built-in suite), or
        None when the rule forbids the problem (a graded one, or no problem at all)."""
        if self.suites is None:
            guides = self.repo / GUIDES_SUITE
            self.suites = {p["id"]: "" for p in list_problems(self.mkb) if p["family"] == ALLOWED_FAMILY}
            self.suites.update({p["id"]: str(guides) for p in list_problems(self.mkb, guides)})
        return self.suites.get(example_problem(block.info))

    # 2. and 3. Python callables against the installed package.
    def check_signatures(self, block: Block):
        lines = [(block.line + i + 1, l.strip()) for i, l in enumerate(block.text.split("\n"))]
        for number, line in lines:
            if not line or line.startswith("#"):
                continue
            self.checked["signature"] += 1
            match = re.fullmatch(r"([A-Za-z_][\w.]*)\s*\((.*)\)", line)
            if not match:
                self.fail(number, f"'{line}' is not 'dotted.path.name(params)'")
                continue
            obj, why = resolve(match.group(1))
            if obj is None:
                self.fail(number, why)
                continue
            try:
                rendered = match.group(1) + render_signature(obj)
            except (TypeError, ValueError) as e:
                self.fail(number, f"{match.group(1)}: no signature to compare ({e}); list it in a "
                                  f"'signature-unchecked' block with the reason")
                continue
            if collapse(rendered) != collapse(line):
                self.fail(number, f"signature differs:\n  guide:     {line}\n  installed: {rendered}")

    def check_unchecked(self, block: Block):
        lines = [(block.line + i + 1, l.strip()) for i, l in enumerate(block.text.split("\n"))]
        content = [(n, l) for n, l in lines if l]
        if not content or not re.fullmatch(r"# why: \S.*", content[0][1]):
            self.fail(block.line + 1, "a 'signature-unchecked' block starts with '# why: <reason>'")
        for number, line in content[1:]:
            if line.startswith("#"):
                continue
            self.checked["signature-unchecked"] += 1
            path = line.split("(", 1)[0].strip()
            if not re.fullmatch(r"[A-Za-z_][\w.]*", path):
                self.fail(number, f"'{line}' does not name a dotted path")
                continue
            obj, why = resolve(path)
            if obj is None:
                self.fail(number, why)

    # 4. and 5. Device code through the library's own compile check.
    def compile_check(self, block: Block, source: str, problem: str, suffix: str, what: str, suite: str = "",
                      evaluate: bool = False):
        with tempfile.TemporaryDirectory(prefix="mkb-guide-") as folder:
            file = Path(folder) / ("submission" + suffix)
            file.write_text(source)
            run = subprocess.run([self.mkb, "check", *([] if evaluate else ["--compile-only"]),
                                  *(["--suite", suite] if suite else []),
                                  "--problem", problem, "--dsl", self.dsl, str(file)],
                                 capture_output=True, text=True, timeout=900)
        if run.returncode != 0:
            failed = "does not pass on the GPU" if evaluate else "does not compile"
            self.fail(block.line, f"{what} {failed} (mkb check exit {run.returncode}):\n"
                                  + indent(run.stdout + run.stderr))
        elif evaluate:
            verdict = next((l.strip() for l in run.stdout.splitlines() if l.strip()), "")
            print(f"  line {block.line}: {what}: {verdict}")

    def check_api(self, block: Block):
        self.checked["cuda api"] += 1
        if self.dsl not in PRELUDE:
            self.fail(block.line, f"'cuda api' blocks belong to the cuda and cute guides, not {self.dsl}'s")
            return
        source = (PRELUDE[self.dsl] + '\nextern "C" __global__ void mkb_guide_api_check(float *scratch) {\n'
                  + f'#line {block.line + 1} "guide"\n' + block.text + "}\n" + API_PLAN)
        self.compile_check(block, source, API_PROBLEM, ".cu", "the 'cuda api' block")

    def check_example(self, block: Block):
        self.checked["example"] += 1
        lang, problem = block.info.split()[0], example_problem(block.info)
        self.compile_check(block, block.text, problem, ".py" if lang == "python" else ".cu",
                           f"the example for {problem}", self.example_suite(block), evaluate=self.run_examples)

    def run(self) -> int:
        if not self.path.is_file():
            print(f"{self.path}: no such guide")
            return 1
        guide = Guide(self.path.read_text())
        self.check_format(guide)
        if self.failures:
            return 1
        package = PACKAGES.get(self.dsl)
        if package and not (self.dsl == "cute" and os.environ.get("MKB_CUTLASS_INCLUDE")):
            if importlib.util.find_spec(package) is None:
                print(f"SKIPPED: {package} not importable with {sys.executable}")
                return SKIP
        for b in guide.blocks:
            kind = block_kind(b.info)
            if kind == "signature":
                self.check_signatures(b)
            elif kind == "signature-unchecked":
                self.check_unchecked(b)
            elif kind == "cuda api":
                self.check_api(b)
            elif kind == "example":
                self.check_example(b)
        counts = ", ".join(f"{n} {k}" for k, n in self.checked.items())
        print(f"{self.path}: {len(guide.text.encode())} bytes; checked {counts}; "
              f"{self.failures} failure{'s' if self.failures != 1 else ''}")
        return 1 if self.failures else 0


def example_problem(info: str):
    words = info.split()
    if len(words) == 3 and words[0] in ("cuda", "cpp", "python") and words[1] == "example" \
            and re.fullmatch(r"problem=[\w.-]+", words[2]):
        return words[2][len("problem="):]
    return None


def list_problems(mkb: str, suite: Path = None) -> list:
    """`mkb problems --json`: the built-in suite's problems, or those of the folder `suite`."""
    command = [mkb, "problems", "--json", *(["--suite", str(suite)] if suite else [])]
    run = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if run.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed (exit {run.returncode}):\n" + indent(run.stdout + run.stderr))
    return json.loads(run.stdout)["problems"]


def block_kind(info: str) -> str:
    if info in ("signature", "signature-unchecked", "cuda api"):
        return info
    if example_problem(info):
        return "example"
    # A fence that means to be checked but is misspelt would otherwise pass unchecked.
    if re.search(r"signature|example|\bapi\b|problem=", info):
        return "malformed"
    return "prose"


def resolve(dotted: str):
    """The object a dotted path names: the longest importable module prefix, then attributes."""
    parts = dotted.split(".")
    errors = []
    for cut in range(len(parts), 0, -1):
        module_name = ".".join(parts[:cut])
        try:
            obj = importlib.import_module(module_name)
        except ImportError as e:
            errors.append(f"{module_name}: {e}")
            continue
        except Exception as e:  # a package that fails while importing is a failure, not a prefix
            return None, f"importing {module_name} raised {type(e).__name__}: {e}"
        for i, attribute in enumerate(parts[cut:], cut):
            if not hasattr(obj, attribute):
                return None, f"{dotted}: {'.'.join(parts[:i])} has no attribute '{attribute}'"
            obj = getattr(obj, attribute)
        return obj, ""
    return None, f"{dotted}: no prefix imports ({errors[-1] if errors else 'empty path'})"


def render_signature(obj) -> str:
    target = inspect.unwrap(obj)
    signature = inspect.signature(target)
    kept = [p.replace(annotation=inspect.Parameter.empty) for p in signature.parameters.values()
            if not p.name.startswith("_") and p.name not in DROPPED_PARAMS]
    return str(signature.replace(parameters=kept, return_annotation=inspect.Signature.empty))


def collapse(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def indent(text: str) -> str:
    return "\n".join("    " + line for line in text.strip().split("\n")[-60:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("mkb")
    parser.add_argument("dsl", choices=["cuda", "cute", "triton", "cute-dsl", "tirx"])
    parser.add_argument("--guide", type=Path, help="the guide to check (default: REPO/src/dsl/guides/DSL.md)")
    parser.add_argument("--run", action="store_true", help="evaluate the examples on the GPU, not only compile them")
    args = parser.parse_args()
    path = args.guide or args.repo / "src" / "dsl" / "guides" / f"{args.dsl}.md"
    return Checker(args.dsl, args.mkb, args.repo, path, run_examples=args.run).run()


if __name__ == "__main__":
    sys.exit(main())
