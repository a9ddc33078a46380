"""The suit symmetries of a Skat game: relabelling suits that the declared game treats alike.

Every suit has the same ranks and card points, so a deal whose suits are renamed is the same game
wherever the contract does not single one out: in a suit game the three plain suits can be swapped
(6 ways, the trump suit stays), in a grand or a Ramsch the four suits while the jacks, trumps in a
fixed order, stay (24 ways), and in a null game the four whole suits, jacks included (24 ways). The
auction, the card play, the scores and every observation follow the relabelling exactly (a test
replays deals under it), so a network may be asked about any of these views of its position and
its answers mapped back: :class:`agents.endgame_expert.EndgameExpertNetwork`'s ``suit_views``.

A view is a suit permutation ``perm`` (``perm[s]`` is the suit that suit ``s`` becomes). Its card map
sends card ``c`` to ``card_map[c]``; its observation gather sends a vector ``obs`` (layout ``skat3``)
to the view's vector ``obs[obs_gather]``; its action map sends action ``a`` of the position to the
view's ``action_map[a]``, so a view's per-action values ``v`` read back as ``v[:, action_map]``.
"""

from __future__ import annotations

import itertools
from functools import cache
from typing import NamedTuple

import numpy as np

from envs.skat import observation as layout
from envs.skat.actions import DISCARD, NUM_ACTIONS, PLAY
from envs.skat.cards import GRAND, JACK, NULL, NUM_CARDS

NUM_SUITS = 4
_CARD_PLANES = layout.SCALAR_OFFSET // NUM_CARDS  # hand, skat put/taken, played x3, trick x3, open hand


class SuitView(NamedTuple):
    perm: tuple[int, ...]
    card_map: np.ndarray  # (32,) int64: card -> its card in the view
    obs_gather: np.ndarray  # (OBSERVATION_SIZE,) int64: view vector = obs[obs_gather]
    action_map: np.ndarray  # (NUM_ACTIONS,) int64: action -> the view's action


def suit_permutations(game_type: int) -> list[tuple[int, ...]]:
    """The suit relabellings that leave ``game_type`` (0..3 the suit games, 4 grand or Ramsch, 5 null) the
    same game, the identity first."""
    if not 0 <= game_type <= NULL:
        raise ValueError(f"game type must be 0..5 (clubs, spades, hearts, diamonds, grand, null), got {game_type}")
    every = list(itertools.permutations(range(NUM_SUITS)))
    return every if game_type >= GRAND else [p for p in every if p[game_type] == game_type]


def card_map(perm: tuple[int, ...], game_type: int) -> np.ndarray:
    """Card -> card under the suit permutation; jacks stay where they are trumps (every game but null)."""
    out = np.arange(NUM_CARDS, dtype=np.int64)
    for c in range(NUM_CARDS):
        if game_type == NULL or c & 7 != JACK:
            out[c] = perm[c >> 3] * 8 + (c & 7)
    return out


@cache
def suit_views(game_type: int) -> tuple[SuitView, ...]:
    """Every view of ``game_type`` (:func:`suit_permutations`), the identity first."""
    views = []
    for perm in suit_permutations(game_type):
        cards = card_map(perm, game_type)
        inverse = np.argsort(cards)
        gather = np.arange(layout.OBSERVATION_SIZE, dtype=np.int64)
        for plane in range(_CARD_PLANES):
            gather[plane * NUM_CARDS:(plane + 1) * NUM_CARDS] = plane * NUM_CARDS + inverse
        # shown voids, per relative seat: effective suits C S H D (renamed) then trump (kept)
        for seat in range(3):
            base = layout.VOIDS + seat * layout.NUM_EFFECTIVE_SUITS
            for s in range(NUM_SUITS):
                gather[base + perm[s]] = base + s
        actions = np.arange(NUM_ACTIONS, dtype=np.int64)
        actions[DISCARD:DISCARD + NUM_CARDS] = DISCARD + cards
        actions[PLAY:PLAY + NUM_CARDS] = PLAY + cards
        views.append(SuitView(tuple(perm), cards, gather, actions))
    return tuple(views)


def stack(views: tuple[SuitView, ...] | list[SuitView]) -> tuple[np.ndarray, np.ndarray]:
    """The views' observation gathers (V, OBSERVATION_SIZE) and action maps (V, NUM_ACTIONS) as two arrays."""
    return np.stack([v.obs_gather for v in views]), np.stack([v.action_map for v in views])


@cache
def stacked_views() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every view of every game type in one table, for drawing a random view per row of a batch: the
    observation gathers and action maps (:func:`stack`), and per game type 0..5 its first row and its
    number of views."""
    views = [suit_views(g) for g in range(NULL + 1)]
    counts = np.array([len(v) for v in views], dtype=np.int64)
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    return (*stack([view for game in views for view in game]), first, counts)


def spread(views: tuple[SuitView, ...], count: int) -> tuple[SuitView, ...]:
    """``count`` of ``views``: the identity and others spread evenly over the list (all of them when there are
    no more)."""
    if count < 1:
        raise ValueError(f"at least one view (the position itself), got {count}")
    if count >= len(views):
        return views
    picks = sorted({round(i * len(views) / count) for i in range(count)})
    return tuple(views[i] for i in picks)
