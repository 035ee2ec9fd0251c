"""`mkb report` and `mkb skills export` on the ledger of the replay demo (the worker TEST DOUBLE stands
in for the GPU): the page parses, every figure draws every row of its table, the CSVs agree with the
scores' JSON, a headless Chromium renders the page to something that is not blank, and the exported
skills load as Agent Skills."""
import csv
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
PROBLEMS = "fused_add_rmsnorm_h4096_llama31_8b_bf16,topk_softmax_routing_mixtral_8x7b_bf16"
VOID = {"meta", "br", "img", "input", "link", "hr", "col", "area", "base", "wbr", "source"}


def build_path(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise pytest.UsageError(f"{name} is not set: run these tests through CTest (ctest -R bindings.python)")
    return value


@pytest.fixture(scope="module")
def replay_ledger(tmp_path_factory) -> Path:
    ledger = tmp_path_factory.mktemp("replay") / "replay.ledger"
    out = subprocess.run([sys.executable, str(ROOT / "samples/python/replay_agent.py"), "--ledger", str(ledger),
                          "--dsl-a", "cuda", "--dsl-b", "cuda", "--worker", build_path("MKB_TEST_WORKER_DOUBLE"),
                          "--problems", PROBLEMS], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return ledger


@pytest.fixture(scope="module")
def report_dir(replay_ledger, tmp_path_factory) -> Path:
    out_dir = tmp_path_factory.mktemp("report")
    out = subprocess.run([build_path("MKB_TEST_CLI"), "report", str(replay_ledger), "--out", str(out_dir)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert f"{out_dir}/index.html" in out.stdout
    return out_dir


class PageParser(HTMLParser):
    """Checks that every element closes in order, and collects each figure's marks."""

    def __init__(self):
        super().__init__()
        self.open: list[str] = []
        self.figures: dict[str, list[int]] = {}
        self.figure = None
        self.errors: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "figure":
            self.figure = attrs["data-table"]
            self.figures[self.figure] = []
        if "mark" in (attrs.get("class") or "").split():
            if self.figure is None:
                self.errors.append("a mark outside a figure")
            else:
                self.figures[self.figure].append(int(attrs["data-row"]))
        if tag not in VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.open.pop()

    def handle_endtag(self, tag):
        if not self.open or self.open[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.open[-1] if self.open else 'nothing'}>")
            return
        self.open.pop()
        if tag == "figure":
            self.figure = None


def read_csv(path: Path) -> list[dict]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def test_the_page_parses_and_every_figure_draws_every_row(report_dir):
    page = PageParser()
    page.feed((report_dir / "index.html").read_text())
    page.close()
    assert page.errors == [] and page.open == [], page.errors
    assert set(page.figures) == {"ladder", "intervals", "paired", "tiers", "families", "usage", "verdicts"}
    for name, marks in page.figures.items():
        rows = read_csv(report_dir / f"{name}.csv")
        assert rows, f"{name}: the replay ledger gives this figure data"
        assert set(marks) == set(range(len(rows))), f"{name}: {len(rows)} rows, marks for {sorted(set(marks))}"
        as_json = json.loads((report_dir / f"{name}.json").read_text())
        assert len(as_json) == len(rows)
        for csv_row, json_row in zip(rows, as_json):
            assert list(csv_row) == list(json_row), name
            assert all(close(csv_row[k], json_row[k]) for k in csv_row), (name, csv_row, json_row)
    assert "http://" not in (report_dir / "index.html").read_text().replace("http://www.w3.org/2000/svg", ""), \
        "the page fetches nothing"


def close(csv_text: str, value) -> bool:
    if value is None:
        return csv_text == ""
    if isinstance(value, bool):
        return csv_text == ("true" if value else "false")
    if isinstance(value, (int, float)):
        return math.isclose(float(csv_text), value, rel_tol=0, abs_tol=0)
    return csv_text == value


def test_the_csv_tables_equal_the_scores_json(report_dir):
    scores = json.loads((report_dir / "scores.json").read_text())
    summary = read_csv(report_dir / "summary.csv")
    expected = [(d, "eager") for d in scores["vs_eager"]["directions"]] + \
               [(d, "baseline") for d in scores["vs_baseline"]["directions"]]
    assert len(summary) == len(expected) == 4
    for row, (d, against) in zip(summary, expected):
        assert (row["model"], row["direction"], row["speedup_vs"]) == (d["model"], d["direction"], against)
        assert close(row["scored"], d["scored"])
        if not d["scored"]:
            assert row["S_skill"] == "" and row["why_absent"] == d["why_absent"]
            continue
        assert close(row["pairs"], d["pairs"])
        assert close(row["S_skill"], d["skill"]["S"]) and close(row["S_base"], d["base"]["S"])
        assert close(row["lift_S"], d["lift"]["S"])
        assert close(row["help_rate"], d["help_rate"]) and close(row["harm_rate"], d["harm_rate"])
        assert close(row["paired_lift"], d["paired_lift"])
    usage = read_csv(report_dir / "usage.csv")
    for row in usage:
        arm = scores["models"][0]["usage"][row["arm"]]
        assert close(row["trials"], arm["trials"]) and close(row["submissions"], arm["submissions"])


def png_pixels(path: Path) -> tuple[int, int, list[bytes]]:
    """Width, height and the unfiltered RGB(A) rows of an 8-bit PNG (the kinds Chromium writes)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), (depth, colour)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride, rows, previous = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, corner = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                nearest = min((abs(p - left), 0, left), (abs(p - up), 1, up), (abs(p - corner), 2, corner))[2]
                line[i] = (line[i] + nearest) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, rows


def test_a_headless_chromium_renders_the_page(report_dir, tmp_path):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("no chromium on PATH: `scripts/setup --report-browser` installs Debian's package (CI does)")
    shot = tmp_path / "report.png"
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--window-size=1200,2400", f"--screenshot={shot}", (report_dir / "index.html").as_uri()],
                   capture_output=True, timeout=180, check=True)
    width, height, rows = png_pixels(shot)
    assert (width, height) == (1200, 2400)
    step = 3 if len(rows[0]) == width * 3 else 4
    colours, inked = set(), 0
    for line in rows[::4]:
        for x in range(0, len(line), step * 4):
            pixel = line[x:x + 3]
            colours.add(pixel)
            inked += pixel != b"\xff\xff\xff"
    assert inked > 0.03 * (height // 4) * (width // 4), f"{inked} coloured samples: the page looks blank"
    assert len(colours) > 20, f"{len(colours)} colours: the figures did not draw"


def test_skills_export_as_agent_skills(replay_ledger, tmp_path):
    out = subprocess.run([build_path("MKB_TEST_CLI"), "skills", "export", str(replay_ledger), "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    folders = sorted(p for p in tmp_path.iterdir() if p.is_dir())
    assert len(folders) == 4, "one skill per solo attempt: two problems, two solo arms"
    for folder in folders:
        text = (folder / "SKILL.md").read_text()
        assert text.startswith("---\n")
        front, body = text[4:].split("\n---\n", 1)
        meta = yaml.safe_load(front)
        assert set(meta) == {"name", "description"}
        assert meta["name"] == folder.name and len(meta["name"]) <= 64
        assert all(c.islower() or c.isdigit() or c == "-" for c in meta["name"]) and "--" not in meta["name"]
        assert 0 < len(meta["description"]) <= 1024
        assert body.strip(), "the skill's text is the body"
        provenance = json.loads((folder / "provenance.json").read_text())
        assert provenance["name"] == folder.name
        assert provenance["arm"] in ("solo_a", "solo_b") and provenance["verdict"] == "passed"
        assert provenance["problem"] in PROBLEMS.split(",") and provenance["dsl"] == "cuda"
        assert provenance["speedup"] > 0
