"""The card play of ``agents.skat_play`` in numba form: null and Ramsch.

Each function mirrors the Python one of the same name, with the same float expressions in the same
order and the same tie-breaking (cards are visited lowest id first, as ``cards_of`` lists them; a
``max``/``min`` over cards keeps the first best, as Python's do). Suit games and grand are in
``trump_play``; ``kernel`` dispatches as ``choose_card`` does.
"""

from __future__ import annotations

import numpy as np

from agents.rule_skat_kernel.jit import inner
from agents.rule_skat_kernel.seen import (
    S_DECL,
    S_HAND,
    S_K,
    S_LEADER,
    S_LEGAL,
    S_OUT,
    S_TRICK,
    highest,
    lowest,
    p_any,
    trick_winner_index,
)
from envs.numba_bits import popcount
from envs.skat.cards import GRAND, NULL, NUM_CARDS


@inner
def _null_under(T, S: np.ndarray, r: int, c: int) -> float:
    """Chance seat r can stay under c (holds a lower card of its suit, or is void in it)."""
    pv = 1.0 - p_any(T, S, r, T.follow[NULL, c >> 3])
    return min(1.0, pv + p_any(T, S, r, T.lower[NULL, c]))


@inner
def _highest_rank(cards: int) -> int:
    """``max(cards_of(cards), key=lambda c: c & 7)``: the first card of the highest rank."""
    best = -1
    for c in range(NUM_CARDS):
        if cards >> c & 1 and (best < 0 or c & 7 > best & 7):
            best = c
    return best


@inner
def _null_throw(T, S: np.ndarray, cards: int) -> int:
    """The most endangered card; a card that guards higher ones of its suit is kept."""
    out, hand = S[S_OUT], S[S_HAND]
    best, best_d = -1, -99.0
    for c in range(NUM_CARDS):
        if not cards >> c & 1:
            continue
        lo = T.lower[NULL, c]
        d = popcount(out & lo) - popcount(hand & lo) - 2 * popcount(hand & T.higher[NULL, c])
        dd = d + 0.01 * (c & 7)
        if dd > best_d:
            best, best_d = c, dd
    return best


@inner
def null_declarer(T, S: np.ndarray) -> int:
    legal, k = S[S_LEGAL], S[S_K]
    if k == 0:
        best, best_r = -1, 9.0
        for c in range(NUM_CARDS):
            if not legal >> c & 1:
                continue
            risk = _null_under(T, S, 1, c) * _null_under(T, S, 2, c)
            if risk < best_r - 1e-9 or (abs(risk - best_r) <= 1e-9 and c & 7 > best & 7):
                best, best_r = c, risk
        return best
    e = S[S_TRICK] >> 3
    top = -1
    for i in range(k):
        c = S[S_TRICK + i]
        if c >> 3 == e and (top < 0 or c & 7 > top & 7):
            top = c
    if legal & T.follow[NULL, e]:
        under = legal & T.lower[NULL, top]
        if under:
            return highest(T, under, NULL)
        if k == 2:
            return highest(T, legal, NULL)
        return lowest(T, legal, NULL)
    return _null_throw(T, S, legal)


@inner
def null_defender(T, S: np.ndarray) -> int:
    legal, k, d = S[S_LEGAL], S[S_K], S[S_DECL]
    if k == 0:
        best, best_s = -1, -9.0
        for c in range(NUM_CARDS):
            if not legal >> c & 1:
                continue
            s = p_any(T, S, d, T.follow[NULL, c >> 3]) - p_any(T, S, d, T.lower[NULL, c]) - 0.01 * (c & 7)
            if s > best_s:
                best, best_s = c, s
        return best
    e = S[S_TRICK] >> 3
    suit = T.follow[NULL, e]
    wi = -1
    for i in range(k):
        c = S[S_TRICK + i]
        if c >> 3 == e and (wi < 0 or c & 7 > S[S_TRICK + wi] & 7):
            wi = i
    leader = S[S_LEADER]
    w_rel = (leader + wi) % 3
    decl_played = False
    for i in range(k):
        if (leader + i) % 3 == d:
            decl_played = True
    if decl_played:
        if w_rel == d and legal & suit:
            under = legal & T.lower[NULL, S[S_TRICK + wi]]
            return highest(T, under if under else legal, NULL)
        return highest(T, legal, NULL) if legal & suit else _highest_rank(legal)
    if legal & suit:
        return lowest(T, legal, NULL)
    return _highest_rank(legal)


@inner
def ramsch_play(T, S: np.ndarray) -> int:
    g, legal, k = GRAND, S[S_LEGAL], S[S_K]
    if k == 0:
        best, best_s = -1, 1e9
        for c in range(NUM_CARDS):
            if not legal >> c & 1:
                continue
            e = T.eff[g, c]
            p_win = 1.0
            for r in (1, 2):
                forced = max(0.0, p_any(T, S, r, T.follow[g, e]) - p_any(T, S, r, T.lower[g, c]))
                p_win *= 1.0 - forced
            pts = T.points[c]
            s = p_win * (pts + 8.0) - (1.0 - p_win) * 0.5 * pts
            if s < best_s:
                best, best_s = c, s
        return best
    w = S[S_TRICK + trick_winner_index(T, S)]
    safe = legal & ~T.beaters[g, w]
    if safe:  # the most points (a plain card before a trump) that stays under the trick; then the highest
        best, best_p = -1, 0.0
        for c in range(NUM_CARDS):
            if not safe >> c & 1:
                continue
            p = T.points[c] + (0.0 if T.trumps[g] >> c & 1 else 0.5)
            if best < 0 or p > best_p or (p == best_p and T.order[g, c] > T.order[g, best]):
                best, best_p = c, p
        return best
    if k == 2:  # min by (points, -order)
        best = -1
        for c in range(NUM_CARDS):
            if legal >> c & 1 and (best < 0 or T.points[c] < T.points[best] or (
                    T.points[c] == T.points[best] and -T.order[g, c] < -T.order[g, best])):
                best = c
        return best
    return lowest(T, legal, g)

