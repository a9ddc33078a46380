"""The Ramsch family: Schieberamsch, the Jungfrau and Durchmarsch alternatives, tens, Gewinner-Ramsch, Ramsch only."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from envs.skat import actions as A
from envs.skat.cards import JACK_MASK, card
from envs.skat.pack import PACK32, RAMSCH_LOW
from envs.skat.rules import DISCARD, DONE, PLAY, SCHIEBEN, SkatGame
from envs.skat.scoring import ramsch_result, ramsch_scores
from tests.skat_helpers import act

DEAL = (["CJ SJ HJ DJ CA CT CK CQ C9 C8", "SA ST SK SQ S9 S8 S7 HA HT HK", "HQ H9 H8 H7 DA DT DK DQ D9 D8"], "C7 D7")


def test_highest_loses_its_points_doubled_by_a_jungfrau():
    assert ramsch_result([50, 40, 30], [4, 3, 3]) == [-50, 0, 0]
    assert ramsch_result([60, 60, 0], [5, 5, 0]) == [-120, -120, 0]  # tied players alike, doubled by the Jungfrau
    assert ramsch_result([60, 60, 0], [5, 5, 0], jungfrau=False) == [-60, -60, 0]


def test_every_players_points_deducted():
    # "the player with the highest number of card points (or alternatively, every player)"
    assert ramsch_result([50, 40, 30], [4, 3, 3], "all") == [-50, -40, -30]
    assert ramsch_result([70, 50, 0], [6, 4, 0], "all") == [-140, -100, 0]


def test_fixed_15_or_20_with_two_jungfrauen():
    # "a fixed value of 15 negative points to the loser and if there are two 'virgins', 20"
    assert ramsch_result([50, 40, 30], [4, 3, 3], "fixed") == [-15, 0, 0]
    assert ramsch_result([70, 50, 0], [6, 4, 0], "fixed") == [-15, 0, 0]
    assert ramsch_result([120, 0, 0], [10, 0, 0], "fixed", durchmarsch=False) == [-20, 0, 0]
    assert ramsch_result([120, 0, 0], [10, 0, 0], "fixed") == [120, 0, 0]  # with the Durchmarsch rule it wins


def test_durchmarsch_and_gewinner():
    assert ramsch_result([120, 0, 0], [10, 0, 0]) == [120, 0, 0]
    assert ramsch_result([120, 0, 0], [10, 0, 0], durchmarsch=False) == [-480, 0, 0]
    # Gewinner-Ramsch: "the winner is who achieves the lowest score and is awarded 23 points"; ties both
    assert ramsch_result([60, 40, 20], [4, 3, 3], "gewinner") == [0, 0, 23]
    assert ramsch_result([80, 20, 20], [6, 2, 2], "gewinner", win_bonus=50) == [0, 73, 73]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 120), min_size=3, max_size=3), st.integers(0, 10), st.integers(0, 10))
def test_the_default_rules_are_the_isko_tables_ramsch(points, a, b):
    tricks = [a, min(b, 10 - a), 10 - a - min(b, 10 - a)]  # ten tricks in all
    assert ramsch_result(points, tricks) == ramsch_scores(points, tricks)


def _all_pass(s):
    act(s, "pass", "pass", "pass")


def test_schieberamsch_take_exchange_push_and_no_jacks_passed_on():
    g = SkatGame(variant="schieberamsch")
    s = g.state_from_deal(*DEAL)
    _all_pass(s)
    assert s.phase == SCHIEBEN and s.current_player == 0
    assert [A.ALL_ACTION_NAMES[a] for a in s.legal_actions()] == ["pickup", "pass"]
    act(s, "pickup")
    assert s.phase == DISCARD and s.hands[0].bit_count() == 12
    legal = {A.card_of_discard(a) for a in s.legal_actions()}
    assert not any(JACK_MASK >> c & 1 for c in legal)  # "Jacks are not allowed to be passed on"
    act(s, "discard CA", "discard CT")
    assert s.phase == SCHIEBEN and s.current_player == 1 and s.skat == (1 << card("CA")) | (1 << card("CT"))
    act(s, "pass", "pass")  # middlehand and rearhand push the skat on untouched: doubled twice
    assert s.phase == PLAY and s.x.pushes == 2


def test_each_push_doubles_the_ramsch():
    s = SkatGame(variant="schieberamsch").state_from_deal(*DEAL)
    _all_pass(s)
    act(s, "pass", "pass", "pass")  # all three push the skat on untouched: 2 x 2 x 2
    plain = SkatGame(ramsch=True).state_from_deal(*DEAL)
    _all_pass(plain)
    rng = random.Random(3)
    while s.phase != DONE:
        a = s.legal_actions()[rng.randrange(len(s.legal_actions()))]
        s.apply_action(a)
        plain.apply_action(a)
    assert s.scores == [8 * x for x in plain.scores] and any(plain.scores)


def test_tens_below_queen_and_king_counting_ten_or_one():
    assert PACK32.order[RAMSCH_LOW][card("ST")] < PACK32.order[RAMSCH_LOW][card("SQ")] < PACK32.order[RAMSCH_LOW][
        card("SK")]
    assert PACK32.trick_winner(RAMSCH_LOW, [card("ST"), card("SK"), card("S9")]) == 1
    for tens, total in (("low", 120), ("one", 84)):
        s = SkatGame(ramsch=True, ramsch_tens=tens).state_from_deal(*DEAL)
        _all_pass(s)
        assert s.play_game == RAMSCH_LOW
        rng = random.Random(1)
        while s.phase != DONE:
            s.apply_action(s.legal_actions()[rng.randrange(len(s.legal_actions()))])
        assert sum(s.points) == total


def test_gewinner_ramsch_gives_the_skat_to_the_highest():
    # "The skat is given to the player with the highest score."
    hands = ["CJ SJ HJ DJ C7 CT CK CQ C9 C8", "SA ST SK SQ S9 S8 S7 HA HT HK", "HQ H9 H8 H7 DA D7 DK DQ D9 D8"]
    for seed in range(20):
        s = SkatGame(variant="gewinner_ramsch").state_from_deal(hands, "CA DT")
        _all_pass(s)
        rng = random.Random(seed)
        while s.phase != DONE:
            s.apply_action(s.legal_actions()[rng.randrange(len(s.legal_actions()))])
        final = s.x.ramsch_points
        assert sum(final) == 120
        top = [q for q in range(3) if final[q] == max(final)]
        assert final[top[0]] >= 21  # CA and DT (21 points) went to the highest
        low = min(final)
        assert s.scores == [23 + 50 if p == low else 0 for p in final]  # 23 and the won game (+50)


def test_ramsch_only_starts_with_the_play_or_the_schieben():
    s = SkatGame(variant="ramsch_only").new_initial_state(0)
    assert s.phase == PLAY and s.current_player == 0 and s.contract is None
    s = SkatGame(variant="ramsch_only", schieberamsch=True).new_initial_state(0)
    assert s.phase == SCHIEBEN
