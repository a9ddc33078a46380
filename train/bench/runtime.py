"""Rollout throughput of the local and the Ray runtime, and the learner's cost per batch.

``python -m train.bench runtime [--config FILE] [--updates 3] [--runs local:1,local:2,ray:1,ray:2] [--set k=v ...]``

For each ``runtime:num_workers`` it builds the collector of that runtime, collects one warm-up
update, then ``--updates`` timed ones with the config's policy (untrained weights: the rate does
not depend on them). Then it times the learner's update on one such batch. Printed per run:

* learner steps/s (the trainer's ``charts/SPS`` unit: learner decisions) and env steps/s (every
  seat's decisions), of collection alone, and per worker;
* the learner's seconds per batch, and the synchronous loop's rate ``B / (B / R + U)`` with
  ``B`` steps per batch, ``R`` the collection rate and ``U`` the update time.

With ``W`` workers at ``r`` learner steps/s each, collection takes ``B / (W r)``; the learner is
the bottleneck once that is below ``U``: ``W > B / (r U)``. The script prints that ``W``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from train.config import DEFAULT_CONFIG, load_config
from train.trainer import Trainer


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m train.bench runtime", description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default=str(DEFAULT_CONFIG))
    parser.add_argument("--updates", type=int, default=3)
    parser.add_argument("--runs", default="local:1,local:2,ray:1,ray:2", help="runtime:num_workers,...")
    parser.add_argument("--set", dest="overrides", action="extend", nargs="+", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    trainer = Trainer(load_config(args.config, ["progress=false", "eval_opponents=[]", *args.overrides]))
    torch.set_num_threads(1)
    plan = trainer.pool.plan()
    print(f"{trainer.cfg.game}: num_envs={trainer.cfg.num_envs} num_steps={trainer.cfg.num_steps} "
          f"hidden={trainer.cfg.hidden} rollout_chunks={trainer.cfg.rollout_chunks}")
    print(f"{'run':>9} {'learner st/s':>12} {'per worker':>10} {'env st/s':>9} {'steps/batch':>11} "
          f"{'collect s':>9} {'update s':>8} {'loop st/s':>9}  learner-bound from")
    batch = None
    for run in args.runs.split(","):
        runtime, workers = run.split(":")
        collector = trainer.make_collector(runtime, int(workers))
        try:
            collector.collect(0, plan, [])  # warm-up: worker start, first forward passes
            steps = decisions = 0
            start = time.perf_counter()
            for update in range(1, args.updates + 1):
                batch, episodes = collector.collect(update, plan, [])
                steps += len(batch["action"])
                decisions += sum(e.length for e in episodes)
            collect_s = (time.perf_counter() - start) / args.updates
        finally:
            collector.close()
        torch.set_num_threads(trainer.cfg.torch_threads)
        start = time.perf_counter()
        trainer.learner.update(batch, 0.0, np.random.default_rng(0))
        update_s = time.perf_counter() - start
        torch.set_num_threads(1)
        per_batch = steps / args.updates
        rate = per_batch / collect_s
        per_worker = rate / int(workers)
        bound = per_batch / (per_worker * update_s)
        print(f"{run:>9} {rate:12.0f} {per_worker:10.0f} {decisions / args.updates / collect_s:9.0f} "
              f"{per_batch:11.0f} {collect_s:9.2f} {update_s:8.2f} {per_batch / (collect_s + update_s):9.0f}  "
              f"W > {bound:.1f}", flush=True)


if __name__ == "__main__":
    main()
