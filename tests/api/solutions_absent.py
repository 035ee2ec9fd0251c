#!/usr/bin/env python3
"""The library holds no stored solution and no PyTorch cross-check (issue 15): an agent links it and
could read either from its own memory or from the file.

For every file under problems/*/*/solutions/ and every torch_crosscheck.py, takes a distinctive line:
the longest one of at least 40 characters (without its indentation) that is in no file the library may
hold (the suite's other files, everything under src/). Fails when a library's bytes contain it, or when
a file has no such line to look for. Folders set aside (a name starting with '_', problems/_template)
are no part of the suite and are left out on both sides.

    usage: solutions_absent.py SOURCE_DIR LIBRARY...
"""
import sys
from pathlib import Path

MIN_CHARS = 40


def suite_files(problems: Path) -> list[Path]:
    return [p for p in problems.rglob("*")
            if p.is_file() and not any(part.startswith("_") for part in p.relative_to(problems).parts[:2])]


def guarded_files(problems: Path) -> list[Path]:
    return sorted(p for p in suite_files(problems) if "solutions" in p.parts or p.name == "torch_crosscheck.py")


def allowed_text(source: Path, guarded: set[Path]) -> str:
    """Everything the library may embed or spell in its code, as one text to search."""
    files = [p for p in suite_files(source / "problems") if p not in guarded]
    files += [p for p in (source / "src").rglob("*") if p.is_file()]
    return "\n".join(p.read_text(errors="replace") for p in files)


def distinctive_line(path: Path, allowed: str) -> str | None:
    lines = {line.strip() for line in path.read_text().splitlines()}
    candidates = [line for line in lines if len(line) >= MIN_CHARS and line not in allowed]
    return max(candidates, key=lambda line: (len(line), line), default=None)


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    source = Path(sys.argv[1])
    libraries = {Path(name): Path(name).read_bytes() for name in sys.argv[2:]}
    guarded = guarded_files(source / "problems")
    if not guarded:
        print(f"no solutions or torch_crosscheck.py under {source / 'problems'}: nothing to check", file=sys.stderr)
        return 1
    allowed = allowed_text(source, set(guarded))
    failures = []
    for path in guarded:
        line = distinctive_line(path, allowed)
        relative = path.relative_to(source)
        if line is None:
            failures.append(f"{relative}: no line of {MIN_CHARS}+ characters found only in this file; cannot check it")
            continue
        for library, data in libraries.items():
            if line.encode() in data:
                failures.append(f"{library.name} holds {relative}: {line!r}")
    for failure in failures:
        print(f"FAILED: {failure}")
    print(f"{len(guarded)} solution and cross-check files, {len(libraries)} libraries "
          f"({', '.join(p.name for p in libraries)}): {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
