"""llm_agent/transcript.py: where a task's transcript goes, and that each record is on disk at once."""
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from llm_agent.transcript import Transcript, transcript_path  # noqa: E402


def test_the_path_is_the_task_id_beside_the_ledger(tmp_path):
    assert transcript_path(tmp_path / "run.ledger", "softmax/cuda/solo_a/r0") == \
        tmp_path / "run.ledger.transcripts" / "softmax" / "cuda" / "solo_a" / "r0.jsonl"
    for bad in ("../x/cuda/solo_a/r0", "a//b", "a/b/."):
        with pytest.raises(ValueError, match="cannot name a transcript file"):
            transcript_path(tmp_path / "run.ledger", bad)


def test_records_are_flushed_as_written_and_appended_across_runs(tmp_path):
    path = transcript_path(tmp_path / "run.ledger", "p/cuda/solo_b/r1")
    first = Transcript(path)
    first.write("exchange", turn=1, reply={"content": "ü"})
    # Read before the writer closes: a killed run keeps what was written.
    (record,) = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert record["type"] == "exchange" and record["turn"] == 1 and record["reply"] == {"content": "ü"}
    assert record["time"].endswith("+00:00")
    first.close()
    with Transcript(path) as second:  # a resumed run appends
        second.write("end", reason="finish")
    assert [json.loads(line)["type"] for line in path.read_text().splitlines()] == ["exchange", "end"]
