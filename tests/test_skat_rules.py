"""The Skat rules core: auction, skat, declaration masks, trick play, the end of the deal."""

from __future__ import annotations

import random

import pytest

from envs.skat import actions as A
from envs.skat.cards import FOLLOW, HEARTS, NULL, POINTS, card, cards_of, parse_cards
from envs.skat.rules import (
    AUCTION,
    DECLARE,
    DISCARD,
    KONTRA,
    PLAY,
    RE,
    SKAT,
    SkatGame,
    deal_from_deck,
)
from tests.skat_helpers import act, play_out_first_legal, random_playout

DEAL = (
    ["CJ SJ HJ DJ CA CT CK CQ C9 C8", "SA ST SK SQ S9 S8 S7 HA HT HK", "HQ H9 H8 H7 DA DT DK DQ D9 D8"],
    "C7 D7",
)


def names(actions):
    return [A.ACTION_NAMES[a] for a in actions]


def state(**rules):
    return SkatGame(**rules).state_from_deal(*DEAL)


def test_deal_pattern_3_skat_4_3():
    hands, skat = deal_from_deck(list(range(32)))
    assert cards_of(hands[0]) == [0, 1, 2, 11, 12, 13, 14, 23, 24, 25]
    assert cards_of(hands[2]) == [6, 7, 8, 19, 20, 21, 22, 29, 30, 31]
    assert cards_of(skat) == [9, 10]
    assert sum(h.bit_count() for h in hands) == 30


def test_middlehand_calls_forehand_first():
    s = state()
    assert s.phase == AUCTION and s.current_player == 1
    legal = names(s.legal_actions())
    assert legal[0] == "bid 18" and legal[-1] == "pass" and "bid 264" in legal and "hold" not in legal
    act(s, "bid 18")
    assert s.current_player == 0 and names(s.legal_actions()) == ["hold", "pass"]


def test_jump_bids_and_hold():
    s = state()
    act(s, "bid 18", "hold", "bid 33")  # middlehand jumps from 18 to 33
    assert s.bid == 33 and s.current_player == 0
    assert "bid 33" not in names(s.legal_actions())
    act(s, "pass")  # forehand gives up: rearhand now calls middlehand
    assert s.current_player == 2 and names(s.legal_actions())[0] == "bid 35"
    act(s, "bid 36", "pass")  # middlehand passes: rearhand is declarer at 36
    assert s.phase == SKAT and s.declarer == 2 and s.bid == 36


def test_listener_holding_wins_when_caller_passes():
    s = state()
    act(s, "bid 18", "hold", "pass", "pass")  # middlehand out, rearhand passes too
    assert s.declarer == 0 and s.bid == 18 and s.phase == SKAT


def test_forehand_may_bid_18_after_two_passes():
    s = state()
    act(s, "pass", "pass")
    assert s.current_player == 0 and names(s.legal_actions()) == ["bid 18", "pass"]
    act(s, "bid 18")
    assert s.declarer == 0 and s.bid == 18


def test_all_pass_is_passed_in():
    s = state()
    act(s, "pass", "pass", "pass")
    assert s.is_terminal() and s.passed_in and s.returns() == [0.0, 0.0, 0.0]
    assert s.legal_actions() == [] and s.current_player == -1


def test_pickup_discard_declare_masks():
    s = state()
    act(s, "pass", "pass", "bid 18", "pickup")
    assert s.phase == DISCARD and s.hands[0].bit_count() == 12
    assert len(s.legal_actions()) == 12
    act(s, "discard C7", "discard D7")
    assert s.phase == DECLARE and s.skat == parse_cards("C7 D7")
    legal = [A.CONTRACTS[a - A.DECLARE].label for a in s.legal_actions()]
    assert legal == ["C", "S", "H", "D", "G", "N", "NO"]  # no hand games, no announcements after pickup


def test_hand_game_offers_announcements_and_masks_null_below_bid():
    s = state()
    act(s, "bid 24", "hold", "pass", "pass", "hand")
    assert s.phase == DECLARE and s.bid == 24
    legal = [A.CONTRACTS[a - A.DECLARE].label for a in s.legal_actions()]
    assert "CHS" in legal and "GHO" in legal and "NH" in legal and "NOH" in legal
    assert "C" not in legal and "N" not in legal
    s = state()
    act(s, "bid 36", "hold", "pass", "pass", "hand")
    legal = [A.CONTRACTS[a - A.DECLARE].label for a in s.legal_actions()]
    assert "NH" not in legal and "NOH" in legal  # null hand (35) cannot reach 36


def test_follow_suit_treats_jacks_as_trumps():
    spades_in_hearts = FOLLOW[HEARTS][1]
    assert not spades_in_hearts >> card("SJ") & 1  # SJ is a trump in hearts, not a spade
    assert FOLLOW[HEARTS][4] >> card("SJ") & 1 and FOLLOW[HEARTS][4] >> card("H7") & 1
    assert FOLLOW[NULL][1] >> card("SJ") & 1  # in null the jack is a plain spade


