"""Property tests over many random deals: the invariants every Skat deal must keep."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from envs.skat.cards import FULL_DECK, NULL, POINTS, cards_of
from envs.skat.observation import observe
from envs.skat.rules import PLAY, SkatGame, deal_from_deck

GAMES = {
    "default": SkatGame(),
    "options": SkatGame(scoring="classic", kontra=True, ramsch=True),
}
seeds = st.integers(min_value=0, max_value=2**32 - 1)


@settings(max_examples=200, deadline=None)
@given(st.permutations(list(range(32))))
def test_every_card_dealt_once(deck):
    hands, skat = deal_from_deck(deck)
    assert [h.bit_count() for h in hands] == [10, 10, 10] and skat.bit_count() == 2
    assert hands[0] | hands[1] | hands[2] | skat == FULL_DECK
    assert hands[0] & hands[1] == 0 and hands[1] & hands[2] == 0 and (hands[0] | hands[1] | hands[2]) & skat == 0


@settings(max_examples=150, deadline=None)
@given(seeds, st.sampled_from(sorted(GAMES)))
def test_random_deal_invariants(seed, which):
    rng = random.Random(seed)
    s = GAMES[which].new_initial_state(seed)
    while s.current_player >= 0:
        legal = s.legal_actions()
        assert legal, "the player to act must always have a legal action"
        held = s.hands[0] | s.hands[1] | s.hands[2]
        played = s.played[0] | s.played[1] | s.played[2]
        assert held & played == 0 and held & s.skat == 0
        assert held | played | s.skat == FULL_DECK  # no card lost or duplicated
        s.apply_action(legal[rng.randrange(len(legal))])
    if s.passed_in:
        assert s.returns() == [0.0, 0.0, 0.0]
        return
    skat_points = sum(POINTS[c] for c in cards_of(s.skat))
    if s.contract is None:  # Ramsch: the skat went to the last trick
        assert sum(s.points) == 120
    elif s.contract.game != NULL or s.trick_count == 10:
        assert sum(s.points) + skat_points == 120
    if s.outcome is not None:
        assert s.outcome.declarer_points == s.points[s.declarer] + skat_points


def _hidden_reshuffle(s, p, rng):
    """A copy of ``s`` in which every card ``p`` cannot see is dealt differently."""
    t = s.clone()
    visible_to_p = {p}
    if t.contract is not None and t.contract.ouvert and t.phase >= PLAY:
        visible_to_p.add(t.declarer)
    others = [q for q in range(3) if q not in visible_to_p]
    pool = [c for q in others for c in cards_of(t.hands[q])]
    skat_hidden = not (t.declarer == p and t.skat_taken)
    if skat_hidden:
        pool += cards_of(t.skat)
    rng.shuffle(pool)
    for q in others:
        n = t.hands[q].bit_count()
        t.hands[q] = sum(1 << c for c in pool[:n])
        pool = pool[n:]
    if skat_hidden:
        t.skat = sum(1 << c for c in pool)
        t.original_skat = t.skat if not t.skat_taken else t.original_skat
    return t


@settings(max_examples=150, deadline=None)
@given(seeds, st.integers(min_value=0, max_value=45))
def test_observations_leak_no_hidden_card(seed, steps):
    rng = random.Random(seed)
    s = GAMES["options"].new_initial_state(seed)
    for _ in range(steps):
        if s.current_player < 0:
            break
        legal = s.legal_actions()
        s.apply_action(legal[rng.randrange(len(legal))])
    for p in range(3):
        t = _hidden_reshuffle(s, p, rng)
        np.testing.assert_array_equal(observe(s, p), observe(t, p))
