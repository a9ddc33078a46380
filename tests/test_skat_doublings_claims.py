"""Supra and Resupra after Kontra and Re; conceding and claiming the remaining tricks."""

from __future__ import annotations

import pytest

from envs.skat import actions as A
from envs.skat.rules import ANSWER, DONE, KONTRA, PLAY, RE, RESUPRA, SUPRA, SkatGame
from tests.skat_helpers import act

DEAL = (["CJ SJ HJ DJ CA CT CK CQ C9 C8", "SA ST SK SQ S9 S8 S7 HA HT HK", "HQ H9 H8 H7 DA DT DK DQ D9 D8"], "C7 D7")


def names(s):
    return [A.ALL_ACTION_NAMES[a] for a in s.legal_actions()]


def middlehand_declares(**options):
    """Middlehand bids, forehand holds and passes later: middlehand plays diamonds hand (a weak game)."""
    s = SkatGame(**options).state_from_deal(*DEAL)
    act(s, "bid 18", "hold", "bid 20", "pass", "pass", "hand", "declare DH")
    return s


def test_supra_and_resupra_double_twice_more():
    s = middlehand_declares(kontra=True, supra=True)
    assert s.phase == KONTRA and s.current_player == 0  # forehand held a call: it may say Kontra
    act(s, "kontra")
    assert s.phase == RE and names(s) == ["re", "pass"]
    act(s, "re")
    assert s.phase == SUPRA and s.current_player == 0 and names(s) == ["supra", "pass"]
    act(s, "supra")
    assert s.phase == RESUPRA and s.current_player == 1
    act(s, "resupra")
    assert s.phase == PLAY and s.doubling == 16
    while s.phase != DONE:
        s.apply_action(s.legal_actions()[0])
    o = s.outcome
    assert o.doubling == 16 and abs(s.scores[1] - (50 if o.won else -50)) == (1 if o.won else 2) * 16 * o.value


def test_no_supra_without_the_option_or_after_a_pass():
    s = middlehand_declares(kontra=True)
    act(s, "kontra", "re")
    assert s.phase == PLAY and s.doubling == 4
    s = middlehand_declares(kontra=True, supra=True)
    act(s, "kontra", "re", "pass")
    assert s.phase == PLAY and s.doubling == 4


def forehand_plays_clubs_hand(**options):
    s = SkatGame(concede=True, **options).state_from_deal(*DEAL)
    act(s, "pass", "pass", "bid 18", "hand", "declare CH")
    return s


def test_concede_and_claim_are_offered_on_the_players_turn():
    s = forehand_plays_clubs_hand()
    assert s.phase == PLAY and names(s)[-2:] == ["concede", "claim"]
    assert "concede" not in names(SkatGame().state_from_deal(*DEAL))


def test_declarer_concedes_alone_while_holding_nine_cards():
    s = forehand_plays_clubs_hand()
    act(s, "concede")
    assert s.phase == DONE and not s.outcome.won
    # clubs hand "with 11" (the C7 in the skat counts): 12 x 13 = 156, lost simply (no schneider or schwarz)
    assert s.outcome.value == 156 and s.scores == [-2 * 156 - 50, 40, 40]


def test_later_a_declarers_concession_needs_one_defender():
    s = forehand_plays_clubs_hand()
    act(s, "play CJ", "play SA", "play HQ", "play SJ", "play ST", "play H9")  # two tricks: 8 cards left
    act(s, "concede")
    assert s.phase == ANSWER and s.current_player == 1 and names(s) == ["accept", "reject"]
    act(s, "reject")
    assert s.phase == ANSWER and s.current_player == 2  # the other defender may still approve
    act(s, "reject")
    assert s.phase == PLAY and s.current_player == 0 and "concede" not in names(s)  # one offer per trick
    act(s, "play HJ", "play SK", "play H8")
    act(s, "concede", "reject", "accept")
    # "A game in which the necessary trick points have been won can not be lost": 2 + 2 + 2 + 4 + 11 + 10 ...
    assert s.phase == DONE and s.outcome.won == (s.outcome.declarer_points >= 61)


def test_a_claim_needs_both_defenders_and_gives_the_rest():
    s = forehand_plays_clubs_hand()
    act(s, "claim", "accept", "reject")
    assert s.phase == PLAY and s.current_player == 0 and names(s)[-1] != "claim"
    act(s, "play CJ", "play SA", "play HQ", "claim", "accept", "accept")
    assert s.phase == DONE and s.outcome.won and s.outcome.declarer_tricks == 10 and s.outcome.schwarz
    assert s.outcome.declarer_points == 120


def test_a_defender_concedes_and_the_declarer_may_ask_to_play_on():
    s = forehand_plays_clubs_hand()
    act(s, "play CJ", "concede")
    assert s.phase == ANSWER and s.current_player == 0
    act(s, "reject")  # "may be requested by declarer to complete the play"
    assert s.phase == PLAY and s.current_player == 1
    act(s, "play SA", "play HQ", "play SJ", "play ST", "concede", "accept")
    assert s.phase == DONE and s.outcome.won and s.outcome.declarer_tricks == 10


@pytest.mark.parametrize("who, wins", [("declarer", True), ("defender", False)])
def test_a_null_claim_means_the_declarer_takes_no_trick_or_one(who, wins):
    s = SkatGame(concede=True).state_from_deal(*DEAL)
    act(s, "bid 18", "pass", "pass", "hand", "declare NH")  # middlehand: null hand
    if who == "declarer":
        act(s, "play CJ", "claim", "accept", "accept")
    else:
        act(s, "claim", "accept")
    assert s.phase == DONE and s.outcome.won == wins
