"""Game values and scores: the worked examples of the rule texts, as unit tests."""

from __future__ import annotations

import pytest

from envs.skat.actions import CONTRACT_BY_LABEL, CONTRACTS
from envs.skat.cards import CLUBS, GRAND, HEARTS, parse_cards
from envs.skat.scoring import matadors, ramsch_scores, seat_scores, settle


def contract(label: str):
    return CONTRACTS[CONTRACT_BY_LABEL[label]]


EXAMPLE_HAND = parse_cards("CJ DJ HA HT HK H8 H7 D9 D8 D7") | parse_cards("SA SQ")


def test_hearts_example_is_worth_20():
    # with 1 (CJ, no SJ), game 2 -> 2 x 10
    assert matadors(HEARTS, EXAMPLE_HAND) == 1
    out = settle(contract("H"), 18, EXAMPLE_HAND, declarer_points=70, declarer_tricks=6)
    assert out.won and out.value == 20 and out.multiplier == 2


def test_same_hand_as_grand_is_worth_48():
    assert matadors(GRAND, EXAMPLE_HAND) == 1
    out = settle(contract("G"), 18, EXAMPLE_HAND, declarer_points=70, declarer_tricks=6)
    assert out.won and out.value == 48


def test_hearts_hand_schneider_announced_95_points_is_110():
    cards = parse_cards("CJ SJ HJ HA HT HK H8 H7 CT C7") | parse_cards("DJ SQ")
    assert matadors(HEARTS, cards) == 7  # four jacks + A T K of hearts
    out = settle(contract("HHS"), 18, cards, declarer_points=95, declarer_tricks=8)
    # with 7, game 8, hand 9, schneider 10, announced 11 -> 11 x 10
    assert out.won and out.value == 110 and out.declarer_score == 110


def test_overbid_clubs_without_two_becomes_with_one():
    # Bid 30 expecting clubs "without 2" (36); the skat brings CJ: with 1, game 2 -> 24 < 30.
    cards = parse_cards("HJ DJ CA CT CK CQ C9 SA ST HA") | parse_cards("CJ S7")
    assert matadors(CLUBS, cards) == 1
    out = settle(contract("C"), 30, cards, declarer_points=80, declarer_tricks=7)
    assert out.overbid and not out.won
    assert out.value == 36  # lowest multiple of 12 reaching 30
    assert out.declarer_score == -72


def test_overbid_is_saved_by_schneider():
    cards = parse_cards("HJ DJ CA CT CK CQ C9 SA ST HA") | parse_cards("CJ S7")
    out = settle(contract("C"), 30, cards, declarer_points=95, declarer_tricks=8)
    assert out.won and out.value == 36 and not out.overbid


def test_grand_with_two_won_with_78_is_72():
    cards = parse_cards("CJ SJ DJ CA CT SA ST HA HT DA") | parse_cards("C7 S7")
    assert matadors(GRAND, cards) == 2
    out = settle(contract("G"), 18, cards, declarer_points=78, declarer_tricks=7)
    assert out.won and out.value == 72


def test_null_ouvert_lost_is_minus_92():
    cards = parse_cards("C7 C8 C9 S7 S8 S9 H7 H8 D7 D8") | parse_cards("DA DK")
    out = settle(contract("NO"), 30, cards, declarer_points=0, declarer_tricks=1)
    assert not out.won and out.value == 46 and out.declarer_score == -92


@pytest.mark.parametrize("label,value", [("N", 23), ("NH", 35), ("NO", 46), ("NOH", 59)])
def test_null_values(label, value):
    out = settle(contract(label), 18, parse_cards("C7 C8"), 0, 0)
    assert out.won and out.value == value


def test_without_matadors_count_like_with():
    cards = parse_cards("HJ DJ CA CT CK CQ C9 SA ST HA") | parse_cards("D7 S7")  # no CJ, no SJ: without 2
    assert matadors(CLUBS, cards) == -2
    out = settle(contract("C"), 18, cards, declarer_points=61, declarer_tricks=5)
    assert out.won and out.value == 36


def test_declarer_at_60_loses_and_30_is_schneider_against():
    cards = parse_cards("CJ SJ HJ DJ CA CT CK CQ C9 C8") | parse_cards("D7 S7")
    lost = settle(contract("C"), 18, cards, declarer_points=60, declarer_tricks=5)
    assert not lost.won and lost.value == 12 * 11  # with 10 (four jacks, A T K Q 9 8), game 11
    assert lost.multiplier == 11 and lost.declarer_score == -264
    schneidered = settle(contract("C"), 18, cards, declarer_points=30, declarer_tricks=3)
    assert schneidered.schneider and schneidered.multiplier == 12


def test_announced_schneider_that_fails_still_counts():
    cards = parse_cards("CJ SJ HA HT HK H8 H7 CT C7 D7") | parse_cards("DJ SQ")
    out = settle(contract("HHS"), 18, cards, declarer_points=85, declarer_tricks=7)
    # with 2, game 3, hand 4, schneider (counted as announced) 5, announced 6 -> 60, lost double
    assert not out.won and out.value == 60 and out.declarer_score == -120


def test_schwarz_announced_and_ouvert_levels():
    cards = parse_cards("CJ SJ HJ DJ CA CT CK CQ C9 C8") | parse_cards("C7 SA")
    out = settle(contract("CHO"), 18, cards, declarer_points=120, declarer_tricks=10)
    # with 11, game 12, hand 13, schneider 14, announced 15, schwarz 16, announced 17, ouvert 18
    assert out.won and out.multiplier == 18 and out.value == 216


def test_highest_grand_is_264():
    cards = parse_cards("CJ SJ HJ DJ CA CT SA ST HA HT") | parse_cards("DA DT")
    out = settle(contract("GHO"), 264, cards, declarer_points=120, declarer_tricks=10)
    assert out.won and out.value == 264


def test_kontra_and_re_double():
    cards = EXAMPLE_HAND
    out = settle(contract("H"), 18, cards, declarer_points=70, declarer_tricks=6, doubling=4)
    assert out.declarer_score == 80


def test_tournament_and_classic_scores():
    won = settle(contract("G"), 18, EXAMPLE_HAND, 70, 6)
    lost = settle(contract("G"), 18, EXAMPLE_HAND, 50, 4)
    assert seat_scores(won, 1, "classic") == [0, 48, 0]
    assert seat_scores(lost, 1, "classic") == [0, -96, 0]
    assert seat_scores(won, 1, "tournament") == [0, 98, 0]
    assert seat_scores(lost, 1, "tournament") == [40, -146, 40]
    with pytest.raises(ValueError, match="scoring"):
        seat_scores(won, 0, "bierlachs")


def test_ramsch_scores():
    assert ramsch_scores([50, 40, 30], [4, 3, 3]) == [-50, 0, 0]
    assert ramsch_scores([70, 50, 0], [6, 4, 0]) == [-140, 0, 0]  # one Jungfrau doubles
    assert ramsch_scores([120, 0, 0], [10, 0, 0]) == [120, 0, 0]  # Durchmarsch
    assert ramsch_scores([45, 45, 30], [4, 3, 3]) == [-45, -45, 0]  # ties lose alike
