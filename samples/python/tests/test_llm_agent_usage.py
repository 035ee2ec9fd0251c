"""llm_agent/usage.py: token counts of both usage styles, and prices from the command line or a file."""
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from llm_agent.usage import Counts, Prices, usage_counts  # noqa: E402


def test_usage_counts_of_both_styles():
    openai = {"prompt_tokens": 1000, "completion_tokens": 100, "prompt_tokens_details": {"cached_tokens": 800}}
    assert usage_counts(openai) == Counts(1000, 800, 100, 0)
    assert usage_counts({"prompt_tokens": 10, "completion_tokens": 1, "prompt_tokens_details": None}) == Counts(10, 0, 1)
    anthropic = {"input_tokens": 50, "cache_read_input_tokens": 900, "cache_creation_input_tokens": 100,
                 "output_tokens": 70}
    assert usage_counts(anthropic) == Counts(1050, 900, 70, 100)
    assert usage_counts({}) == usage_counts(None) == Counts(0, 0, 0, 0)


def test_price_from_the_command_line_and_its_cost():
    prices = Prices.parse("input=3.0,cached=0.3,output=15")
    assert prices == Prices(input=3.0, output=15.0, cached=0.3, cache_write=3.0)  # cache_write defaults to input
    # 200 uncached prompt tokens at $3, 800 cached at $0.30, 100 output at $15 per million
    assert prices.cost(Counts(1000, 800, 100)) == pytest.approx((200 * 3 + 800 * 0.3 + 100 * 15) / 1e6)
    written = Prices.parse("input=3,cache_write=3.75,cached=0.3,output=15")
    assert written.cost(Counts(1050, 900, 70, 100)) == pytest.approx((50 * 3 + 900 * 0.3 + 100 * 3.75 + 70 * 15) / 1e6)
    assert Prices.parse("input=2,output=8").cached == 2.0


@pytest.mark.parametrize("text, message", [
    ("input=3", "no output price"),
    ("output=3", "no input price"),
    ("input=3,output=x", "output='x' is not a number"),
    ("input=3,output=15,cache=1", "unknown price cache"),
    ("input=3,output", "'output' is not KEY=DOLLARS_PER_MILLION_TOKENS"),
    ("input=3,output=15,input=4", "input is given twice"),
    ("input=-1,output=15", "must be a non-negative number"),
    ("input=nan,output=15", "must be a non-negative number"),
])
def test_a_bad_price_is_named(text, message):
    with pytest.raises(ValueError, match=message):
        Prices.parse(text)


def test_prices_from_a_file_keyed_by_model(tmp_path):
    table = tmp_path / "prices.json"
    table.write_text(json.dumps({"model-a": {"input": 1, "output": 2}, "model-b": {"input": 5, "output": 10,
                                                                                   "cached": 0.5}}))
    assert Prices.from_file(table, "model-b") == Prices(5.0, 10.0, 0.5, 5.0)
    with pytest.raises(ValueError, match=r"no prices for model 'model-c' \(it has: model-a, model-b\)"):
        Prices.from_file(table, "model-c")
    table.write_text("{not json")
    with pytest.raises(ValueError, match="not JSON"):
        Prices.from_file(table, "model-a")
    table.write_text(json.dumps({"model-a": {"input": "1", "output": 2}}))
    with pytest.raises(ValueError, match="model model-a: the input price must be a non-negative number"):
        Prices.from_file(table, "model-a")
    with pytest.raises(ValueError, match="No such file"):
        Prices.from_file(tmp_path / "missing.json", "model-a")