def test_full_suit_game_counts_120_points():
    s = state()
    act(s, "pass", "pass", "bid 18", "pickup", "discard C7", "discard D7", "declare C")
    assert s.phase == PLAY and s.current_player == 0
    act(s, "play CJ")
    # middlehand has no trump: anything goes
    assert len(s.legal_actions()) == 10
    play_out_first_legal(s)
    assert s.is_terminal()
    assert sum(s.points) + sum(POINTS[c] for c in cards_of(s.skat)) == 120
    assert s.outcome is not None and s.outcome.won
    assert s.outcome.matadors == 11  # four jacks and all seven clubs; C7 lies in the skat but counts
    assert s.scores[0] == s.outcome.value + 50


def test_null_ends_when_declarer_takes_a_trick():
    s = state()
    act(s, "pass", "pass", "bid 18", "pickup", "discard C7", "discard D7", "declare N")
    act(s, "play CA")  # nobody else holds a club: forehand takes the trick
    act(s, s_first(s))
    act(s, s_first(s))
    assert s.is_terminal() and s.trick_count == 1
    assert not s.outcome.won and s.scores[0] == -2 * 23 - 50


def s_first(s):
    return A.ACTION_NAMES[s.legal_actions()[0]]


def test_illegal_actions_raise_clear_errors():
    s = state()
    with pytest.raises(ValueError, match="illegal Skat action 'hold' for middlehand in phase auction"):
        s.apply_action(A.HOLD)
    act(s, "pass", "pass", "bid 18", "hand", "declare CH")
    with pytest.raises(ValueError, match="illegal Skat action 'play SA'"):
        s.apply_action(A.action_index("play SA"))  # not in forehand's hand
    with pytest.raises(ValueError, match="illegal Skat action '999'"):
        s.apply_action(999)


def test_must_follow_suit_is_enforced():
    s = SkatGame().state_from_deal(
        ["CJ SJ HJ DJ CA CT CK CQ C9 C8", "C7 ST SK SQ S9 S8 S7 HA HT HK", "HQ H9 H8 H7 DA DT DK DQ D9 D8"], "SA D7"
    )
    act(s, "pass", "pass", "bid 18", "hand", "declare GH")
    act(s, "play CA")
    assert names(s.legal_actions()) == ["play C7"]
    with pytest.raises(ValueError, match="must follow suit"):
        s.apply_action(A.action_index("play SK"))


def test_kontra_and_re():
    s = state(kontra=True)
    act(s, "bid 18", "hold", "pass", "pass")  # forehand declares; middlehand called, rearhand did not
    act(s, "hand", "declare CH")
    assert s.phase == KONTRA and s.current_player == 1  # only middlehand may double
    act(s, "kontra")
    assert s.phase == RE and s.current_player == 0
    act(s, "re")
    assert s.phase == PLAY and s.doubling == 4
    play_out_first_legal(s)
    assert s.outcome.doubling == 4
    assert s.outcome.declarer_score == 4 * s.outcome.value * (1 if s.outcome.won else -2)


def test_kontra_off_by_default_and_skipped_without_callers():
    s = state()
    act(s, "pass", "pass", "bid 18", "hand", "declare CH")
    assert s.phase == PLAY
    s = state(kontra=True)
    act(s, "pass", "pass", "bid 18", "hand", "declare CH")
    assert s.phase == PLAY  # neither defender made a call


def test_ramsch_when_all_pass():
    s = state(ramsch=True)
    act(s, "pass", "pass", "pass")
    assert s.phase == PLAY and s.game_type == 4 and s.current_player == 0
    play_out_first_legal(s)
    assert s.is_terminal() and s.trick_count == 10
    assert sum(s.points) == 120  # the skat went to the winner of the last trick
    assert min(s.scores) < 0 or max(s.scores) == 120


def test_clone_is_independent():
    s = state()
    act(s, "bid 18")
    c = s.clone()
    act(c, "hold")
    assert s.current_player == 0 and c.current_player == 1
    assert s.history != c.history


def test_random_games_keep_invariants():
    rng = random.Random(7)
    game = SkatGame(kontra=True, ramsch=True)
    for seed in range(300):
        s = game.new_initial_state(seed)
        random_playout(s, rng)
        if s.passed_in:
            continue
        if s.contract is None or s.contract.game != NULL or s.trick_count == 10:
            assert sum(s.points) + sum(POINTS[c] for c in cards_of(s.skat)) * (s.contract is not None) == 120
        assert sum(s.tricks_won) == s.trick_count


def test_deal_validation():
    with pytest.raises(ValueError, match="has 9 cards"):
        SkatGame().state_from_deal(["CJ SJ HJ DJ CA CT CK CQ C9", *DEAL[0][1:]], "C7 D7 C8")
    with pytest.raises(ValueError, match="each card once"):
        SkatGame().state_from_deal([DEAL[0][0], DEAL[0][0], DEAL[0][2]], "C7 D7")
    with pytest.raises(ValueError, match="not a Skat card"):
        SkatGame().state_from_deal(DEAL[0], "C7 X9")
    with pytest.raises(ValueError, match="scoring"):
        SkatGame(scoring="bierlachs")
