"""``python -m envs.skat.vector_bench [...]``: :mod:`envs.vector_bench` for Skat."""

from __future__ import annotations

import sys

from envs.vector_bench import main as _main


def main(argv: list[str] | None = None) -> int:
    return _main(["skat", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
