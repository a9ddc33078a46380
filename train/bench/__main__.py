"""``python -m train.bench WHAT ...``: dispatch to the benchmark named WHAT (see train.bench)."""

from __future__ import annotations

import importlib
import sys

import train.bench

COMMANDS = {"env": "train.bench.env", "trainer": "train.bench.trainer", "runtime": "train.bench.runtime",
            "solver": "envs.skat.solver.bench", "nfsp": "train.bench.nfsp", "decisions": "train.bench.decisions",
            "vector": "envs.vector_bench"}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] in (["-h"], ["--help"]):
        print(train.bench.__doc__)
        return 0
    if not argv or argv[0] not in COMMANDS:
        print(train.bench.__doc__, file=sys.stderr)
        what = repr(argv[0]) if argv else "nothing"
        print(f"error: unknown benchmark {what}; choose one of {', '.join(COMMANDS)}", file=sys.stderr)
        return 2
    result = importlib.import_module(COMMANDS[argv[0]]).main(argv[1:])
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(main())
