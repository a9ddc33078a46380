"""``python -m train.ray_bench``: alias of ``python -m train.bench runtime`` (train.bench.runtime)."""

import sys

from train.bench.runtime import main

if __name__ == "__main__":
    sys.exit(main())
