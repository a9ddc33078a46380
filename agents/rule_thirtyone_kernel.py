"""The batched Thirty-One rule agent's per-game work, compiled with numba: one loop over the batch.

``agents.rule_thirtyone_arrays.act_arrays`` checks the batch and draws the tie-breaking numbers;
:func:`sort_rows` makes the forced moves and the shows and marks the turns and the discards, which
:func:`decide` makes.
It is the arithmetic ``agents.rule_thirtyone`` does on decoded observations, done on the
observation row itself (``tests/test_rule_thirtyone_arrays.py`` compares the two, move for move).

numba keys its cache on this file alone, so everything read from other modules (the layout's
offsets, the card tables, the knock thresholds) arrives as arguments built by :func:`tables`:
a change there can never leave a stale compiled copy behind.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.rule_thirtyone_knock import knock_threshold
from envs.thirtyone.actions import DISCARD, DRAW, KNOCK, LOOK, TAKE, THROW_DOWN
from envs.thirtyone.cards import ACE, RANK, SUIT, VALUE
from envs.thirtyone.layout import (
    ACTIVE,
    COUNTY,
    HAND,
    HELD_BY,
    LAP,
    LIVES,
    MAX_SEATS,
    SEATS,
    THREE_ACES,
    THREE_KIND,
    TOP,
)

TURN, DISCARDS = 1, 2  # the row kinds decide() works on (others are decided by sort_rows)

# offsets into the observation row and the action ids, in this order in tables()[0]
_HAND, _TOP, _NEXT_HELD, _ACTIVE, _LAP, _COUNTY, _LIVES, _KIND, _ACES = range(9)
_DISCARD, _DRAW, _TAKE, _KNOCK, _ACE, _LOOK, _THROW_DOWN = range(9, 16)
_NONE = -1.0  # an option that is off
LAPS = 16  # the knock table's laps: from lap 15 on every threshold is at its cap


def tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The constants :func:`decide` reads: offsets and ids, suit, rank and value per card, and
    ``knock_threshold`` by players (0..9), lap (0..15) and last life (0, 1)."""
    ints = np.asarray([HAND, TOP, HELD_BY, ACTIVE, LAP, SEATS + COUNTY, SEATS + LIVES, THREE_KIND, THREE_ACES,
                       DISCARD, DRAW, TAKE, KNOCK, ACE, LOOK, THROW_DOWN], np.int64)
    cards = np.asarray([SUIT, RANK, VALUE], np.int64)
    knock = np.asarray([[[knock_threshold(players, lap, bool(last)) for last in (0, 1)] for lap in range(LAPS)]
                        for players in range(MAX_SEATS + 1)], np.float64)
    if not (knock[:, -1] == knock[:, -2]).all():
        raise ValueError(f"knock thresholds still rise after lap {LAPS - 2}: make LAPS larger")
    return ints, cards, knock


@njit(cache=True)
def _held(row: np.ndarray, plane: int, size: int, num_cards: int, out: np.ndarray) -> None:
    """The ``size`` lowest card ids of a card plane, then the lowest absent ones should it hold fewer."""
    n = 0
    for card in range(num_cards):
        if not row[plane + card] <= 0.5:
            out[n] = card
            n += 1
            if n == size:
                return
    for card in range(num_cards):
        if row[plane + card] <= 0.5:
            out[n] = card
            n += 1
            if n == size:
                return


@njit(cache=True)
def _value(cards: np.ndarray, totals: np.ndarray, three_kind: float, three_aces: float, ace: int,
           rank: np.ndarray) -> float:
    """``scoring.hand_value`` of three cards whose value per suit is ``totals``."""
    best = float(totals.max())
    r0, r1, r2 = rank[cards[0]], rank[cards[1]], rank[cards[2]]
    triple = r0 == r1 and r1 == r2
    bonus = _NONE
    if triple:
        bonus = three_aces if r0 == ace and three_aces != _NONE else three_kind
    return max(best, bonus) if bonus != _NONE else best


@njit(cache=True)
def _clear(values: np.ndarray) -> None:
    for k in range(values.shape[0]):  # a loop, not a slice: no array view to count references of
        values[k] = 0


@njit(cache=True)
def _three(cards: np.ndarray, three_kind: float, three_aces: float, ace: int, suit: np.ndarray,
           value: np.ndarray, rank: np.ndarray, totals: np.ndarray) -> float:
    _clear(totals)
    for j in range(3):
        totals[suit[cards[j]]] += value[cards[j]]
    return _value(cards, totals, three_kind, three_aces, ace, rank)


@njit(cache=True)
def sort_rows(mask: np.ndarray, ints: np.ndarray, kind: np.ndarray, out: np.ndarray) -> int:
    """Decide the rows with one legal move and the shows (look, throw down); mark the others ``TURN``
    or ``DISCARDS`` in ``kind``. Returns how many discard rows there are, or ``-1 - i`` for the
    first row ``i`` with no legal move."""
    discards = 0
    for i in range(mask.shape[0]):
        legal, first = 0, -1
        for a in range(mask.shape[1]):
            if mask[i, a]:
                legal += 1
                if first < 0:
                    first = a
        kind[i] = 0
        if legal == 0:
            return -1 - i
        if legal == 1:
            out[i] = first
        elif mask[i, ints[_LOOK]]:
            out[i] = ints[_LOOK]
        elif mask[i, ints[_THROW_DOWN]]:
            out[i] = ints[_THROW_DOWN]
        elif mask[i, ints[_DRAW]] or mask[i, ints[_TAKE]]:
            kind[i] = TURN
        else:
            kind[i] = DISCARDS
            discards += 1
    return discards


