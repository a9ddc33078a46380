"""The Thirty-One rule agent for many games at once: the same decisions as ``RuleThirtyOneAgent.act``.

``act_arrays(observations, masks, rng)`` decides for a batch of classic-layout observations (stock
and discard pile; the table variants go game by game through ``act``) with numpy over the batch
instead of decoding each observation: the batched trainer and the evaluation tables give the rule
agent thousands of decisions per step. Every decision is one the per-game agent makes: only ties
between equally good discards, which both break at random, may fall differently (the test in
``tests/test_rule_thirtyone_arrays.py`` checks that over thousands of decisions).
"""

from __future__ import annotations

import numpy as np

from agents.rule_thirtyone_knock import KNOCK_CAP, KNOCK_FIRST_LAP, KNOCK_LATE, KNOCK_PER_LAP
from envs.thirtyone.actions import DRAW, KNOCK, LOOK, NUM_ACTIONS, TAKE, THROW_DOWN
from envs.thirtyone.cards import ACE, NUM_CARDS, RANK, SUIT, VALUE
from envs.thirtyone.layout import (
    ACTIVE,
    COUNTY,
    HAND,
    HELD_BY,
    LAP,
    LIVES,
    OBS_SIZE,
    SEATS,
    THREE_ACES,
    THREE_KIND,
    TOP,
)

_SUIT = np.asarray(SUIT)
_RANK = np.asarray(RANK)
_VALUE = np.asarray(VALUE)
_SUIT_VALUE = np.zeros((NUM_CARDS, 4), np.int64)  # a card's value in its suit's column
_SUIT_VALUE[np.arange(NUM_CARDS), _SUIT] = _VALUE
_SUIT_ONE_HOT = _SUIT_VALUE > 0  # a card's suit as a column
_FIRST_LAP = np.asarray([KNOCK_FIRST_LAP.get(p, KNOCK_LATE) for p in range(10)], np.float64)
_NEXT_HELD = HELD_BY  # relative seat 1 (the next player): the cards it was seen taking
_NONE = -1.0  # an option that is off


def _hand_values(cards: np.ndarray, three_kind: np.ndarray, three_aces: np.ndarray,
                 totals: np.ndarray | None = None) -> np.ndarray:
    """``scoring.hand_value`` of three-card hands ``cards`` [B, 3] (card ids), the options per game;
    ``totals`` [B, 4], the value held per suit, where the caller has it already."""
    if totals is None:
        totals = _SUIT_VALUE[cards].sum(axis=1)
    best = totals.max(axis=1).astype(np.float64)
    ranks = _RANK[cards]
    triple = (ranks[:, 0] == ranks[:, 1]) & (ranks[:, 1] == ranks[:, 2])
    aces = triple & (ranks[:, 0] == ACE) & (three_aces != _NONE)
    bonus = np.where(aces, three_aces, np.where(triple, three_kind, _NONE))
    return np.where(bonus != _NONE, np.maximum(best, bonus), best)


def _held(obs: np.ndarray, plane: int, size: int) -> np.ndarray:
    """The ids of the ``size`` cards of a card plane per game, in increasing order ([B, size])."""
    return np.argsort(obs[:, plane : plane + NUM_CARDS] <= 0.5, axis=1, kind="stable")[:, :size]  # held first


