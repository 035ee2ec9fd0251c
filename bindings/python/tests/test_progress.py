"""mkb.Progress: a line per step off a terminal, the time left once a step has ended, one live line on
a terminal."""
import io
import time

import mkb


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_line_per_step_with_the_time_left_once_a_step_has_ended():
    out = io.StringIO()
    progress = mkb.Progress(3, out)
    for what in ("one", "two", "three"):
        progress.step(what)
        time.sleep(0.02)
    progress.end()
    lines = out.getvalue().splitlines()
    assert [line.split(" (")[0] for line in lines] == ["[1/3] one", "[2/3] two", "[3/3] three"]
    assert "left" not in lines[0], "no estimate before a step has ended"
    assert lines[1].endswith(" s, about 0 s left)") and lines[2].endswith(" s, about 0 s left)")


def test_on_a_terminal_one_live_line_erased_at_the_end():
    out = Terminal()
    progress = mkb.Progress(2, out)
    progress.step("one")
    progress.step("two")
    progress.end()
    text = out.getvalue()
    assert "\n" not in text
    assert text.startswith("\r\033[K[1/2] one (") and text.endswith("\r\033[K")
