"""The incremental Thirty-One observation encoder equals the reference encoder bit for bit.

``ObservationEncoder`` patches per-seat vectors as the env reports moves; ``encode_reference``
builds each vector from the state alone (the formulas the shipped checkpoints were trained on).
"""

from __future__ import annotations

import random

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envs import thirtyone_v0
from envs.thirtyone import ThirtyOneGame
from envs.thirtyone.observation import OBS_SIZE, ObservationEncoder, decode
from envs.thirtyone.observation_ref import encode_reference
from envs.thirtyone.rules import THROW
from tests.test_thirtyone_properties import OPTIONS

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Long rounds: nobody may knock (31 is a blitz), so stocks run out and piles are reshuffled.
LONG_ROUNDS = {"num_players": 2, "min_knock_score": 31, "max_turns": None, "throw_down": True}


def assert_reference(obs: np.ndarray, state, seat: int) -> None:
    expected = encode_reference(state, seat)
    assert obs.dtype == np.float32 and obs.shape == (OBS_SIZE,)
    if obs.tobytes() != expected.tobytes():  # bit for bit, not just close
        raise AssertionError(f"seat {seat}: entries {np.flatnonzero(obs != expected)} differ from the reference")


def play_env(options: dict, seed: int, check_every: float = 0.3, illegal: float = 0.02) -> dict[str, int]:
    """Random play through the raw env, checking the agent to act at every step, every agent at
    random steps, and trying illegal actions (which raise and must change nothing)."""
    e = thirtyone_v0.raw_env(**options)
    e.reset(seed=seed)
    rng = random.Random(seed)
    seen = {"reshuffles": 0, "looks": 0, "rounds": 0}
    for steps, agent in enumerate(e.agent_iter()):
        assert steps < 20_000
        state = e.state
        obs, _, term, trunc, _ = e.last()
        assert_reference(obs["observation"], state, e._seat[agent])
        if rng.random() < check_every:
            for other in e.agents:
                assert_reference(e.observe(other)["observation"], state, e._seat[other])
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert legal.tolist() == state.legal_actions()
        if rng.random() < illegal:
            bad = rng.choice([a for a in range(57) if a not in legal])
            try:
                e.step(bad)
            except ValueError:
                pass
            else:
                raise AssertionError("an illegal action was accepted")
        action = int(legal[rng.randrange(legal.size)])
        seen["looks"] += state.phase == THROW and action == 56
        e.step(action)
        seen["reshuffles"], seen["rounds"] = state.stats["reshuffles"], state.stats["rounds"]
    return seen


@SETTINGS
@given(options=OPTIONS, seed=st.integers(0, 2**32 - 1))
def test_env_observations_are_the_reference(options: dict, seed: int) -> None:
    play_env(options, seed)


def test_reshuffles_looks_and_long_rounds_are_the_reference() -> None:
    seen = {"reshuffles": 0, "looks": 0}
    for seed in range(2):
        for key, value in play_env(LONG_ROUNDS, seed).items():
            seen[key] = seen.get(key, 0) + value
    assert seen["reshuffles"] >= 4 and seen["looks"] >= 2, seen


@SETTINGS
@given(options=OPTIONS, seed=st.integers(0, 2**32 - 1), report=st.sampled_from([0.0, 0.5, 1.0]))
def test_encoder_rebuilds_what_it_was_not_told(options: dict, seed: int, report: float) -> None:
    """Used on its own (moves reported sometimes, never, or on another state object) it still
    equals the reference: it rebuilds what it cannot vouch for."""
    game = ThirtyOneGame(**options)
    s = game.new_initial_state(seed=seed)
    enc = ObservationEncoder(game)
    rng = random.Random(seed)
    for _ in range(300):
        for seat in rng.sample(range(s.n), rng.randint(1, s.n)):
            assert_reference(enc.encode(s, seat), s, seat)
        if s.is_terminal():
            break
        if rng.random() < 0.05:
            s = s.clone()  # another state object, same position
        seat, phase, version = s.current_player, s.phase, s.pub_version
        action = rng.choice(s.legal_actions())
        s.apply_action(action)
        if rng.random() < report and s.pub_version == version:
            enc.applied(s, seat, phase, action)


def test_observations_are_new_arrays_the_env_never_touches_again() -> None:
    e = thirtyone_v0.env(num_players=3)
    e.reset(seed=3)
    rng = np.random.default_rng(3)
    kept = []
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        kept.append((obs, {k: v.copy() for k, v in obs.items()}))
        if rng.random() < 0.3:  # a user writing into an observation changes nothing else
            e.observe(agent)["observation"][:] = 7.0
            assert_reference(e.observe(agent)["observation"], e.unwrapped.state, e.unwrapped._seat[agent])
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(legal[rng.integers(legal.size)])
    assert len(kept) > 50
    for obs, copy in kept:
        for key in ("observation", "action_mask"):
            assert obs[key].flags.writeable
            np.testing.assert_array_equal(obs[key], copy[key])
    assert len({id(obs["observation"]) for obs, _ in kept}) == len(kept)


def test_decode_reads_the_incremental_vectors() -> None:
    e = thirtyone_v0.raw_env(num_players=4)
    e.reset(seed=11)
    rng = random.Random(11)
    for _ in range(60):
        state, agent = e.state, e.agent_selection
        seat = e._seat[agent]
        info = decode(e.observe(agent))
        assert sorted(info["hand"]) == sorted(state.hands[seat])
        assert info["top"] == (state.pile[-1] if state.pile else -1)
        assert info["stock"] == len(state.stock) and info["pile_size"] == len(state.pile)
        assert info["to_act"] == 0 and info["turn"] == state.turn_no
        e.step(rng.choice(state.legal_actions()))
        if not e.agents or any(e.terminations.values()):
            break


def test_tables_with_other_options_share_no_seat_rows() -> None:
    """The seat rows are cached across encoders by table state; options that change them (lives,
    free ride, target, scoring) must not mix."""
    grid = [{"num_players": 2, "lives": lives, "free_ride": free} for lives in (1, 2) for free in (True, False)]
    grid += [{"num_players": 2, "scoring": "points", "target_score": target} for target in (3, 4, 6)]
    for seed in range(3):
        for options in grid:
            play_env(options, seed, check_every=1.0, illegal=0.0)
