"""The steady rate of one training run: learner steps per second after a warm-up update.

Kept free of imports from this checkout at module level so that ``train.bench trainer --baseline REV``
can run it as a script against another revision's code (that revision's ``train`` package first on
``PYTHONPATH``): the same measurement for both, whatever the revision's benchmark did.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any


def steady_rates(overrides: list[str]) -> dict[str, float]:
    """Train with ``overrides`` (config keys, as ``--set`` takes them) and time it after the first update
    (worker start, compiled code loaded from numba's cache, first passes): steps per second (``sps``)
    and microseconds per learner step collecting and updating. A run of one update is timed whole,
    as the trainer logs it."""
    from train.config import load_config
    from train.trainer import Trainer

    trainer = Trainer(load_config(overrides=overrides))
    updates: list[tuple[int, float, float]] = []  # per update: learner steps, its start, its end
    update = trainer.learner.update

    def timed(batch: dict[str, Any], progress: float, rng: Any) -> dict[str, float]:
        begin = time.perf_counter()
        metrics = update(batch, progress, rng)
        updates.append((len(batch["action"]), begin, time.perf_counter()))
        return metrics

    trainer.learner.update = timed
    trainer.train()
    if len(updates) < 2:
        metrics = trainer.last_metrics
        return {"sps": metrics["charts/SPS"], "collect": metrics.get("charts/collect_us_per_step", float("nan")),
                "update": metrics.get("charts/update_us_per_step", float("nan"))}
    measured = updates[1:]
    learner_steps = sum(n for n, _, _ in measured)
    elapsed = measured[-1][2] - updates[0][2]  # from the end of the warm-up update
    updating = sum(end - begin for _, begin, end in measured)
    return {"sps": learner_steps / elapsed, "collect": 1e6 * (elapsed - updating) / learner_steps,
            "update": 1e6 * updating / learner_steps}


if __name__ == "__main__":  # python train/bench/timing.py '["game=skat", ...]' (spawned workers skip this)
    print("BENCH " + json.dumps(steady_rates(json.loads(sys.argv[1]))), flush=True)
