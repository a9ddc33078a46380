"""``python -m train.evaluate``: the evaluation CLI (train.evaluation.cli), kept under its documented name.

The in-training evaluation (one agent against a baseline in every other seat) is
``train.evaluation.evaluate``, also importable from here.
"""

import sys

from train.evaluation.baseline import EvalResult, evaluate, is_win, summarize
from train.evaluation.cli import main

__all__ = ["EvalResult", "evaluate", "is_win", "main", "summarize"]

if __name__ == "__main__":
    sys.exit(main())
