"""Throughput of a game's batched engine beside its AEC loop, measured in the same run.

    python -m envs.vector_bench skat [--batches 64,256,1024,4096,16384] [--seconds 3] [--device cpu]
    python -m envs.vector_bench thirtyone --env num_players=4
    python -m envs.vector_bench thirtyone --policy rule --batches 1,16,256,4096   # the rule agent's moves

A *decision* is one action of one player, chosen uniformly among the legal ones, with the
observation and the action mask of every decision computed (the AEC loop: ``env.last()``,
``np.flatnonzero`` of the mask and ``env.step``; the batched engine: ``step`` plus
:func:`envs.vector.random_legal_actions`; a step that starts a new game in a finished slot is not
a decision). Rates are per second of this process's CPU time (``time.process_time``) as well as of
wall time: on a shared machine the CPU rate is the one that tells what one free core does.
``torch.set_num_threads(1)``: one core. Memory per game in flight: the engine's state tensors plus
one step's outputs, per slot, and the process's resident-set growth per slot as a cross-check.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
import yaml

from envs.games import GAMES
from envs.vector import random_legal_actions, tune_malloc


def _timed(run: Callable[[float], int], seconds: float, repeats: int = 3) -> dict[str, float]:
    """Best of ``repeats`` runs of about ``seconds`` each (less disturbed by other processes)."""
    run(min(0.3, seconds / 5))  # warm-up
    best: dict[str, float] = {}
    for _ in range(repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        decisions = run(seconds / repeats)
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        rate = {"decisions_per_cpu_s": decisions / cpu, "decisions_per_wall_s": decisions / wall,
                "cpu_per_wall": cpu / wall}
        if rate["decisions_per_cpu_s"] > best.get("decisions_per_cpu_s", 0.0):
            best = rate
    return best


def aec_random_loop(env: Any, seed: int = 0, policy: Any = None) -> Callable[[float], tuple[int, int]]:
    """The loop an RL user writes over an AEC env: env.last(), sample from the mask with numpy, env.step().
    ``run(seconds)`` -> (decisions, finished episodes); ``train.bench env`` uses it too. With ``policy``
    (an agent) its ``act`` chooses every move instead."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)

    def run(seconds: float) -> tuple[int, int]:
        n = episodes = 0
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            env.reset()
            for _agent in env.agent_iter():
                obs, reward, termination, truncation, info = env.last()
                if termination or truncation:
                    action = None
                elif policy is not None:
                    action = policy.act(obs)
                    n += 1
                else:
                    legal = np.flatnonzero(obs["action_mask"])
                    action = legal[rng.integers(legal.size)]
                    n += 1
                env.step(action)
            episodes += 1
        return n, episodes

    return run


def aec_loop(game: str, options: dict, seed: int = 0, policy: Any = None) -> Callable[[float], int]:
    """The raw AEC env of ``game`` under :func:`aec_random_loop`: decisions only."""
    from envs.games import describe

    run = aec_random_loop(describe(game).raw_env(**options), seed, policy)
    return lambda seconds: run(seconds)[0]


def policy_actions(policy: Any, observation: torch.Tensor, action_mask: torch.Tensor) -> torch.Tensor:
    """An agent's moves for a whole batch: its ``act_arrays`` where it has one, else ``act`` game by game."""
    obs, mask = observation.cpu().numpy(), action_mask.cpu().numpy()
    live = np.flatnonzero(mask.any(axis=1))  # a finished slot (no legal move) ignores its action
    actions = np.zeros(len(mask), np.int64)
    if hasattr(policy, "act_arrays"):
        actions[live] = policy.act_arrays(obs[live], mask[live])
    else:
        actions[live] = [policy.act({"observation": o, "action_mask": m.astype(np.int8)})
                         for o, m in zip(obs[live], mask[live], strict=True)]
    return torch.from_numpy(actions).to(action_mask.device)


def vector_loop(game: str, num_envs: int, device: str, options: dict, seed: int = 0, policy: Any = None
                ) -> tuple[Callable[[float], int], object]:
    from envs.games import describe

    venv = describe(game).vector_env(num_envs, device=device, seed=seed, **options)
    gen = torch.Generator(device=device).manual_seed(seed)

    def choose(state: Any) -> torch.Tensor:
        if policy is None:
            return random_legal_actions(state.action_mask, gen)
        return policy_actions(policy, state.observation, state.action_mask)

    box = {"state": venv.reset()}
    for _ in range(150):  # past the first deals, so that the slots are in every phase
        box["state"] = venv.step(choose(box["state"]))
    sync = torch.cuda.synchronize if torch.device(device).type == "cuda" else (lambda: None)

    def run(seconds: float) -> int:
        state, steps, finished = box["state"], 0, torch.zeros((), dtype=torch.int64, device=device)
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            for _ in range(10):
                finished += state.terminated.sum()  # slots that deal anew instead of deciding
                state = venv.step(choose(state))
            steps += 10
        sync()
        box["state"] = state
        return steps * num_envs - int(finished)

    return run, venv


