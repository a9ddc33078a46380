"""``python -m train.ablate``: the decision-kind ablation (train.evaluation.ablate), under its documented name."""

import sys

from train.evaluation.ablate import HandOver, ablate, main, report

__all__ = ["HandOver", "ablate", "main", "report"]

if __name__ == "__main__":
    sys.exit(main())
