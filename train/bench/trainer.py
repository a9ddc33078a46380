"""Trainer throughput, side by side with sb3-contrib's MaskablePPO on the same env.

    python -m train.bench trainer --game skat          (also: python -m train.bench_train --game skat)
    python -m train.bench trainer --game thirtyone --steps 40000 --num-envs 16
    python -m train.bench trainer --game skat --collections envs,batched --num-envs 256 --skip-sb3
    python -m train.bench trainer --game thirtyone --opponents rule --collections envs,batched --skip-sb3

Both learners play one seat (rotating) against uniform-random opponents (``--opponents rule``: the
game's rule agent in every other seat; ``--opponents self``: the learner's current weights in every
other seat, the trainer's default self-play, ours only), with the same network
(separate actor and critic MLPs, ``--hidden``, tanh), the same number of envs, rollout length,
4 epochs x 4 minibatches. A step is one decision of the learning seat (SB3's ``timesteps``, our
``global_step``); the rate covers collection and updates after a warm-up update (worker start,
compiled code loaded, first passes), the steady rate of a long run, as MaskablePPO is measured.

* ours: ``train.trainer.Trainer`` with ``--workers`` rollout processes (default 2), once per
  ``--collections`` entry: ``envs`` (AEC envs in worker processes) and/or ``batched`` (the game's
  batched engine in the trainer process, ``collection: batched``), same settings otherwise;
* MaskablePPO: ``DummyVecEnv`` of ``envs.gym.SingleAgentEnv`` (SB3's default single process),
  torch with its default thread count. Needs ``pip install sb3-contrib``; skipped otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import torch

from envs.games import GAMES
from envs.gym import SingleAgentEnv
from train.bench import timing
from train.bench.timing import steady_rates


def trainer_overrides(game: str, steps: int, num_envs: int, num_steps: int, hidden: list[int], workers: int,
                      threads: int, chunks: int, runs_dir: str, seed: int = 1, opponents: str = "random"
                      ) -> list[str]:
    """The config of a measured run: ``steps`` learner decisions after one warm-up update."""
    return [f"game={game}", f"total_timesteps={steps + num_envs * num_steps}", f"num_envs={num_envs}",
            f"num_steps={num_steps}", f"num_workers={workers}", f"rollout_chunks={chunks}",
            f"torch_threads={threads}", f"hidden={','.join(map(str, hidden))}", f"opponents={opponents}:1",
            "eval_opponents=[]", "checkpoint_every=0", "snapshot_every=0", "progress=false",
            f"runs_dir={runs_dir}/runs", f"checkpoint_dir={runs_dir}/ckpt", f"seed={seed}", "run_name=bench"]


def bench_ours(game: str, steps: int, num_envs: int, num_steps: int, hidden: list[int], workers: int,
               threads: int, chunks: int, seed: int = 1, collection: str = "envs", opponents: str = "random"
               ) -> dict[str, float]:
    """Steps per second (``sps``) and microseconds per learner step spent collecting and updating,
    after a warm-up update, as MaskablePPO is measured below: the steady rate of a long run."""
    with tempfile.TemporaryDirectory() as tmp:
        return steady_rates([*trainer_overrides(game, steps, num_envs, num_steps, hidden, workers, threads, chunks,
                                                tmp, seed, opponents), f"collection={collection}"])


def bench_revision(checkout: Path, game: str, steps: int, num_envs: int, num_steps: int, hidden: list[int],
                   workers: int, threads: int, chunks: int, seed: int = 1, opponents: str = "random"
                   ) -> dict[str, float]:
    """:func:`bench_ours` with the code of another checkout (its default collection), in a fresh process
    that puts that checkout first on ``PYTHONPATH``; this environment's packages."""
    with tempfile.TemporaryDirectory() as tmp:
        overrides = trainer_overrides(game, steps, num_envs, num_steps, hidden, workers, threads, chunks, tmp,
                                      seed, opponents)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(checkout), os.environ.get("PYTHONPATH", "")])}
        done = subprocess.run([sys.executable, timing.__file__, json.dumps(overrides)], cwd=checkout, env=env,
                              capture_output=True, text=True)
    lines = [line for line in done.stdout.splitlines() if line.startswith("BENCH ")]
    if done.returncode or not lines:
        raise RuntimeError(f"the trainer at {checkout} failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(lines[-1][len("BENCH "):])


@contextlib.contextmanager
def worktree(revision: str) -> Iterator[Path]:
    """A temporary git worktree of ``revision`` of this repository, removed afterwards."""
    repo = Path(__file__).resolve().parents[2]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tree"
        added = subprocess.run(["git", "-C", str(repo), "worktree", "add", "--detach", str(path), revision],
                               capture_output=True, text=True)
        if added.returncode:
            raise SystemExit(f"--baseline {revision}: git worktree add failed: {added.stderr.strip()}")
        try:
            yield path
        finally:
            subprocess.run(["git", "-C", str(repo), "worktree", "remove", "--force", str(path)], capture_output=True)


def bench_sb3(game: str, steps: int, num_envs: int, num_steps: int, hidden: list[int], threads: int,
              seed: int = 1, opponents: str = "random") -> float | None:
    try:
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.vec_env import DummyVecEnv
    except ImportError:
        return None
    torch.set_num_threads(threads)
    import agents

    venv = DummyVecEnv([lambda: SingleAgentEnv(game, opponents=None if opponents == "random" else
                                               agents.make(opponents, game=game, seed=seed))
                        for _ in range(num_envs)])
    model = MaskablePPO(
        "MlpPolicy", venv, n_steps=num_steps, batch_size=num_envs * num_steps // 4, n_epochs=4,
        learning_rate=2.5e-4, policy_kwargs=dict(net_arch=dict(pi=hidden, vf=hidden), activation_fn=torch.nn.Tanh),
        device="cpu", seed=seed, verbose=0,
    )
    model.learn(total_timesteps=num_envs * num_steps)  # warm-up: first rollout and update
    start = time.perf_counter()
    model.learn(total_timesteps=steps, reset_num_timesteps=False)
    elapsed = time.perf_counter() - start
    venv.close()
    return steps / elapsed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m train.bench trainer", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="skat", choices=GAMES)
    parser.add_argument("--steps", type=int, default=20_000, help="learner decisions per measurement")
    parser.add_argument("--num-envs", type=int, default=16)
    parser.add_argument("--num-steps", type=int, default=128, help="decisions per env per update")
    parser.add_argument("--hidden", default="64,64", help="layer widths of actor and critic (SB3's default)")
    parser.add_argument("--workers", type=int, default=2, help="our trainer's rollout processes")
    parser.add_argument("--chunks", type=int, default=0, help="our trainer's rollout_chunks (0: one per worker)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads of both (2 stalls on busy cores)")
    parser.add_argument("--repeat", type=int, default=3, help="alternating measurements; the median is reported")
    parser.add_argument("--collections", default="envs",
                        help="our trainer's collection paths to measure, comma-separated: envs, batched")
    parser.add_argument("--opponents", choices=("random", "rule", "self"), default="random",
                        help="who sits in the other seats (default random; self: the learner's weights, "
                             "ours only)")
    parser.add_argument("--skip-sb3", action="store_true")
    parser.add_argument("--baseline", metavar="REV",
                        help="also time the trainer of git revision REV of this repository (a temporary worktree, "
                             "its own code and default collection, this environment), alternating with ours")
    args = parser.parse_args(argv)
    if args.opponents == "self" and not args.skip_sb3:
        print("  sb3-contrib MaskablePPO: its single-agent loop has no self-play seats; skipped")
        args.skip_sb3 = True
    hidden = [int(w) for w in args.hidden.split(",")]
    collections = [c.strip() for c in args.collections.split(",") if c.strip()]
    bad = [c for c in collections if c not in ("envs", "batched")]
    if bad or not collections:
        parser.error(f"--collections: {bad or 'nothing'} is not envs or batched")
    print(f"{args.game}: {args.steps} learner decisions x {args.repeat}, {args.num_envs} envs x {args.num_steps} "
          f"steps, MLP {hidden} (actor and critic, tanh), 1 learner seat vs {args.opponents}, torch threads "
          f"{args.threads}",
          flush=True)
    with worktree(args.baseline) if args.baseline else contextlib.nullcontext() as checkout:
        runs, sb3, baseline = _measure(args, hidden, collections, checkout)
    median = {c: statistics.median(run["sps"] for run in r) for c, r in runs.items()}
    summary = "median: " + ", ".join(f"ours ({c}) {m:,.0f} steps/s" for c, m in median.items())
    if len(median) == 2:
        summary += f", batched/envs {median['batched'] / median['envs']:.2f}x"
        summary += f" (at most {ceiling(runs):.2f}x while PPO's update stays as it is)"
    best = max(median, key=median.get)
    if baseline:
        then = statistics.median(run["sps"] for run in baseline)
        summary += f", {args.baseline} {then:,.0f} steps/s, ours ({best}) / {args.baseline} {median[best] / then:.2f}x"
    if sb3:
        summary += (f", MaskablePPO {statistics.median(sb3):,.0f} steps/s, "
                    f"ours ({best}) / MaskablePPO {median[best] / statistics.median(sb3):.2f}x")
    print(summary)


def _measure(args: argparse.Namespace, hidden: list[int], collections: list[str], checkout: Path | None
             ) -> tuple[dict[str, list[dict[str, float]]], list[float], list[dict[str, float]]]:
    """The alternating runs: ours per collection path, the baseline revision's trainer, MaskablePPO."""
    runs: dict[str, list[dict[str, float]]] = {c: [] for c in collections}
    sb3: list[float] = []
    baseline: list[dict[str, float]] = []
    for _ in range(args.repeat):
        if checkout is not None:
            run = bench_revision(checkout, args.game, args.steps, args.num_envs, args.num_steps, hidden,
                                 args.workers, args.threads, args.chunks, opponents=args.opponents)
            baseline.append(run)
            print(f"  trainer at {args.baseline}: {run['sps']:8,.0f} steps/s (per learner step: collect "
                  f"{run['collect']:.1f} us, update {run['update']:.1f} us)", flush=True)
        for collection in collections:
            run = bench_ours(args.game, args.steps, args.num_envs, args.num_steps, hidden, args.workers,
                             args.threads, args.chunks, collection=collection, opponents=args.opponents)
            runs[collection].append(run)
            how = (f"{args.workers} workers, rollout_chunks={args.chunks}" if collection == "envs"
                   else "batched engine, trainer process")
            print(f"  ours (collection={collection}, {how}): {run['sps']:8,.0f} steps/s (per learner step: "
                  f"collect {run['collect']:.1f} us, update {run['update']:.1f} us)", flush=True)
        if not args.skip_sb3:
            rate = bench_sb3(args.game, args.steps, args.num_envs, args.num_steps, hidden, args.threads,
                             opponents=args.opponents)
            if rate is None:
                print("  sb3-contrib MaskablePPO: not installed (pip install sb3-contrib); skipped")
                args.skip_sb3 = True
            else:
                sb3.append(rate)
                print(f"  sb3-contrib MaskablePPO (DummyVecEnv): {rate:8,.0f} steps/s", flush=True)
    return runs, sb3, baseline


def ceiling(runs: dict[str, list[dict[str, float]]]) -> float:
    """Amdahl's bound on batched/envs: the envs path's whole time per step over the batched path's update
    alone, the part that no collection can remove (both paths run the same update, one after the other)."""
    envs_step = statistics.median(1e6 / run["sps"] for run in runs["envs"])
    return envs_step / statistics.median(run["update"] for run in runs["batched"])


if __name__ == "__main__":
    main()