def _rss() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * 4096
    except OSError:
        return 0


def _tensors(obj) -> list[torch.Tensor]:
    names = getattr(type(obj), "__slots__", ()) or vars(obj)
    return [v for v in (getattr(obj, k, None) for k in names) if isinstance(v, torch.Tensor)]


def memory_per_game(venv, state) -> dict[str, float]:
    """Bytes per slot of the engine's state tensors and of one step's outputs."""
    n = venv.num_envs
    state_bytes = sum(t.numel() * t.element_size() for t in _tensors(venv.batch))
    out_bytes = sum(t.numel() * t.element_size() for t in vars(state).values() if isinstance(t, torch.Tensor))
    return {"state_bytes_per_game": state_bytes / n, "output_bytes_per_game": out_bytes / n}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m envs.vector_bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", choices=GAMES)
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                        help="an env option (repeatable), e.g. --env num_players=4 --env kontra=true")
    parser.add_argument("--batches", default="64,256,1024,4096,16384", help="batch sizes (default %(default)s)")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per row (default 3)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1: one core)")
    parser.add_argument("--no-malloc-tuning", action="store_true",
                        help="keep glibc's malloc defaults (see envs.vector.tune_malloc)")
    parser.add_argument("--json", help="also write the rows to this JSON file")
    parser.add_argument("--skip-aec", action="store_true", help="no AEC loop row (e.g. on an accelerator)")
    parser.add_argument("--compile", action="store_true",
                        help="the engine's torch.compile path (Skat: compile=True; compiled before timing)")
    parser.add_argument("--policy", choices=("random", "rule"), default="random",
                        help="who chooses the moves: uniform among the legal ones (default), or the game's rule "
                             "agent in every seat (the AEC loop: act per decision; the batched engine: its "
                             "act_arrays for the whole batch where it has one)")
    parser.add_argument("--backend", choices=("auto", "torch", "numba"),
                        help="the batched engine's backend: torch (any device) or the compiled CPU kernel (auto, "
                             "the default: the kernel on a CPU)")
    args = parser.parse_args(argv)
    try:
        batches = [int(x) for x in args.batches.split(",")]
    except ValueError:
        parser.error(f"--batches must be comma-separated integers, got {args.batches!r}")
    options = {}
    for item in args.env:
        key, sep, value = item.partition("=")
        if not sep:
            parser.error(f"--env takes KEY=VALUE, got {item!r}")
        options[key] = yaml.safe_load(value)
    torch.set_num_threads(args.threads)
    policy = None
    if args.policy == "rule":
        import agents

        policy = agents.make("rule", game=args.game, seed=0)
    tuned = False if args.no_malloc_tuning else tune_malloc()
    print(f"{args.game} {options or ''}: python {platform.python_version()}, torch {torch.__version__}, device "
          f"{args.device}, {torch.get_num_threads()} thread(s), malloc tuning {'on' if tuned else 'off'}, moves "
          f"{args.policy}")
    rows = []
    aec = None
    if not args.skip_aec:
        aec = _timed(aec_loop(args.game, options, policy=policy), args.seconds)
        rows.append({"row": f"{args.game} AEC loop, raw_env", **aec})
        print(f"{args.game + ' AEC loop, raw_env':<42} {aec['decisions_per_cpu_s']:>12,.0f} decisions/cpu-s "
              f"{aec['decisions_per_wall_s']:>12,.0f} decisions/wall-s", flush=True)
    for n in batches:
        rss0 = _rss()
        try:
            extra = {"compile": True} if args.compile else {}
            if args.backend:
                extra["backend"] = args.backend
            run, venv = vector_loop(args.game, n, args.device, {**options, **extra}, policy=policy)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        rate = _timed(run, args.seconds)
        mem = memory_per_game(venv, venv.step(random_legal_actions(venv.reset().action_mask)))
        mem["rss_bytes_per_game"] = (_rss() - rss0) / n
        engine = f" ({venv.backend})" if hasattr(venv, "backend") else ""
        row = {"row": f"{args.game} vector_env{engine} batch {n}", "batch": n, **rate, **mem}
        if aec:
            row["x_aec"] = rate["decisions_per_cpu_s"] / aec["decisions_per_cpu_s"]
        rows.append(row)
        ratio = f"  {row['x_aec']:5.1f}x AEC" if aec else ""
        print(f"{row['row']:<42} {rate['decisions_per_cpu_s']:>12,.0f} decisions/cpu-s "
              f"{rate['decisions_per_wall_s']:>12,.0f} decisions/wall-s{ratio}  "
              f"{mem['state_bytes_per_game'] + mem['output_bytes_per_game']:,.0f} B/game "
              f"(rss {mem['rss_bytes_per_game']:,.0f})", flush=True)
        del venv, run
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
