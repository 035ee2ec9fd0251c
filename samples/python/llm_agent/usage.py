"""Token usage of one reply, and its cost from a price table in dollars per million tokens."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Optional

PRICE_KEYS = ("input", "cached", "cache_write", "output")


class Counts(NamedTuple):
    """Tokens of one reply. input counts every prompt token; cached and cache_written are parts of it."""
    input: int
    cached: int
    output: int
    cache_written: int = 0


def usage_counts(usage: Optional[dict]) -> Counts:
    """The counts of one reply's usage. OpenAI-style usage counts every prompt token in prompt_tokens,
    the cached part in prompt_tokens_details.cached_tokens; Anthropic-style usage counts cache reads
    and writes apart from input_tokens, so they are added."""
    usage = usage or {}
    if "prompt_tokens" in usage:
        cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
        return Counts(usage["prompt_tokens"] or 0, cached, usage.get("completion_tokens") or 0)
    cache_read = usage.get("cache_read_input_tokens") or 0
    cache_written = usage.get("cache_creation_input_tokens") or 0
    prompt = (usage.get("input_tokens") or 0) + cache_read + cache_written
    return Counts(prompt, cache_read, usage.get("output_tokens") or 0, cache_written)


@dataclass(frozen=True)
class Prices:
    """Dollars per million tokens. cached (prompt-cache reads) and cache_write default to input."""
    input: float
    output: float
    cached: float
    cache_write: float

    @classmethod
    def from_dict(cls, values: dict, where: str) -> "Prices":
        unknown = sorted(set(values) - set(PRICE_KEYS))
        if unknown:
            raise ValueError(f"{where}: unknown price {', '.join(unknown)} (known: {', '.join(PRICE_KEYS)})")
        for key in ("input", "output"):
            if key not in values:
                raise ValueError(f"{where}: no {key} price (dollars per million tokens)")
        for key, value in values.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise ValueError(f"{where}: the {key} price must be a non-negative number, not {value!r}")
        return cls(float(values["input"]), float(values["output"]), float(values.get("cached", values["input"])),
                   float(values.get("cache_write", values["input"])))

    @classmethod
    def parse(cls, text: str) -> "Prices":
        """--price input=3.0,cached=0.3,output=15.0"""
        values = {}
        for item in text.split(","):
            key, sep, value = item.partition("=")
            if not sep:
                raise ValueError(f"--price: {item!r} is not KEY=DOLLARS_PER_MILLION_TOKENS")
            if key.strip() in values:
                raise ValueError(f"--price: {key.strip()} is given twice")
            try:
                values[key.strip()] = float(value)
            except ValueError:
                raise ValueError(f"--price: {key.strip()}={value!r} is not a number") from None
        return cls.from_dict(values, "--price")

    @classmethod
    def from_file(cls, path: Path, model: str) -> "Prices":
        """--prices FILE.json: {"MODEL": {"input": ..., "cached": ..., "output": ...}, ...}"""
        try:
            table = json.loads(Path(path).read_text())
        except OSError as error:
            raise ValueError(f"--prices {path}: {error.strerror}") from None
        except ValueError as error:
            raise ValueError(f"--prices {path}: not JSON: {error}") from None
        if not isinstance(table, dict) or not all(isinstance(v, dict) for v in table.values()):
            raise ValueError(f"--prices {path}: expected an object of models, each an object of prices")
        if model not in table:
            raise ValueError(f"--prices {path}: no prices for model {model!r} (it has: {', '.join(sorted(table))})")
        return cls.from_dict(table[model], f"--prices {path}, model {model}")

    def cost(self, counts: Counts) -> float:
        """Dollars for one reply: uncached prompt, cache reads, cache writes and output at their prices."""
        uncached = max(0, counts.input - counts.cached - counts.cache_written)
        return (uncached * self.input + counts.cached * self.cached + counts.cache_written * self.cache_write
                + counts.output * self.output) / 1e6
