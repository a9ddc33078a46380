"""North American (Tournee) skat: its games, the turned skat card, base values, multipliers and Ramsch."""

from __future__ import annotations

import pytest

from envs.skat import actions as A
from envs.skat.actions import Contract
from envs.skat.cards import CLUBS, DIAMONDS, GRAND, HEARTS, NULL, SPADES, card
from envs.skat.rules import ANNOUNCE, DISCARD, DONE, PLAY, SKAT, TURN, SkatGame
from envs.skat.scoring_tournee import (
    GUCKSER_MODE,
    PASST_MODE,
    SOLO_MODE,
    TOURNEE_MODE,
    settle_tournee,
    tournee_ramsch,
)
from tests.skat_helpers import act

DEAL = (["CJ SJ HJ DJ CA CT CK CQ C9 C8", "SA ST SK SQ S9 S8 S7 HA HT HK", "HQ H9 H8 H7 DA DT DK DQ D9 D8"], "D7 C7")


def plain(game: int, hand: bool = False, schneider: bool = False, schwarz: bool = False, ouvert: bool = False):
    return Contract(game, hand, schneider or schwarz, schwarz, ouvert)


def cards(names: str) -> int:
    return sum(1 << card(n) for n in names.split())


def names(s):
    return [A.ALL_ACTION_NAMES[a] for a in s.legal_actions()]


@pytest.mark.parametrize("game, base", [(DIAMONDS, 5), (HEARTS, 6), (SPADES, 7), (CLUBS, 8), (GRAND, 12)])
def test_tournee_base_values(game, base):
    # "Tournee: D 5, H 6, S 7, C 8, Grand 12": with 1 (the club jack), game: base x 2
    o = settle_tournee(plain(game), TOURNEE_MODE, 10, cards("CJ"), 61, 5)
    assert o.won and o.value == 2 * base and o.declarer_score == 2 * base


@pytest.mark.parametrize("game, base", [(DIAMONDS, 9), (HEARTS, 10), (SPADES, 11), (CLUBS, 12), (GRAND, 20)])
def test_solo_base_values(game, base):
    o = settle_tournee(plain(game, hand=True), SOLO_MODE, 10, cards("CJ SJ"), 70, 6)
    assert o.won and o.value == 3 * base  # with 2, game


def test_grand_ouvert_guckser_and_null_values():
    o = settle_tournee(plain(GRAND, hand=True, ouvert=True), SOLO_MODE, 10, cards("CJ"), 120, 10)
    assert o.won and o.value == 24 * (1 + 3)  # grand ouvert 24: with 1, game, schneider, schwarz
    assert not settle_tournee(plain(GRAND, hand=True, ouvert=True), SOLO_MODE, 10, cards("CJ"), 110, 9).won
    won = settle_tournee(plain(GRAND), GUCKSER_MODE, 10, cards("CJ"), 70, 6)
    lost = settle_tournee(plain(GRAND), GUCKSER_MODE, 10, cards("CJ"), 50, 4)
    assert won.declarer_score == 16 * 2 and lost.declarer_score == -32 * 2  # "Grand Guckser: 16, 32 if lost"
    assert settle_tournee(plain(NULL, hand=True), SOLO_MODE, 10, 0, 0, 0).declarer_score == 20
    assert settle_tournee(plain(NULL, hand=True, ouvert=True), SOLO_MODE, 10, 0, 0, 1).declarer_score == -40


def test_multipliers_schneider_at_91_schwarz_and_announcements():
    # "2 for Schneider (91 or more card points)": game + schneider (the levels as in German skat)
    assert settle_tournee(plain(CLUBS), TOURNEE_MODE, 10, cards("CJ"), 90, 8).value == 8 * 2
    assert settle_tournee(plain(CLUBS), TOURNEE_MODE, 10, cards("CJ"), 91, 8).value == 8 * 3
    assert settle_tournee(plain(CLUBS), TOURNEE_MODE, 10, cards("CJ"), 120, 10).value == 8 * 4
    # "If Schneider was declared add 1. If Schwarz was declared add 2." A failed one loses what it would win.
    o = settle_tournee(plain(CLUBS, schneider=True), TOURNEE_MODE, 10, cards("CJ"), 80, 8)
    assert not o.won and o.value == 8 * (1 + 1 + 1 + 1) and o.declarer_score == -32
    o = settle_tournee(plain(CLUBS, schwarz=True), TOURNEE_MODE, 10, cards("CJ"), 120, 10)
    assert o.won and o.value == 8 * (1 + 1 + 1 + 1 + 2)


