#!/usr/bin/env python3
"""The guide checker's own tests: a guide that keeps the format passes, and each kind of defect fails it.

    usage: guides_check_test.py REPO MKB

Each case writes a small guide built for the purpose (padded to the format's size, examples for the
`extra` routing problem and for problems/_guides' row RMSNorm, a standard-library signature so no DSL
package is needed), changes one thing, and runs tests/dsl/guides_check.py on it as CTest does.
"""
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO, MKB = Path(sys.argv[1]), sys.argv[2]
CHECKER = REPO / "tests" / "dsl" / "guides_check.py"
PROBLEM = "topk_softmax_routing_mixtral_8x7b_bf16"

EXAMPLE = f"""```cuda example problem={PROBLEM}
#include <cuda_bf16.h>

extern "C" __global__ void route(const __nv_bfloat16 *logits, int *ids, __nv_bfloat16 *weights, int tokens) {{
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tokens) return;
  float best = -1e30f, second = -1e30f;
  int b = 0, s = 1;
  for (int e = 0; e < 8; ++e) {{
    float v = __bfloat162float(logits[t * 8 + e]);
    if (v > best) {{ second = best; s = b; best = v; b = e; }}
    else if (v > second) {{ second = v; s = e; }}
  }}
  float w = 1.0f / (1.0f + __expf(second - best));
  ids[2 * t] = b;
  ids[2 * t + 1] = s;
  weights[2 * t] = __float2bfloat16_rn(w);
  weights[2 * t + 1] = __float2bfloat16_rn(1.0f - w);
}}

/* mkb:plan
launch route grid(ceil_div(tokens, 256)) block(256) args(logits, expert_ids, expert_weights, i32(tokens))
*/
```
"""

# One warp per row of problems/_guides' rmsnorm_rows_bf16: checked with --suite problems/_guides.
SET_ASIDE_EXAMPLE = """```cuda example problem=rmsnorm_rows_bf16
#include <cuda_bf16.h>

extern "C" __global__ void rms_rows(const __nv_bfloat16 *x, const __nv_bfloat16 *w, __nv_bfloat16 *y, int hidden, float eps) {
  const __nv_bfloat16 *row = x + (long long)blockIdx.x * hidden;
  float sum = 0.0f;
  for (int c = threadIdx.x; c < hidden; c += 32) sum += __bfloat162float(row[c]) * __bfloat162float(row[c]);
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  float inv = rsqrtf(sum / hidden + eps);
  for (int c = threadIdx.x; c < hidden; c += 32)
    y[(long long)blockIdx.x * hidden + c] = __float2bfloat16_rn(__bfloat162float(row[c]) * inv * __bfloat162float(w[c]));
}

/* mkb:plan
launch rms_rows grid(rows) block(32) args(x, weight, y, i32(hidden), f32(eps))
*/
```
"""
GRADED = "fused_add_rmsnorm_h4096_llama31_8b_bf16"  # a problem of a default-session family
RULE = "examples must not solve a graded problem: use problems/_guides or the extra family"

SIGNATURE = """```signature
textwrap.indent(text, prefix, predicate=None)
```
"""

UNCHECKED = """```signature-unchecked
# why: a builtin has no introspectable signature here
builtins.len
```
"""

API = """```cuda api
// T __shfl_xor_sync(unsigned mask, T value, int lane_mask)
float v = __shfl_xor_sync(0xffffffffu, scratch[threadIdx.x], 16);
scratch[threadIdx.x] = v;
```
"""

PROSE = ("A paragraph of prose that stands for what a real guide says here, long enough to bring the "
         "test guide to the size the format asks for.\n\n")


def guide_text() -> str:
    sections = {
        "Programming model": "",
        "The API a kernel uses": SIGNATURE + "\n" + UNCHECKED + "\n" + API,
        "Memory spaces and layouts": "```text\nprose blocks are not checked\n```\n",
        "Tensor cores on Hopper": "",
        "The launch plan": "",
        "Pitfalls": "",
        "Examples": "\n".join([EXAMPLE] * 2 + [SET_ASIDE_EXAMPLE]),
        "Before you submit": "",
    }
    out = "# A test guide\n\n"
    for name, body in sections.items():
        out += f"## {name}\n\n" + PROSE * 22 + body + "\n"
    return out


