"""A task's transcript: one JSON object a line, appended and flushed as each thing happens, so a killed
run keeps everything up to its last exchange. Read in order, the `request` fields of its `exchange`
records are the whole conversation (each holds the messages added since the previous request)."""
from __future__ import annotations

import datetime
import json
from pathlib import Path


def transcript_path(ledger: Path, task_id: str) -> Path:
    """<ledger>.transcripts/<task id>.jsonl; a task id "<problem>/<dsl>/<arm>/r<n>" makes folders."""
    parts = task_id.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise ValueError(f"task id {task_id!r} cannot name a transcript file")
    return Path(str(ledger) + ".transcripts").joinpath(*parts[:-1], parts[-1] + ".jsonl")


class Transcript:
    """Appends records to one file. Used by the one thread that works on its task."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._file = open(path, "a", encoding="utf-8")

    def write(self, kind: str, **fields) -> None:
        record = {"type": kind, "time": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")}
        record.update(fields)
        self._file.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> "Transcript":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
