"""Time per decision of agents, on the same positions: ``python -m train.bench decisions AGENT ...``.

    python -m train.bench decisions pimc "pimc:base=checkpoints/skat_ppo.pt,from_trick=7" \\
        checkpoints/skat_ppo.pt --game skat --deals 20

A driver (``--driver``, default ``rule``) plays ``--deals`` deals (Thirty-One: games) in every seat.
At each decision every benchmarked agent is asked for its action on the same observation and timed
in CPU time of this process (``time.process_time``: robust on a shared machine; torch runs on one
thread). The driver's action is played, so all agents see the same positions. Printed per agent:
CPU milliseconds per decision over all decisions and per decision kind (the first word of the
driver's action's name: Skat ``play``, ``bid`` ...), and the ratio of its time per decision to the
first agent's. Each agent is asked twice on the first decision and only the second call is timed
(the first compiles and fills caches).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

import agents
from envs.games import GAMES, describe


def time_decisions(specs: Sequence[str], game: str, deals: int, seed: int = 0, driver: str = "rule",
                   env_options: dict[str, Any] | None = None, progress: bool = True) -> dict[str, Any]:
    """CPU seconds each agent spent per decision kind, and how many decisions of each kind there were
    (the kind of the driver's action: every agent is asked at every decision)."""
    description = describe(game)
    env_options = dict(env_options or {})
    env = description.raw_env(**env_options)
    seats = description.num_seats(env_options)
    kinds = description.action_kinds(env_options)

    def build(spec: str, seat: int) -> Any:
        return agents.make(spec, game=game, seed=seed + seat, greedy=True)

    players = {}
    for spec in [driver, *specs]:  # one instance per seat unless the agent may serve every seat
        first = build(spec, 0)
        players[spec] = [first] * seats if getattr(first, "shareable", False) else \
            [first] + [build(spec, s) for s in range(1, seats)]
    instances = list({id(a): a for group in players.values() for a in group}.values())
    seconds = {spec: defaultdict(float) for spec in specs}
    counts: dict[str, int] = defaultdict(int)
    warm = False
    rng = np.random.default_rng(seed)
    for _ in tqdm(range(deals), desc="decisions", unit="deal", disable=not progress):
        env.reset(seed=int(rng.integers(2**31)))
        for agent in instances:
            agent.reset()
        for name in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            seat = env.possible_agents.index(name)
            action = int(players[driver][seat].act(observation))
            kind = kinds[action]
            counts[kind] += 1
            for spec in specs:
                agent = players[spec][seat]
                if not warm:
                    agent.act(observation)
                start = time.process_time()
                agent.act(observation)
                seconds[spec][kind] += time.process_time() - start
            warm = True
            env.step(action)
    return {"game": game, "deals": deals, "seed": seed, "driver": driver, "counts": dict(counts),
            "seconds": {spec: dict(v) for spec, v in seconds.items()}}


def report(result: dict[str, Any]) -> str:
    counts = result["counts"]
    total = sum(counts.values())
    kinds = sorted(counts, key=lambda k: -counts[k])
    head = f"{'agent':<58}{'ms/decision':>12}" + "".join(f"{'ms/' + k:>12}" for k in kinds) + f"{'x first':>10}"
    lines = [f"{result['game']}: {result['deals']} deals driven by {result['driver']} (seed {result['seed']}), "
             f"{total} decisions (" + ", ".join(f"{counts[k]} {k}" for k in kinds) + "), CPU time", head,
             "-" * len(head)]
    first = None
    for spec, secs in result["seconds"].items():
        per = 1000 * sum(secs.values()) / max(1, total)
        first = per if first is None else first
        ratio = f"{per / first:.4f}" if first else "-"
        lines.append(f"{spec:<58}{per:>12.3f}" + "".join(f"{1000 * secs.get(k, 0.0) / counts[k]:>12.3f}" for k in kinds)
                     + f"{ratio:>10}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m train.bench decisions", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("agents", nargs="+", metavar="AGENT", help="agent specs; ratios are to the first")
    parser.add_argument("--game", default="skat", choices=sorted(GAMES))
    parser.add_argument("--deals", type=int, default=20, help="deals (Thirty-One: games) the driver plays")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--driver", default="rule", help="the agent whose actions are played (default rule)")
    parser.add_argument("--json", default="", help="also write the raw seconds and counts to this file")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    if args.deals < 1:
        parser.error("--deals must be at least 1")
    torch.set_num_threads(1)
    try:
        result = time_decisions(args.agents, args.game, args.deals, args.seed, args.driver,
                                progress=not args.no_progress)
    except (ValueError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(report(result))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