def check(text: str, dsl: str = "cuda", python_flags=()) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="mkb-guides-check-test-") as folder:
        path = Path(folder) / "guide.md"
        path.write_text(text)
        return subprocess.run([sys.executable, *python_flags, str(CHECKER), str(REPO), MKB, dsl, "--guide", str(path)],
                              capture_output=True, text=True, timeout=600)


class GuidesCheck(unittest.TestCase):
    def assert_fails(self, text: str, message: str):
        run = check(text)
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn(message, run.stdout)

    def test_a_guide_in_the_format_passes(self):
        run = check(guide_text())
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("checked 1 signature, 1 signature-unchecked, 1 cuda api, 3 example; 0 failures", run.stdout)

    def test_a_wrong_signature_fails(self):
        self.assert_fails(guide_text().replace("predicate=None)", "predicate)"), "signature differs")

    def test_a_path_that_does_not_resolve_fails(self):
        self.assert_fails(guide_text().replace("textwrap.indent(", "textwrap.indentt("),
                          "textwrap has no attribute 'indentt'")
        self.assert_fails(guide_text().replace("\nbuiltins.len\n", "\nno_such_module.len\n"), "no prefix imports")

    def test_an_unchecked_block_needs_its_reason(self):
        self.assert_fails(guide_text().replace("# why: a builtin has no introspectable signature here\n", ""),
                          "starts with '# why: <reason>'")

    def test_a_missing_section_fails(self):
        self.assert_fails(guide_text().replace("## The launch plan\n", ""),
                          "section 5 must be '## The launch plan', found '## Pitfalls'")

    def test_sections_out_of_order_fail(self):
        text = guide_text().replace("## Pitfalls\n", "## PITFALLS\n").replace("## The launch plan\n", "## Pitfalls\n")
        self.assert_fails(text.replace("## PITFALLS\n", "## The launch plan\n"), "section 5 must be '## The launch plan'")

    def test_a_guide_out_of_size_fails(self):
        self.assert_fails(guide_text().replace(PROSE * 22, PROSE * 2), "bytes: a guide holds 20480 to 51200 bytes")

    def test_a_broken_example_fails(self):
        broken = guide_text().replace("  ids[2 * t] = b;\n", "  ids[2 * t] = undeclared;\n", 1)
        self.assert_fails(broken, "the example for topk_softmax_routing_mixtral_8x7b_bf16 does not compile")
        broken = guide_text().replace("float inv = rsqrtf(", "float inv = rsqrtff(")
        self.assert_fails(broken, "the example for rmsnorm_rows_bf16 does not compile")

    def test_an_example_for_a_graded_problem_fails(self):
        # The rule is checked with the format, before anything compiles.
        for problem in (GRADED, "no_such_problem"):
            run = check(guide_text().replace("problem=rmsnorm_rows_bf16", f"problem={problem}"))
            self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
            self.assertIn(f"problem={problem}: {RULE}", run.stdout)
            self.assertNotIn("does not compile", run.stdout)
        # Checked with the format, so a machine without the DSL's package still refuses it.
        run = check(guide_text().replace("problem=rmsnorm_rows_bf16", f"problem={GRADED}"), dsl="triton",
                    python_flags=("-S",))
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn(RULE, run.stdout)

    def test_an_example_whose_plan_does_not_fit_fails(self):
        self.assert_fails(guide_text().replace("args(logits, expert_ids, expert_weights, i32(tokens))",
                                               "args(logits, expert_ids, expert_weights)", 1), "does not compile")

    def test_a_broken_api_block_fails(self):
        self.assert_fails(guide_text().replace("__shfl_xor_sync(0xffffffffu,", "__shfl_xor_sync("),
                          "the 'cuda api' block does not compile")

    def test_too_few_examples_fail(self):
        text = guide_text().replace(EXAMPLE, "", 1)
        self.assert_fails(text, "the Examples section holds 2 example blocks")

    def test_a_misspelt_checked_fence_fails(self):
        self.assert_fails(guide_text().replace("```signature\n", "```signatures\n"), "fence info 'signatures'")

    def test_without_the_dsls_package_it_skips(self):
        # -S: no site-packages, so the DSL's package cannot import, as with an interpreter without it.
        run = check(guide_text(), dsl="triton", python_flags=("-S",))
        self.assertEqual(run.returncode, 77, run.stdout + run.stderr)
        self.assertIn("SKIPPED: triton not importable", run.stdout)
        broken = check(guide_text().replace("## Pitfalls\n", ""), dsl="triton", python_flags=("-S",))
        self.assertEqual(broken.returncode, 1, "the format is checked before the package is looked for")


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
