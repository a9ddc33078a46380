"""Golden hashes of seeded Thirty-One games: observations, masks, rewards, terminations, agent order.

Recorded on main before the variants issue (python -m tests.thirtyone_golden --write) and checked by
tests/test_thirtyone_golden.py: the ``scat`` and ``no_elimination`` presets (and the option sets
below) must replay bit for bit. Each case plays ``games`` games with seeded random legal actions (a
few with the rule agent) and hashes every step the AEC loop shows.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

GOLDEN = Path(__file__).with_name("data") / "thirtyone_golden.json"

# name -> (env options, games, player: "random" or "rule")
CASES: dict[str, tuple[dict, int, str]] = {
    "default4": ({}, 60, "random"),
    "n2": ({"num_players": 2}, 30, "random"),
    "n3": ({"num_players": 3}, 30, "random"),
    "n9": ({"num_players": 9}, 10, "random"),
    "points": ({"scoring": "points"}, 20, "random"),
    "points_placement": ({"scoring": "points", "target_score": 12, "reward_scheme": "placement",
                          "num_players": 5}, 20, "random"),
    "round": ({"episode": "round", "num_players": 6}, 40, "random"),
    "options": ({"num_players": 3, "throw_down": True, "deck": 32, "stock_exhausted": "draw", "lives": 1,
                 "three_of_a_kind": 30.5, "three_aces": 32}, 30, "random"),
    "knock": ({"num_players": 5, "knock_allowed": "after_first_round", "min_knock_score": 15, "free_ride": False,
               "knocker_penalty": 1, "three_of_a_kind": 30, "reward_scheme": "placement"}, 20, "random"),
    "cap": ({"num_players": 2, "max_turns": 7, "first_dealer": 1}, 20, "random"),
    "rule4": ({}, 15, "rule"),
    "rule_points": ({"scoring": "points", "num_players": 3}, 5, "rule"),
}


def play_case(options: dict, games: int, player: str, env_factory=None) -> str:
    from agents.rule_thirtyone import RuleThirtyOneAgent
    from envs import thirtyone_v0

    make = env_factory or thirtyone_v0.env
    h = hashlib.sha256()
    for g in range(games):
        env = make(**options)
        env.reset(seed=1000 + g)
        rng = np.random.default_rng(g)
        agents = {a: RuleThirtyOneAgent(seed=g * 10 + i) for i, a in enumerate(env.possible_agents)}
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            h.update(agent.encode())
            h.update(np.asarray(obs["observation"], np.float32).tobytes())
            h.update(np.asarray(obs["action_mask"], np.int8).tobytes())
            h.update(repr((float(reward), bool(term), bool(trunc))).encode())
            if term or trunc:
                env.step(None)
                continue
            if player == "rule":
                action = agents[agent].act(obs)
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(legal.size)])
            h.update(str(action).encode())
            env.step(action)
    return h.hexdigest()


def compute() -> dict[str, str]:
    return {name: play_case(*case) for name, case in CASES.items()}


if __name__ == "__main__":
    result = compute()
    if "--write" in sys.argv:
        GOLDEN.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
