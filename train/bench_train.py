"""``python -m train.bench_train``: alias of ``python -m train.bench trainer`` (train.bench.trainer)."""

import sys

from train.bench.trainer import main

if __name__ == "__main__":
    sys.exit(main())
