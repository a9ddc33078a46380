"""Bad input to the Skat env and rules core, tried as a user would: one clear ValueError per case.

Each case once: actions that are not integers, reset options and deal keys that do not exist, a
float or bool dealer, deals given in the wrong shape or with a card twice, steps after the deal,
the rules core fed numpy integers, and the four-player tournament score.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs import skat_v0
from envs.skat import SkatGame, SkatOptions, validate_options
from envs.skat import actions as A
from envs.skat.cards import CARD_NAMES, NUM_CARDS
from envs.skat.rules import DONE, deal_from_deck
from envs.skat.scoring import seat_scores, settle

DEAL = {
    "hands": ["CJ SJ HJ DJ CA CT CK CQ C9 C8", "SA ST SK SQ S9 S8 S7 HA HT HK", "HQ H9 H8 H7 DA DT DK DQ D9 D8"],
    "skat": "C7 D7",
}


def fresh(**options) -> skat_v0.raw_env:
    env = skat_v0.raw_env(**options)
    env.reset(seed=0)
    return env


# --- actions -----------------------------------------------------------------------------------
@pytest.mark.parametrize("action", [3.7, "64", True, np.float64(64.0), np.bool_(True), np.array([64]), None])
def test_raw_step_takes_integers_only(action):
    env = fresh()
    before = list(env.state.history)
    with pytest.raises(ValueError, match="not an integer action index"):
        env.step(action)
    assert env.state.history == before  # nothing was played


@pytest.mark.parametrize("action", [np.int64(A.PASS), np.int8(A.PASS), np.uint16(A.PASS), np.array(A.PASS)])
def test_raw_step_takes_numpy_integers_as_the_int(action):
    env, ref = fresh(), fresh()
    env.step(action)
    ref.step(A.PASS)
    assert env.state.history == ref.state.history == [(1, A.PASS)]
    assert type(env.state.history[0][1]) is int


def test_raw_step_out_of_range_names_the_agent():
    with pytest.raises(ValueError, match=r"action -1 for player_1 out of range 0\.\.161"):
        fresh().step(-1)


def test_raw_step_after_the_deal_is_over():
    env = fresh()
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent]:
            env.step(None)
        else:
            env.step(int(np.flatnonzero(env.action_mask(agent))[0]))
    with pytest.raises(ValueError, match="the deal is over"):
        env.step(0)


def test_raw_step_before_reset():
    with pytest.raises(ValueError, match=r"reset\(\) was never called"):
        skat_v0.raw_env().step(0)


# --- reset options -------------------------------------------------------------------------------
def test_unknown_reset_option_is_named():
    with pytest.raises(ValueError, match="unknown reset option 'deel'; valid options: deal, dealer"):
        skat_v0.env().reset(options={"deel": DEAL})


def test_unknown_deal_key_is_named():
    with pytest.raises(ValueError, match="unknown key 'skatt' in reset option 'deal'"):
        skat_v0.env().reset(options={"deal": {"hands": DEAL["hands"], "skatt": "C7 D7"}})


def test_deal_without_its_skat():
    with pytest.raises(ValueError, match="has no 'skat'"):
        skat_v0.env().reset(options={"deal": {"hands": DEAL["hands"]}})


def test_deal_with_deck_and_hands():
    with pytest.raises(ValueError, match="either 'deck' or 'hands' and 'skat'"):
        skat_v0.env().reset(options={"deal": {"deck": CARD_NAMES, **DEAL}})


@pytest.mark.parametrize("dealer", [1.0, True, "1", 3, -1])
def test_reset_dealer_must_be_a_seat(dealer):
    env = skat_v0.env()
    with pytest.raises(ValueError, match="reset option 'dealer' must be a seat from 0 to 2"):
        env.reset(options={"dealer": dealer})


def test_reset_dealer_numpy_int_is_the_int():
    env = skat_v0.env()
    env.reset(seed=0, options={"dealer": np.int64(1)})
    assert env.unwrapped.dealer == 1 and type(env.unwrapped.dealer) is int


@pytest.mark.parametrize("dealer", [1.0, True, 3])
def test_env_option_dealer_must_be_a_seat(dealer):
    with pytest.raises(ValueError, match="dealer must be a seat 0, 1 or 2"):
        skat_v0.env(dealer=dealer)


def test_bad_reset_option_changes_nothing():
    env = skat_v0.raw_env()
    env.reset(seed=5)
    dealt, dealer = env.state.dealt, env.dealer
    with pytest.raises(ValueError):
        env.reset(seed=6, options={"dealer": 1.5})
    assert (env.state.dealt, env.dealer) == (dealt, dealer)


# --- deals -------------------------------------------------------------------------------------
def test_hands_none():
    with pytest.raises(ValueError, match="'hands' must be a list of 3 hands.*got None"):
        skat_v0.env().reset(options={"deal": {"hands": None, "skat": "C7 D7"}})


def test_hands_as_one_string():
    with pytest.raises(ValueError, match="'hands' is one string"):
        skat_v0.env().reset(options={"deal": {"hands": " ".join(DEAL["hands"]), "skat": "C7 D7"}})


def test_skat_none():
    with pytest.raises(ValueError, match="the skat: cards must be a string"):
        skat_v0.env().reset(options={"deal": {"hands": DEAL["hands"], "skat": None}})


def test_duplicate_card_is_named():
    hands = [DEAL["hands"][0], DEAL["hands"][1].replace("HK", "CJ"), DEAL["hands"][2]]
    with pytest.raises(ValueError, match=r"given twice: CJ \(the hand of player_0 and the hand of player_1\); "
                                         r"missing: HK"):
        skat_v0.env().reset(options={"deal": {"hands": hands, "skat": "C7 D7"}})


def test_duplicate_card_in_bit_sets_is_named():
    from envs.skat.cards import parse_cards

    hands = [parse_cards(DEAL["hands"][0]), parse_cards(DEAL["hands"][1].replace("HK", "CJ")),
             parse_cards(DEAL["hands"][2])]
    with pytest.raises(ValueError, match=r"given twice: CJ \(the hand of forehand and the hand of middlehand\)"):
        SkatGame().state_from_deal(hands, parse_cards("C7 D7"))


def test_bad_card_names_the_hand_of_the_seat():
    hands = [DEAL["hands"][0], DEAL["hands"][1], DEAL["hands"][2].replace("D8", "X8")]
    with pytest.raises(ValueError, match="the hand of player_2: not a Skat card: 'X8'"):
        skat_v0.env().reset(options={"deal": {"hands": hands, "skat": "C7 D7"}})


def test_deal_from_a_deck_is_the_seeded_deal_of_that_order():
    raw = skat_v0.raw_env()
    raw.reset(seed=11)
    order = np.random.default_rng(11).permutation(NUM_CARDS).tolist()  # what the seeded reset shuffled
    fixed = skat_v0.raw_env()
    fixed.reset(options={"deal": {"deck": [CARD_NAMES[c] for c in order]}, "dealer": raw.dealer})
    assert fixed.state.dealt == raw.state.dealt and fixed.state.original_skat == raw.state.original_skat
    assert SkatGame().new_initial_state(deck=order).dealt == raw.state.dealt


def test_deck_with_a_card_twice_names_it():
    deck = list(CARD_NAMES[:-1]) + ["CJ"]
    with pytest.raises(ValueError, match=r"duplicates \['CJ'\], missing \['DA'\]"):
        skat_v0.env().reset(options={"deal": {"deck": deck}})
    with pytest.raises(ValueError, match="a Skat deck must be a list"):
        deal_from_deck(" ".join(CARD_NAMES))


# --- rules core ----------------------------------------------------------------------------------
def test_core_takes_numpy_integers():
    a, b = SkatGame().new_initial_state(3), SkatGame().new_initial_state(3)
    while not a.is_terminal():
        legal = a.legal_actions()[0]
        a.apply_action(np.int64(legal))
        b.apply_action(legal)
    assert a.history == b.history and a.scores == b.scores


@pytest.mark.parametrize("action", [0.0, "64", True, None])
def test_core_names_other_types(action):
    with pytest.raises(ValueError, match="a Skat action .* is not an integer"):
        SkatGame().new_initial_state(0).apply_action(action)


def test_core_after_the_deal_names_no_seat():
    state = SkatGame().new_initial_state(0)
    for name in ("pass", "pass", "pass"):
        state.apply_action(A.action_index(name))
    assert state.phase == DONE and state.passed_in
    with pytest.raises(ValueError, match="the deal is over, no action is legal") as info:
        state.apply_action(A.PASS)
    assert not any(p in str(info.value) for p in ("forehand", "middlehand", "rearhand"))


# --- options and scores ----------------------------------------------------------------------------
def test_options_object():
    assert SkatGame(scoring="classic", kontra=True).options == SkatOptions("classic", True, False, None)
    game = SkatGame(ramsch=True)
    assert game.new_initial_state(0).options is game.options and game.new_initial_state(0).rules.ramsch
    assert validate_options() == SkatOptions()
    with pytest.raises(ValueError, match="unknown Skat option 'kontr'; valid options: scoring, kontra"):
        SkatGame(kontr=True)
    with pytest.raises(ValueError, match="'ramsch' must be True or False"):
        SkatGame(ramsch=1)


def test_four_player_tournament_pays_30_to_each_other_player():
    from envs.skat.cards import parse_cards

    contract = A.CONTRACTS[A.CONTRACT_BY_LABEL["G"]]
    lost = settle(contract, 18, parse_cards("CJ DJ HA HT HK H8 H7 D9 D8 D7 SA SQ"), 50, 4)
    assert seat_scores(lost, 1, "tournament", num_players=4) == [30, -146, 30, 30]  # the dealer sits out: 4th
    assert seat_scores(lost, 1, "tournament") == [40, -146, 40]
    assert seat_scores(lost, 1, "classic", num_players=4) == [0, -96, 0, 0]
    with pytest.raises(ValueError, match="3 or 4 players"):
        seat_scores(lost, 1, "tournament", num_players=5)
