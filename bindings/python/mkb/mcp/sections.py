"""Parts of a task's instruction served on their own: the problem's reference and the DSL's submission
notes. The library hands both to the agent inside the instruction only (the built-in suite lives in the
library, not in a folder), so they are cut out of it at the headings src/protocol/instruction.md gives."""
from __future__ import annotations

REFERENCE = ("## What to compute\n", "\n## Inputs and outputs\n")
NOTES = ("## How to submit\n", "\n## How you are graded\n")


def section(instruction: str, bounds: tuple[str, str]) -> str:
    """The text between a section's heading and the next fixed heading, trimmed. The first heading
    that follows is taken: a problem's reference may hold headings of its own, never these."""
    start_heading, end_heading = bounds
    start = instruction.find(start_heading)
    end = instruction.find(end_heading, start + len(start_heading)) if start >= 0 else -1
    if start < 0 or end < 0:
        missing = start_heading if start < 0 else end_heading
        raise ValueError(f"the instruction has no {missing.strip()!r} heading where the library's template puts "
                         "one: this server does not match this library's instruction")
    return instruction[start + len(start_heading):end].strip() + "\n"


def reference(instruction: str) -> str:
    """The problem's reference (its reference.md in the suite), as the instruction quotes it."""
    return section(instruction, REFERENCE)


def dsl_notes(instruction: str) -> str:
    """The DSL's submission notes (src/dsl/<dsl>_notes.md), as the instruction quotes them."""
    return section(instruction, NOTES)