@njit(cache=True)
def illegal(mask: np.ndarray, out: np.ndarray) -> bool:
    """Whether any move in ``out`` is one its mask forbids."""
    for i in range(out.shape[0]):
        if out[i] < 0 or not mask[i, out[i]]:
            return True
    return False


@njit(cache=True)
def decide(obs: np.ndarray, mask: np.ndarray, kind: np.ndarray, randoms: np.ndarray, ints: np.ndarray,
           cards: np.ndarray, knock: np.ndarray, out: np.ndarray) -> None:
    """``out[i]``: the move for row ``i`` of kind ``TURN`` (draw, take or knock) or ``DISCARDS`` (the
    card to throw; ``randoms`` holds four tie-breaking numbers per such row, in row order)."""
    suit, rank, value = cards[0], cards[1], cards[2]
    num_cards, ace = cards.shape[1], ints[_ACE]
    hand, trial, rest = np.empty(4, np.int64), np.empty(3, np.int64), np.empty(3, np.int64)
    totals, count, fed = np.zeros(4, np.int64), np.zeros(4, np.int64), np.zeros(4, np.bool_)
    in_suit, score = np.zeros(3, np.int64), np.empty(4, np.float64)
    d = 0
    for i in range(obs.shape[0]):
        if kind[i] != TURN and kind[i] != DISCARDS:
            continue
        row = obs[i]
        # the options as the observation says them (decode's arithmetic, so equal thresholds)
        three_kind = np.rint(np.float64(row[ints[_KIND]]) * 62) / 2
        if three_kind == 0:
            three_kind = _NONE
        three_aces = 32.0 if row[ints[_ACES]] > 0.5 else _NONE
        if kind[i] == TURN:
            _held(row, ints[_HAND], 3, num_cards, hand)
            now = _three(hand, three_kind, three_aces, ace, suit, value, rank, totals)
            top, has_top = 0, False
            for card in range(num_cards):
                if row[ints[_TOP] + card] > 0.5:
                    top, has_top = card, True
                    break
            with_top = 0.0
            if has_top:
                for j in range(3):  # the top card in place of hand card j
                    for k in range(3):
                        trial[k] = hand[k]
                    trial[j] = top
                    with_top = max(with_top, _three(trial, three_kind, three_aces, ace, suit, value, rank, totals))
            players = max(np.int64(np.rint(np.float64(row[ints[_ACTIVE]]) * 9)), 2)
            lap = np.int64(np.floor(np.float64(row[ints[_LAP]]) * 10 + 1e-6))
            last_life = row[ints[_COUNTY]] > 0.5 or np.float64(row[ints[_LIVES]]) <= 1e-6
            threshold = knock[min(players, knock.shape[0] - 1), min(max(lap, 0), knock.shape[1] - 1),
                              1 if last_life else 0]
            take = mask[i, ints[_TAKE]] and has_top
            if take and with_top >= 31:
                out[i] = ints[_TAKE]
            elif mask[i, ints[_KNOCK]] and now >= threshold:
                out[i] = ints[_KNOCK]
            elif take and with_top > now:
                out[i] = ints[_TAKE]
            elif mask[i, ints[_DRAW]]:
                out[i] = ints[_DRAW]
            else:
                out[i] = ints[_TAKE]
            continue
        # the discard that leaves the best hand, then builds a suit, then feeds the next player least
        _held(row, ints[_HAND], 4, num_cards, hand)
        _clear(fed)
        for card in range(num_cards):  # suits the next player was seen taking
            if row[ints[_NEXT_HELD] + card] > 0.5:
                fed[suit[card]] = True
        best = -np.inf
        for j in range(4):  # throw hand card j
            card = hand[j]
            n = 0
            for k in range(4):
                if k != j:
                    rest[n] = hand[k]
                    n += 1
            _clear(totals)
            _clear(count)
            for k in range(3):
                totals[suit[rest[k]]] += value[rest[k]]
                count[suit[rest[k]]] += 1
            held = _value(rest, totals, three_kind, three_aces, ace, rank)
            building = 0  # most cards, then most value, then the lowest suit
            for s in range(1, 4):
                if count[s] * 64 + totals[s] > count[building] * 64 + totals[building]:
                    building = s
            for k in range(3):
                in_suit[k] = value[rest[k]] if suit[rest[k]] == building else 0
            for a in range(3):  # descending
                for b in range(2 - a):
                    if in_suit[b] < in_suit[b + 1]:
                        in_suit[b], in_suit[b + 1] = in_suit[b + 1], in_suit[b]
            feeds = value[card] + (5 if fed[suit[card]] else 0)
            key = held * 2  # half points (30.5)
            key = key * 4 + count[building]
            key = key * 1728 + (in_suit[0] * 144 + in_suit[1] * 12 + in_suit[2])
            key = key * 32 + (31 - feeds)
            score[j] = key if mask[i, ints[_DISCARD] + card] else -np.inf
            best = max(best, score[j])
        pick, tie = 0, -2.0
        for j in range(4):  # ties at random
            r = randoms[d, j] if score[j] == best else -1.0
            if r > tie:
                pick, tie = j, r
        out[i] = ints[_DISCARD] + hand[pick]
        d += 1
