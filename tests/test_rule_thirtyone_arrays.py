"""The batched Thirty-One rule agent makes the per-game agent's moves, decision for decision."""

from __future__ import annotations

import numpy as np
import pytest

from agents.rule_thirtyone import RuleThirtyOneAgent
from envs import thirtyone_v0
from envs.thirtyone.layout import OBS_SIZE


class FirstTieRng:
    """Breaks every tie toward the first candidate, in both agents: the moves are then equal exactly."""

    def random(self, size=None):
        return 0.0 if size is None else np.zeros(size)

    def integers(self, high, size=None):
        return 0 if size is None else np.zeros(size, np.int64)


OPTIONS = [
    {"num_players": 4},
    {"num_players": 2, "lives": 1},
    {"num_players": 3, "three_of_a_kind": 30.5, "three_aces": 32},
    {"num_players": 5, "three_of_a_kind": 30, "free_ride": False, "min_knock_score": 21},
    {"num_players": 7, "deck": 52, "throw_down": True, "knock_allowed": "after_first_round"},
    {"num_players": 4, "deck": 32, "scoring": "points", "target_score": 5},
]


def decisions(options: dict, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of every decision in whole games of rule agents, at least ``count``."""
    env = thirtyone_v0.env(**options)
    player = RuleThirtyOneAgent(seed=seed)
    obs, masks = [], []
    g = 0
    while len(obs) < count:
        g += 1
        env.reset(seed=seed * 1000 + g)
        for _ in env.agent_iter():
            o, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            obs.append(o["observation"])
            masks.append(o["action_mask"].astype(bool))
            env.step(player.act(o))
    return np.stack(obs), np.stack(masks)


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_batched_rule_agent_makes_the_per_game_moves(options):
    obs, masks = decisions(options, 1500, seed=len(options))
    assert obs.shape[1] == OBS_SIZE
    reference = RuleThirtyOneAgent()
    reference.rng = FirstTieRng()
    expected = np.asarray([reference.act({"observation": o, "action_mask": m.astype(np.int8)})
                           for o, m in zip(obs, masks, strict=True)])
    batched = RuleThirtyOneAgent()
    batched.rng = FirstTieRng()
    got = batched.act_arrays(obs, masks)
    wrong = np.flatnonzero(got != expected)
    assert wrong.size == 0, f"{wrong.size} of {len(obs)} decisions differ, first at {wrong[:5]}: " \
                            f"{got[wrong[:5]]} vs {expected[wrong[:5]]}"


def test_act_batch_uses_the_arrays_and_stays_legal_with_real_ties():
    obs, masks = decisions({"num_players": 4}, 300, seed=9)
    agent = RuleThirtyOneAgent(seed=3)
    moves = agent.act_batch([{"observation": o, "action_mask": m.astype(np.int8)} for o, m in zip(obs, masks,
                                                                                                 strict=True)])
    assert all(m[a] for a, m in zip(moves, masks, strict=True))
    assert RuleThirtyOneAgent(seed=3).act_batch([{"observation": o, "action_mask": m} for o, m in zip(
        obs, masks, strict=True)]) == moves  # seeded


def test_act_arrays_names_bad_input():
    agent = RuleThirtyOneAgent()
    with pytest.raises(ValueError, match="empty action mask"):
        agent.act_arrays(np.zeros((2, OBS_SIZE), np.float32), np.zeros((2, 57), bool))


def test_the_vector_benchmark_plays_the_rule_agent_in_both_loops(tmp_path, capsys):
    import json

    from envs import vector_bench

    out = tmp_path / "rows.json"
    assert vector_bench.main(["thirtyone", "--policy", "rule", "--batches", "8", "--seconds", "0.3",
                              "--json", str(out)]) == 0
    rows = json.loads(out.read_text())
    assert [r["row"] for r in rows][0] == "thirtyone AEC loop, raw_env" and len(rows) == 2
    assert all(r["decisions_per_cpu_s"] > 0 for r in rows)
    assert "moves rule" in capsys.readouterr().out
