"""Bad input to the Thirty-One env and rules core, tried as a user would: one clear ValueError per case."""

from __future__ import annotations

import numpy as np
import pytest

from envs import thirtyone_v0
from envs.thirtyone import ThirtyOneGame
from envs.thirtyone.cards import CARD_NAMES
from tests.test_thirtyone_rules import QUIET4, make_deck


def fresh(**options) -> thirtyone_v0.raw_env:
    env = thirtyone_v0.raw_env(num_players=3, **options)
    env.reset(seed=0, options={"dealer": 2})
    return env


@pytest.mark.parametrize("action", [52.0, "52", True, np.float64(52.0), np.bool_(True), np.array([52])])
def test_raw_step_takes_integers_only(action):
    env = fresh()
    with pytest.raises(ValueError, match="for player_0 is not an integer action index"):
        env.step(action)
    assert env.state.moves == 0  # nothing was played


def test_raw_step_takes_a_0d_integer_array():
    env = fresh()
    env.step(np.array(52))  # draw
    assert env.state.moves == 1 and env.state.phase == 2


def test_raw_step_after_the_game_is_over():
    env = thirtyone_v0.raw_env(num_players=2, episode="round")
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent]:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(env.action_mask(agent)))))
    with pytest.raises(ValueError, match="the game is over"):
        env.step(52)


def test_raw_step_before_reset():
    with pytest.raises(ValueError, match=r"reset\(\) was never called"):
        thirtyone_v0.raw_env().step(52)


def test_unknown_reset_option_is_named():
    with pytest.raises(ValueError, match="unknown reset option 'dek'; valid options: deal, dealer, deck"):
        thirtyone_v0.env().reset(options={"dek": list(CARD_NAMES)})


def test_unknown_deal_key_is_named():
    with pytest.raises(ValueError, match="unknown key 'hands' in reset option 'deal'"):
        thirtyone_v0.env().reset(options={"deal": {"hands": ["HK H8 H5"]}})


def test_deal_deck_is_the_old_deck_option():
    deck = make_deck(QUIET4, "DK", "SA", dealer=3, n=4)
    old, new = thirtyone_v0.raw_env(num_players=4), thirtyone_v0.raw_env(num_players=4)
    old.reset(seed=1, options={"deck": deck, "dealer": 3})
    new.reset(seed=1, options={"deal": {"deck": deck}, "dealer": 3})
    assert new.state.hands == old.state.hands and new.state.stock == old.state.stock
    with pytest.raises(ValueError, match="give the deck once"):
        new.reset(options={"deal": {"deck": deck}, "deck": deck})


@pytest.mark.parametrize("dealer", [1.0, True, "1", 4])
def test_reset_dealer_must_be_a_seat(dealer):
    with pytest.raises(ValueError, match="reset option 'dealer' must be a seat from 0 to 3"):
        thirtyone_v0.env(num_players=4).reset(options={"dealer": dealer})


def test_reset_dealer_numpy_int_is_the_int():
    env = thirtyone_v0.raw_env(num_players=4)
    env.reset(seed=0, options={"dealer": np.int64(1)})
    assert env.state.dealer == 1 and type(env.state.dealer) is int


@pytest.mark.parametrize("dealer", [1.0, True])
def test_core_dealer_must_be_a_seat(dealer):
    with pytest.raises(ValueError, match="dealer must be a seat from 0 to 3"):
        ThirtyOneGame(num_players=4).new_initial_state(0, dealer=dealer)


@pytest.mark.parametrize("action", [52.0, True, None])
def test_core_names_other_types(action):
    with pytest.raises(ValueError, match="a Thirty-One action .* is not an integer"):
        ThirtyOneGame().new_initial_state(0).apply_action(action)


def test_core_takes_numpy_integers():
    a, b = ThirtyOneGame().new_initial_state(4), ThirtyOneGame().new_initial_state(4)
    for _ in range(30):
        legal = a.legal_actions()[-1]
        a.apply_action(np.int64(legal))
        b.apply_action(legal)
    assert a.hands == b.hands and a.pile == b.pile
