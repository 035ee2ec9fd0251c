"""`python3 samples/python/llm_agent ...` (or `python3 -m llm_agent` from samples/python)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a folder, the package's parent is not on the path

from llm_agent.cli import main  # noqa: E402

sys.exit(main())
