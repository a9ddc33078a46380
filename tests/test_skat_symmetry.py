"""Suit symmetries (envs.skat.symmetry): a deal with its suits relabelled is the same game, exactly."""

from __future__ import annotations

import random

import numpy as np
import pytest

from envs.skat.actions import PASS
from envs.skat.cards import CARD_NAMES, GRAND, NULL
from envs.skat.observation import observe
from envs.skat.rules import AUCTION, SkatState
from envs.skat.rules.game import SkatGame
from envs.skat.symmetry import card_map, spread, suit_permutations, suit_views


def test_the_permutations_of_each_game():
    assert [len(suit_permutations(g)) for g in range(6)] == [6, 6, 6, 6, 24, 24]
    for g in range(4):
        assert all(p[g] == g for p in suit_permutations(g))
    assert suit_permutations(0)[0] == (0, 1, 2, 3)
    jack_of_clubs, clubs_ace = CARD_NAMES.index("CJ"), CARD_NAMES.index("CA")
    swap = (1, 0, 2, 3)  # clubs <-> spades
    assert CARD_NAMES[card_map(swap, GRAND)[clubs_ace]] == "SA"
    assert card_map(swap, GRAND)[jack_of_clubs] == jack_of_clubs  # a trump in grand: stays
    assert CARD_NAMES[card_map(swap, NULL)[jack_of_clubs]] == "SJ"  # in null a plain card of its suit
    with pytest.raises(ValueError):
        suit_permutations(6)
    assert len(spread(suit_views(GRAND), 6)) == 6 and spread(suit_views(GRAND), 6)[0].perm == (0, 1, 2, 3)
    assert spread(suit_views(0), 24) == suit_views(0)


def random_action(state: SkatState, rng: random.Random) -> int:
    """A legal action at random, but low calls in the auction (half the time the lowest, else a pass), so
    that null games, worth 23 to 59, are declared too."""
    legal = state.legal_actions()
    if state.phase == AUCTION and len(legal) > 1:
        return min(legal) if rng.random() < 0.5 else PASS
    return rng.choice(legal)


def _random_deal(seed: int) -> tuple[list[int], list[int], int]:
    """A deck order and the actions of a deal played at random to its end (passed-in deals skipped)."""
    rng = random.Random(seed)
    while True:
        deck = list(range(32))
        rng.shuffle(deck)
        state = SkatGame().new_initial_state(deck=deck)
        actions = []
        while not state.is_terminal():
            actions.append(random_action(state, rng))
            state.apply_action(actions[-1])
        if not state.passed_in:
            return deck, actions, state.game_type


def test_the_deals_below_cover_suit_grand_and_null_games():
    assert {min(_random_deal(seed)[2], GRAND) for seed in range(12)} >= {0, GRAND} and \
        NULL in {_random_deal(seed)[2] for seed in range(12)}


@pytest.mark.parametrize("seed", range(12))
def test_a_relabelled_deal_replays_as_the_same_game(seed):
    """Every observation of the relabelled deal is the original's gathered, its legal actions the original's
    mapped, and its scores the same, for every view of the deal's game type."""
    deck, actions, game_type = _random_deal(seed)
    for view in suit_views(game_type):
        original = SkatGame().new_initial_state(deck=deck)
        relabelled = SkatGame().new_initial_state(deck=[int(view.card_map[c]) for c in deck])
        for action in actions:
            assert sorted(view.action_map[original.legal_actions()].tolist()) == sorted(relabelled.legal_actions())
            for seat in range(3):
                np.testing.assert_array_equal(observe(original, seat)[view.obs_gather], observe(relabelled, seat))
            original.apply_action(action)
            relabelled.apply_action(int(view.action_map[action]))
        assert original.returns() == relabelled.returns() and relabelled.game_type == game_type
