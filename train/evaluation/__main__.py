"""``python -m train.evaluation`` (and ``python -m train.evaluate``): the match CLI, see train.evaluation.cli."""

import sys

from train.evaluation.cli import main

if __name__ == "__main__":
    sys.exit(main())