def act_arrays(obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The rule agent's actions (int64 [B]) for classic-layout observations [B, 1130] and masks [B, 57]."""
    obs = np.asarray(obs, np.float32)
    mask = np.asarray(mask, bool)
    if obs.ndim != 2 or obs.shape[1] != OBS_SIZE or mask.shape != (obs.shape[0], NUM_ACTIONS):
        raise ValueError(f"act_arrays takes classic Thirty-One observations [B, {OBS_SIZE}] and masks "
                         f"[B, {NUM_ACTIONS}], got {obs.shape} and {mask.shape}")
    n = obs.shape[0]
    actions = np.full(n, -1, np.int64)
    legal_count = mask.sum(axis=1)
    if (legal_count == 0).any():
        raise ValueError("act_arrays called with an empty action mask (no legal action)")
    actions[legal_count == 1] = mask[legal_count == 1].argmax(axis=1)
    todo = legal_count > 1
    show = todo & (mask[:, LOOK] | mask[:, THROW_DOWN])
    actions[show] = np.where(mask[show, LOOK], LOOK, THROW_DOWN)
    todo &= ~show
    # options and the table as the observation says them (decode's arithmetic, so equal thresholds)
    three_kind = np.round(obs[:, THREE_KIND].astype(np.float64) * 62) / 2
    three_kind[three_kind == 0] = _NONE
    three_aces = np.where(obs[:, THREE_ACES] > 0.5, 32.0, _NONE)
    turn = todo & (mask[:, DRAW] | mask[:, TAKE])
    if turn.any():
        actions[turn] = _turn(obs[turn], mask[turn], three_kind[turn], three_aces[turn])
    discard = todo & ~turn
    if discard.any():
        actions[discard] = _discard(obs[discard], mask[discard], three_kind[discard], three_aces[discard], rng)
    bad = ~mask[np.arange(n), np.maximum(actions, 0)] | (actions < 0)
    if bad.any():  # as ``act``: a move the mask forbids becomes a random legal one
        actions[bad] = np.where(mask[bad], rng.random(mask[bad].shape), -1.0).argmax(axis=1)
    return actions


def _turn(obs: np.ndarray, mask: np.ndarray, three_kind: np.ndarray, three_aces: np.ndarray) -> np.ndarray:
    """Draw, take or knock (``RuleThirtyOneAgent._turn``)."""
    hand = _held(obs, HAND, 3)
    now = _hand_values(hand, three_kind, three_aces)
    has_top = (obs[:, TOP : TOP + NUM_CARDS] > 0.5).any(axis=1)
    top = (obs[:, TOP : TOP + NUM_CARDS] > 0.5).argmax(axis=1)
    with_top = np.zeros(len(obs))
    for i in range(3):  # the top card in place of hand card i
        cards = hand.copy()
        cards[:, i] = top
        with_top = np.maximum(with_top, _hand_values(cards, three_kind, three_aces))
    with_top[~has_top] = 0.0
    players = np.maximum(np.round(obs[:, ACTIVE].astype(np.float64) * 9).astype(np.int64), 2)
    lap = np.floor(obs[:, LAP].astype(np.float64) * 10 + 1e-6)
    last_life = (obs[:, SEATS + COUNTY] > 0.5) | (obs[:, SEATS + LIVES].astype(np.float64) <= 1e-6)
    threshold = np.minimum(_FIRST_LAP[np.minimum(players, 9)] + KNOCK_PER_LAP * lap, KNOCK_CAP) - last_life
    take = mask[:, TAKE] & has_top
    return np.select(
        [take & (with_top >= 31), mask[:, KNOCK] & (now >= threshold), take & (with_top > now), mask[:, DRAW]],
        [TAKE, KNOCK, TAKE, DRAW],
        TAKE,
    )


def _discard(obs: np.ndarray, mask: np.ndarray, three_kind: np.ndarray, three_aces: np.ndarray,
             rng: np.random.Generator) -> np.ndarray:
    """The discard that leaves the best hand, then builds a suit, then feeds the next player least.

    ``RuleThirtyOneAgent._discard``'s sort key (value, cards of the building suit, their values,
    what the discard feeds) packed into one number per candidate; ties at random.
    """
    hand = _held(obs, HAND, 4)
    fed = (obs[:, _NEXT_HELD : _NEXT_HELD + NUM_CARDS] > 0.5) @ _SUIT_ONE_HOT  # [B, 4] suits seen taken
    rows = np.arange(len(obs))
    score = np.full((len(obs), 4), -np.inf)
    for i in range(4):  # throw hand card i
        card = hand[:, i]
        rest = np.delete(hand, i, axis=1)
        total = _SUIT_VALUE[rest].sum(axis=1)  # [B, 4]
        value = _hand_values(rest, three_kind, three_aces, total)
        suits, values = _SUIT[rest], _VALUE[rest]
        count = _SUIT_ONE_HOT[rest].sum(axis=1)  # [B, 4]
        # the building suit: most cards, then most value, then the lowest suit (``max`` over a set)
        building = (count * 64 + total).argmax(axis=1)
        in_suit = np.where(suits == building[:, None], values, 0)
        in_suit = -np.sort(-in_suit, axis=1)  # descending, zeros (other suits) last
        feeds = _VALUE[card] + np.where(fed[rows, _SUIT[card]], 5, 0)
        key = value * 2  # half points (30.5)
        key = key * 4 + count[rows, building]
        key = key * 1728 + (in_suit[:, 0] * 144 + in_suit[:, 1] * 12 + in_suit[:, 2])
        key = key * 32 + (31 - feeds)
        score[:, i] = np.where(mask[rows, card], key, -np.inf)
    best = score.max(axis=1, keepdims=True)
    pick = np.where(score == best, rng.random(score.shape), -1.0).argmax(axis=1)
    return hand[rows, pick]