def test_passt_mir_nicht_doubles_the_penalty():
    # "If a tournee is played Passt mir nicht and declarer does not make 61 card points, the penalty is doubled"
    assert settle_tournee(plain(HEARTS), PASST_MODE, 10, cards("CJ"), 50, 4).declarer_score == -2 * 12
    assert settle_tournee(plain(HEARTS), TOURNEE_MODE, 10, cards("CJ"), 50, 4).declarer_score == -12
    assert settle_tournee(plain(HEARTS), PASST_MODE, 10, cards("CJ"), 70, 6).declarer_score == 12


def test_north_american_ramsch():
    # "fewest card points wins 10 game points, or 20 for taking zero tricks. A player taking every trick loses 30"
    assert tournee_ramsch([50, 40, 30], [4, 3, 3]) == [0, 0, 10]
    assert tournee_ramsch([70, 50, 0], [6, 4, 0]) == [0, 0, 20]
    assert tournee_ramsch([118, 0, 0], [10, 0, 0]) == [-30, 0, 0]


def tournee_state():
    s = SkatGame(variant="tournee").state_from_deal(*DEAL)
    act(s, "pass", "pass")  # middlehand and rearhand pass: forehand must bid or play the Ramsch
    assert names(s) == ["bid 10", "pass"]
    act(s, "bid 10")
    assert s.phase == SKAT and names(s) == ["tournee", "guckser", "hand"]
    return s


def test_tournee_turns_a_card_and_passt_mir_nicht_turns_the_second():
    s = tournee_state()
    act(s, "tournee")
    assert s.phase == TURN and s.x.turned == [card("D7")] and names(s) == ["declare D", "passt"]
    act(s, "passt")
    assert s.x.turned == [card("D7"), card("C7")] and s.x.shown == 1 << card("C7") and names(s) == ["declare C"]
    act(s, "declare C")
    assert s.phase == DISCARD and s.hands[0].bit_count() == 12
    act(s, "discard C9", "discard C8")
    assert s.phase == ANNOUNCE and names(s) == ["declare C", "declare CS", "declare CZ"]
    act(s, "declare CS")
    assert s.phase == PLAY and s.x.mode == PASST_MODE
    while s.phase != DONE:
        s.apply_action(s.legal_actions()[0])
    assert s.outcome.won and s.outcome.value == 8 * (11 + 1 + 1 + 1)  # with 11, game, schneider, announced
    assert s.scores == [s.outcome.value, 0, 0]


def test_a_turned_jack_offers_grand_and_solo_and_guckser():
    hands = ["HK CA CT CK CQ C9 C8 SA ST SK", "CJ SJ HJ SQ S9 S8 S7 HA HT D7", "HQ H9 H8 H7 DA DT DK DQ D9 D8"]
    s = SkatGame(variant="tournee").state_from_deal(hands, "DJ C7")
    act(s, "pass", "pass", "bid 10", "tournee")
    assert names(s) == ["declare D", "declare G", "passt"]  # "A jack gives declarer the choice"
    s = tournee_state()
    act(s, "guckser")
    assert s.phase == DISCARD and s.x.mode == GUCKSER_MODE
    s = tournee_state()
    act(s, "hand")
    assert "declare GHO" in names(s) and "declare NOH" in names(s) and "declare N" not in names(s)


def test_forehand_may_not_pass_but_plays_the_ramsch():
    s = SkatGame(variant="tournee").state_from_deal(*DEAL)
    act(s, "pass", "pass", "pass")
    assert s.phase == PLAY and s.contract is None
    while s.phase != DONE:
        s.apply_action(s.legal_actions()[0])
    assert sum(s.points) == 120 - 0 and s.scores == tournee_ramsch(s.points, s.tricks_won)
