"""The rule-based Skat player on every table: always legal, and better than random where it is cheap to be."""

from __future__ import annotations

import numpy as np
import pytest

from agents.rule_skat import RuleSkatAgent
from envs import skat_v0
from envs.skat.variants import NAMES

EXTRA = [{"variant": "isko", "kontra": True, "supra": True, "concede": True},
         {"variant": "schieberamsch", "ramsch_tens": "low", "players": 4},
         {"variant": "revolution", "kontra": True, "revolution_exchange": 2},
         {"variant": "tournee", "concede": True, "kontra": True}]


def play(options: dict, deals: int, rule_seats: set[int] | None = None, seed: int = 0) -> np.ndarray:
    """Scores by seat summed over ``deals`` episodes; rule agents in ``rule_seats`` (all if None), random others."""
    env = skat_v0.env(**options)
    agent = RuleSkatAgent()
    rng = np.random.default_rng(seed)
    totals = np.zeros(len(env.possible_agents))
    for episode in range(deals):
        env.reset(seed=seed + episode)
        for name in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            seat = env.possible_agents.index(name)
            totals[seat] += reward
            if term or trunc:
                env.step(None)
                continue
            if rule_seats is None or seat in rule_seats:
                action = agent.act(obs)
                assert obs["action_mask"][action], f"illegal {env.unwrapped.action_name(action)}"
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
    return totals


@pytest.mark.parametrize("options", [{"variant": n} for n in NAMES[1:]] + EXTRA,
                         ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_the_rule_player_plays_every_table_legally(options):
    deals = 1 if options.get("variant") in ("list", "bierskat", "raeuberskat") else 12
    play({**options, "list_deals": 6} if options.get("variant") in ("list", "raeuberskat") else options, deals)
    play({**options, "list_deals": 6} if options.get("variant") in ("list", "raeuberskat") else options, deals,
         rule_seats={0}, seed=100)


@pytest.mark.parametrize("variant", ["four_player", "strohmann", "tournee", "officers", "sechserskat"])
def test_better_than_random(variant):
    """One rule seat against random ones, every seat in turn: the rule seat scores more on average."""
    env = skat_v0.raw_env(variant=variant)
    seats = len(env.possible_agents)
    rule, rand = 0.0, 0.0
    for seat in range(seats):
        totals = play({"variant": variant}, 24, rule_seats={seat}, seed=1000 * seat)
        rule += totals[seat]
        rand += (totals.sum() - totals[seat]) / (seats - 1)
    assert rule > rand
