"""The batched rule-based Skat player (``agents.rule_skat_kernel``) makes the per-game player's moves,
decision for decision: every decision of whole deals on the ISkO tables, rule agents in every seat and
with a random seat (positions the rule agent would not reach), and the fall back of other tables."""

from __future__ import annotations

import functools
from collections import Counter

import numpy as np
import pytest

from agents.random_agent import RandomAgent
from agents.rule_skat import RuleSkatAgent
from envs import skat_v0
from envs.skat import actions as A
from envs.skat.cards import NULL
from envs.skat.observation import OBSERVATION_SIZE, decode
from envs.skat.rules import DECLARE, DISCARD, KONTRA, PHASE_NAMES, PLAY, RE, SKAT

OPTIONS = [{}, {"scoring": "classic"}, {"kontra": True}, {"ramsch": True}]  # ISkO tables: the 391-vector
DEALS = 350  # per option set and seating: about 13,000 decisions
PICKUP_CLUBS = A.DECLARE + A.CONTRACT_BY_LABEL["C"]  # legal only after a pickup


def _ids(options: dict) -> str:
    return "-".join(f"{k}={v}" for k, v in options.items()) or "default"


def _play(options: dict, deals: int, seed: int, random_seat: bool) -> tuple[list, list, list]:
    """Every decision of ``deals`` deals: the observation, the mask and the rule agent's move (a copy:
    the env updates its vectors in place). With ``random_seat`` one seat (a different one each deal)
    plays at random, its decisions asked of the rule agent too."""
    env = skat_v0.env(**options)
    rule = RuleSkatAgent()
    obs, masks, moves = [], [], []
    for i in range(deals):
        env.reset(seed=seed + i)
        other = RandomAgent("skat", seed=seed + i)
        wild = env.possible_agents[i % 3] if random_seat else None
        for agent in env.agent_iter():
            o, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            move = rule.act(o)
            obs.append(np.array(o["observation"], np.float32))
            masks.append(np.array(o["action_mask"], bool))
            moves.append(move)
            env.step(other.act(o) if agent == wild else move)
    return obs, masks, moves


@functools.cache
def _decisions(key: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    options = OPTIONS[key]
    a = _play(options, DEALS, 1000 * key + 1, random_seat=False)
    b = _play(options, DEALS, 1000 * key + 500_001, random_seat=True)
    return np.stack(a[0] + b[0]), np.stack(a[1] + b[1]), np.asarray(a[2] + b[2], np.int64)


@pytest.mark.parametrize("key", range(len(OPTIONS)), ids=[_ids(o) for o in OPTIONS])
def test_batched_rule_agent_makes_the_per_game_moves(key):
    obs, masks, moves = _decisions(key)
    assert obs.shape[1] == OBSERVATION_SIZE and len(moves) > 10_000
    got = RuleSkatAgent().act_arrays(obs, masks)
    assert got.dtype == np.int64 and got.shape == moves.shape
    wrong = np.flatnonzero(got != moves)
    phases = Counter(PHASE_NAMES[decode(obs[i]).phase] for i in wrong)
    assert wrong.size == 0, (f"{wrong.size} of {len(moves)} decisions differ ({dict(phases)}), first at rows "
                             f"{wrong[:5]}: {got[wrong[:5]]} vs {moves[wrong[:5]]}")


def _branches(obs: np.ndarray, masks: np.ndarray, moves: np.ndarray) -> Counter:
    """What the decisions exercised: phases (not forced) and the rules' branches."""
    seen = Counter()
    for o, m, move in zip(obs, masks, moves, strict=True):
        if m.sum() < 2:
            seen["forced"] += 1
            continue
        v = decode(o)
        phase = v.phase
        seen[PHASE_NAMES[phase]] += 1
        if phase == SKAT and move == A.HAND:
            seen["plays hand"] += 1
        elif phase == DISCARD and v.skat_put:
            seen["second discard"] += 1
        elif phase == DECLARE:
            seen["declare after pickup" if m[PICKUP_CLUBS] else "declare hand game"] += 1
            contract = A.CONTRACTS[move - A.DECLARE]
            if contract.game == NULL:
                seen["declares null ouvert" if contract.ouvert else "declares null"] += 1
        elif phase == KONTRA and move == A.KONTRA:
            seen["says kontra"] += 1
        elif phase == RE and move == A.RE:
            seen["says re"] += 1
        elif phase == PLAY:
            if v.ramsch:
                seen["ramsch play"] += 1
            elif v.game_type == NULL:
                seen["null declarer" if v.declarer == 0 else "null defender"] += 1
            elif v.trick_order:
                seen["follows"] += 1
            else:
                seen["leads as declarer" if v.declarer == 0 else "leads as defender"] += 1
            if v.open_hand:
                seen["ouvert play"] += 1
    return seen


def test_the_comparison_covers_every_phase_and_branch():
    seen = Counter()
    for key in range(len(OPTIONS)):
        seen += _branches(*_decisions(key))
    for name in ("auction", "skat", "discard", "declare", "kontra", "re", "play", "plays hand", "second discard",
                 "declare after pickup", "declare hand game", "declares null", "declares null ouvert", "says kontra",
                 "says re", "ramsch play", "null declarer", "null defender", "follows", "leads as declarer",
                 "leads as defender", "ouvert play", "forced"):
        assert seen[name] > 0, f"no decision of kind {name!r}: {dict(seen)}"
    assert seen["play"] > 20_000 and seen["auction"] > 5_000, dict(seen)


def test_act_batch_takes_the_batched_path_with_the_same_moves():
    obs, masks, moves = _decisions(2)
    rows = slice(0, 600)
    batch = [{"observation": o, "action_mask": m.astype(np.int8)} for o, m in zip(obs[rows], masks[rows], strict=True)]
    assert RuleSkatAgent().act_batch(batch) == moves[rows].tolist()


def test_act_arrays_names_an_empty_mask():
    obs, masks, _ = _decisions(0)
    masks = masks[:3].copy()
    masks[1] = False
    with pytest.raises(ValueError, match="empty action mask"):
        RuleSkatAgent().act_arrays(obs[:3], masks)


def test_other_tables_fall_back_to_act_row_by_row():
    obs, masks, moves = _play({"variant": "four_player"}, 4, 0, random_seat=False)
    obs, masks = np.stack(obs), np.stack(masks)
    assert obs.shape[1] != OBSERVATION_SIZE
    assert RuleSkatAgent().act_arrays(obs, masks).tolist() == moves
    masks[0] = 0
    with pytest.raises(ValueError, match="empty action mask"):
        RuleSkatAgent().act_arrays(obs, masks)


def test_a_source_change_drops_the_compiled_cache(tmp_path):
    """numba checks each cached function against its own file only: a changed module of the package must
    not leave its callers' compiled copies in use (a git pull that edits one kernel file)."""
    from agents.rule_skat_kernel import drop_stale_cache, sources_digest

    for name in ("kernel.decide_all-10.py311.nbi", "play.lowest-5.py311.1.nbc", "other_module.f-1.py311.nbi"):
        (tmp_path / name).write_bytes(b"x")
    assert drop_stale_cache(tmp_path, "old")  # compiled from other sources: ours go, a stranger's stays
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other_module.f-1.py311.nbi",
                                                          "rule_skat_kernel.sources.sha256"]
    (tmp_path / "play.lowest-5.py311.1.nbc").write_bytes(b"x")
    assert not drop_stale_cache(tmp_path, "old")  # same sources: the cache is kept
    assert drop_stale_cache(tmp_path, sources_digest()) and not (tmp_path / "play.lowest-5.py311.1.nbc").exists()
