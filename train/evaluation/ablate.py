"""Where does an agent gain or lose against a teacher? Hand one kind of decision at a time to it.

    python -m train.ablate checkpoints/skat_ppo.pt --deals 4000 --seed 3
    python -m train.ablate checkpoints/thirtyone_ppo.pt --deals 500

The agent plays duplicate deals against the teacher (``rule`` by default) in every other seat,
as ``train.evaluate.evaluate(..., duplicate=True)``: its advantage is its score minus the
teacher's in the same seat of the same deal. Then the same deals are played again once per group
of decision kinds (the first words of action names, ``envs.action_kinds``), with the teacher
deciding every decision of those kinds in the agent's seat. A group whose hand-over *raises* the
advantage is one where the teacher still plays better: the place to train (``pretrain.teach_only``
teaches exactly those decisions); one that lowers it is where the agent has learned to beat it.

All runs use the same deals, so their differences are less noisy than each interval says. The
teacher sees only the decisions handed to it; Skat's rule agent rebuilds what it tracks from its
own observations, so it plays a handed-over kind such as ``play`` as it would in a whole deal.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

import agents
from agents.base import Agent, Observation
from envs.games import GAMES, describe
from train.evaluation.baseline import EvalResult, evaluate
from train.interrupt import children_ignore_signals


class HandOver(Agent):
    """Plays like ``agent`` except in decisions that offer an action of one of ``kinds``: ``teacher`` decides those."""

    def __init__(self, agent: Agent, teacher: Agent, game: str, kinds: Sequence[str],
                 env_options: dict[str, Any] | None = None) -> None:
        self.agent, self.teacher, self.game = agent, teacher, game
        self.shareable = bool(getattr(agent, "shareable", False) and getattr(teacher, "shareable", False))
        self.handed = describe(game).kinds_mask(kinds, env_options)

    def _handed(self, observation: Observation) -> bool:
        return bool(self.handed[np.asarray(observation["action_mask"], dtype=bool)].any())

    def act(self, observation: Observation) -> int:
        return int((self.teacher if self._handed(observation) else self.agent).act(observation))

    def act_batch(self, observations: Sequence[Observation]) -> list[int]:
        out = [0] * len(observations)
        own = []
        for i, observation in enumerate(observations):
            if self._handed(observation):
                out[i] = int(self.teacher.act(observation))
            else:
                own.append(i)
        if own:
            for i, action in zip(own, self.agent.act_batch([observations[i] for i in own]), strict=True):
                out[i] = int(action)
        return out

    def reset(self) -> None:
        self.agent.reset()
        self.teacher.reset()


def _run(agent_spec: str, teacher: str, game: str, kinds: Sequence[str], deals: int, seed: int,
         env_options: dict[str, Any] | None) -> EvalResult:
    torch.set_num_threads(1)  # one run per core
    player = HandOver(agents.make(agent_spec, game=game, seed=seed), agents.make(teacher, game=game, seed=seed),
                      game, kinds, env_options)
    return evaluate(player, teacher, game, env_options, deals, seed=seed, duplicate=True)


def ablate(agent_spec: str, game: str, teacher: str = "rule", groups: dict[str, Sequence[str]] | None = None,
           deals: int = 2000, seed: int = 0, env_options: dict[str, Any] | None = None,
           progress: bool = True, workers: int = 1) -> dict[str, EvalResult]:
    """``{"(none)": the agent alone, group: with that group handed to the teacher}``, all on the same deals;
    ``workers`` processes play the runs side by side."""
    description = describe(game)
    groups = description.ablation_groups if groups is None else groups
    runs = {"(none)": ()} | {name: tuple(kinds) for name, kinds in groups.items()}
    for kinds in runs.values():  # fail here, with the spec's or kind's own error, not inside a worker
        description.kinds_mask(kinds, env_options)
    agents.make(agent_spec, game=game)
    agents.make(teacher, game=game)
    bar = tqdm(total=len(runs), desc="ablation", unit="run", disable=not progress)
    args = {name: (agent_spec, teacher, game, kinds, deals, seed, env_options) for name, kinds in runs.items()}
    results: dict[str, EvalResult] = {}
    if workers <= 1:
        for name, job in args.items():
            results[name] = _run(*job)
            bar.update(1)
    else:
        with ProcessPoolExecutor(workers, mp_context=mp.get_context("spawn")) as pool:
            with children_ignore_signals():  # the pool's processes start here; Ctrl-C is the parent's
                futures = {pool.submit(_run, *job): name for name, job in args.items()}
            for future in as_completed(futures):
                results[futures[future]] = future.result()
                bar.update(1)
    bar.close()
    return {name: results[name] for name in runs}


def report(results: dict[str, EvalResult], teacher: str) -> str:
    alone = results["(none)"].advantage or 0.0
    lines = [f"{'handed to ' + teacher:<22} {'advantage':>10} {'95% CI':>8} {'vs alone':>9}"]
    for name, r in results.items():
        adv = r.advantage or 0.0
        change = "" if name == "(none)" else f"{adv - alone:+9.2f}"
        lines.append(f"{name:<22} {adv:+10.2f} {'±' + format(r.advantage_ci or 0.0, '.2f'):>8} {change:>9}")
    lines.append(f"'vs alone' > 0: {teacher} decides those better than the agent; < 0: the agent decides them better.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m train.ablate", description=__doc__.split("\n\n")[0])
    parser.add_argument("agent", help="a checkpoint or any agent spec")
    parser.add_argument("--game", choices=list(GAMES), help="default: the checkpoint's game")
    parser.add_argument("--teacher", default="rule", help="who takes the decisions over and sits in the other seats")
    parser.add_argument("--deals", "-n", type=int, default=2000, help="deals (Thirty-One: games) per run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--group", action="append", default=[], metavar="NAME=KIND,KIND",
                        help="a group of decision kinds to hand over (repeatable; default: the game's phases)")
    parser.add_argument("--workers", type=int, default=2, help="processes playing the runs side by side")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    game, env_options = args.game, None
    if game is None or args.agent.endswith(".pt"):
        try:
            meta = agents.load(args.agent).metadata
        except Exception as e:  # noqa: BLE001 - the loader's message names the problem
            if game is None:
                parser.error(f"--game is needed unless AGENT is a checkpoint ({e})")
            meta = None
        if meta is not None:
            game = game or meta["game"]
            env_options = meta.get("env_options")
    groups = None
    if args.group:
        groups = {}
        for item in args.group:
            name, sep, kinds = item.partition("=")
            if not sep or not kinds:
                parser.error(f"--group {item!r}: expected NAME=KIND[,KIND...]")
            groups[name] = [k.strip() for k in kinds.split(",") if k.strip()]
    try:
        results = ablate(args.agent, game, args.teacher, groups, args.deals, args.seed, env_options,
                         progress=not args.no_progress, workers=args.workers)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"{args.agent} against {args.teacher}, {args.deals} duplicate deals, seed {args.seed}")
    print(report(results, args.teacher))
    return 0


if __name__ == "__main__":
    sys.exit(main())
