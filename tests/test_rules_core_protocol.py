"""What both games share: the ``envs.core`` protocol, the action checks, card parsing, reset options.

The protocol is what search agents and ``train.bench`` rely on, so both rules cores are played here
through its names alone. The action checks are also run under ``python -O``, where an ``assert``
would vanish.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from envs import skat, thirtyone
from envs.checks import as_action, as_integer
from envs.core import Game, State

ROOT = Path(__file__).resolve().parents[1]
GAMES = {
    "skat": lambda: skat.SkatGame(kontra=True, ramsch=True),
    "thirtyone": lambda: thirtyone.ThirtyOneGame(num_players=3, lives=1),
}


@pytest.mark.parametrize("game", GAMES)
def test_rules_core_follows_the_protocol(game):
    g = GAMES[game]()
    assert isinstance(g, Game) and isinstance(g.new_initial_state(0), State)
    for a in range(g.num_actions):
        assert g.action_index(g.action_name(a)) == a
    rng = random.Random(0)
    for seed in range(20):
        state = g.new_initial_state(seed)
        twin = g.new_initial_state(seed)
        while not state.is_terminal():
            assert 0 <= state.current_player < g.num_players
            legal = state.legal_actions()
            before = state.clone()
            action = legal[rng.randrange(len(legal))]
            state.apply_action(action)
            twin.apply_action(action)
            assert before.legal_actions() == legal  # the clone did not move
        assert state.current_player == -1 and twin.is_terminal() and state.returns() == twin.returns()
        assert len(state.returns()) == g.num_players


@pytest.mark.parametrize(("value", "ok"), [
    (3, 3), (np.int64(3), 3), (np.uint8(3), 3), (np.array(3), 3),
    (3.0, None), (3.7, None), ("3", None), (True, None), (np.bool_(False), None), (np.array([3]), None),
    (np.float64(3.0), None), (None, None),
])
def test_the_one_action_check(value, ok):
    if ok is None:
        with pytest.raises(ValueError, match="not an integer"):
            as_action(value, 10, "player_0")
        with pytest.raises(ValueError, match="not an integer"):
            as_integer(value, "action")
    else:
        assert as_action(value, 10) == ok and type(as_action(value, 10)) is int
    with pytest.raises(ValueError, match="out of range 0..9"):
        as_action(10, 10)


def test_parse_cards_is_a_bit_set_in_both_games_and_parse_card_list_keeps_order():
    assert skat.parse_cards("CJ SA") == (1 << skat.card("CJ")) | (1 << skat.card("SA")) == skat.parse_cards("SA.CJ")
    assert thirtyone.parse_cards("HK H8") == (1 << 37) | (1 << 32) == thirtyone.parse_cards(["H8", "HK"])
    assert skat.parse_card_list("SA CJ") == [skat.card("SA"), skat.card("CJ")]
    assert thirtyone.parse_card_list("HK H8 HK") == [37, 32, 37]
    for game in (skat, thirtyone):
        with pytest.raises(ValueError, match="given twice"):
            game.parse_cards("HA HA")
        with pytest.raises(ValueError, match="cards must be a string"):
            game.parse_cards(None)
    assert thirtyone.hand_value(["HK", "H8", "H5"]) == 23
    with pytest.raises(ValueError, match="given twice"):
        thirtyone.hand_value("HK HK H5")


def test_action_checks_survive_python_O():
    code = """
assert False, "this runs under python -O only"
import numpy as np
from envs import skat_v0, thirtyone_v0
for mod in (skat_v0, thirtyone_v0):
    wrapped = mod.env()
    wrapped.reset(seed=0)
    try:
        wrapped.step(-1)
    except AssertionError as e:
        print("wrapped:", e)
    raw = mod.raw_env()
    raw.reset(seed=0)
    try:
        raw.step(-1)
    except ValueError as e:
        print("raw:", e)
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-O", "-c", code], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("wrapped: action is not in action space") == 2, proc.stdout
    assert proc.stdout.count("raw: action -1 for player_") == 2, proc.stdout


@pytest.mark.parametrize("seed", [1.5, -1, "3", True])
@pytest.mark.parametrize("game", ["skat", "thirtyone"])
def test_reset_seed_must_be_a_non_negative_integer(game, seed):
    from envs import env_module

    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        env_module(game).env().reset(seed=seed)


@pytest.mark.parametrize("game", ["skat", "thirtyone"])
def test_numpy_seed_is_the_int_seed(game):
    from envs import env_module

    a, b = env_module(game).raw_env(), env_module(game).raw_env()
    a.reset(seed=np.int64(3))
    b.reset(seed=3)
    assert np.array_equal(a.observe(a.agent_selection)["observation"], b.observe(b.agent_selection)["observation"])
