"""``agents.skat_hand`` in numba form: the hand models, game values and the best discard.

Every function mirrors the Python one of the same name operation for operation, summing in the
same order, so that each float comes out bit for bit the same (the decisions compare floats, and a
last-bit difference would flip a tie). ``T`` is the :class:`~agents.rule_skat_kernel.tables.Tables`
of the caller and ``W`` its scratch rows (``kernel.Work``); card sets are int64 bit sets;
booleans travel as 0/1 ints.
"""

from __future__ import annotations

import math

import numpy as np

from agents.rule_skat_kernel.jit import inner
from agents.rule_skat_kernel.tables import F_SKAT_SHARE, I_TOTAL_POINTS, I_WIN_BONUS
from agents.skat_hand import _NO_JACK as NO_JACK
from envs.numba_bits import popcount
from envs.skat.cards import GRAND, JACK, NULL, NUM_CARDS

_NONE = -1e9  # the "nothing found yet" score of the searches (as in agents.skat_hand)


@inner
def first(x: int) -> int:
    """The lowest card id in ``x``; -1 for the empty set (as ``agents.rule_skat._first``)."""
    if x == 0:
        return -1
    n = 0
    while not (x >> n) & 1:
        n += 1
    return n


@inner
def points_of(T, cards: int) -> int:
    s = 0
    for c in range(NUM_CARDS):
        if cards >> c & 1:
            s += T.points[c]
    return s


@inner
def model_row(g: int, post: int) -> int:
    """The row of ``skat_hand.model(g, post)`` in the model tables: 2 * family + post."""
    family = 2 if g == NULL else (1 if g == GRAND else 0)
    return 2 * family + post


@inner
def jacks_of(hand: int) -> int:
    j = hand >> JACK
    return (j & 1) | (j >> 7 & 2) | (j >> 14 & 4) | (j >> 21 & 8)


@inner
def score(T, hand: int, g: int, post: int, fore: int, skat_points: float) -> float:
    row = model_row(g, post)
    bias, wf, ws = T.model[row, 0], T.model[row, 1], T.model[row, 2]
    f = 1.0 if fore else 0.0
    if g == NULL:
        t = T.null[row]
        s = bias + t[hand & 0xFF] + t[hand >> 8 & 0xFF] + t[hand >> 16 & 0xFF] + t[hand >> 24 & 0xFF]
        return s + wf * f
    nj = NO_JACK
    t = T.side[row]
    if g == GRAND:
        s = bias + T.jacks[row, jacks_of(hand)] + t[hand & nj] + t[hand >> 8 & nj] + t[hand >> 16 & nj]
        s += t[hand >> 24 & nj]
    else:
        s = bias + T.trump[row, jacks_of(hand) | (hand >> (8 * g) & 0xFF) << 4]
        for suit in range(4):
            if suit != g:
                s += t[hand >> (8 * suit) & nj]
    return s + wf * f + ws * skat_points


@inner
def prob(logit: float) -> float:
    if logit < -30:
        return 0.0
    return 1.0 / (1.0 + math.exp(-logit))


@inner
def skat_guess(T, hand: int) -> float:
    return (T.ints[I_TOTAL_POINTS] - points_of(T, hand)) / T.floats[F_SKAT_SHARE]


@inner
def matadors(T, cards: int, g: int) -> int:
    with_top = cards >> T.trump_seq[g, 0] & 1
    n = 0
    for i in range(T.seq_len[g]):
        if (cards >> T.trump_seq[g, i] & 1) != with_top:
            break
        n += 1
    return n


@inner
def expected_score(T, p: float, value: int) -> float:
    wb = T.ints[I_WIN_BONUS]
    return p * (value + wb) - (1.0 - p) * (2 * value + wb)


@inner
def game_ev(T, p: float, cards: int, g: int, hand_game: int, bid: int, skat_seen: int) -> float:
    base = T.base[g]
    wb = T.ints[I_WIN_BONUS]
    m = matadors(T, cards, g)
    value = base * (m + 1 + hand_game)
    charged = base * -(-bid // base)
    if value < bid:
        return -2.0 * charged - wb
    need = charged // base - hand_game
    ok = 1.0
    if not skat_seen and need > 2 and not cards >> T.trump_seq[g, 0] & 1:
        ok = T.keep_level[need - 1]
    return ok * expected_score(T, p, value) - (1.0 - ok) * (2.0 * charged + wb)


@inner
def bid_reach(T, p: float, cards: int, g: int, hand_game: int, margin: float) -> int:
    base = T.base[g]
    for level in range(matadors(T, cards, g) + 1, 1, -1):
        bid = base * (level + hand_game)
        if game_ev(T, p, cards, g, hand_game, bid, np.int64(0)) >= margin:
            return bid
    return 0


@inner
def null_safe(T, hand: int) -> bool:
    for s in range(4):
        if T.null_unsafe[hand >> (8 * s) & 0xFF]:
            return False
    return True


@inner
def ev(T, p: float, cards: int, g: int, hand_game: int, ouvert: int, bid: int, skat_seen: int) -> float:
    """``agents.rule_skat._ev``: a null below the bid cannot be declared."""
    if g == NULL:
        value = T.null_value[hand_game, ouvert]
        return expected_score(T, p, value) if value >= bid else -1000.0
    return game_ev(T, p, cards, g, hand_game, bid, skat_seen)


@inner
def _null_discard(T, hand: int, g: int, n_drop: int) -> tuple[int, float]:
    yes, no = np.int64(1), np.int64(0)  # typed ints: a literal argument would compile another copy of score
    best, best_s = 0, _NONE
    for a in range(NUM_CARDS):
        if not hand >> a & 1:
            continue
        if n_drop == 1:
            s = score(T, hand ^ (1 << a), g, yes, no, 0.0)
            if s > best_s:
                best, best_s = 1 << a, s
            continue
        for b in range(a + 1, NUM_CARDS):
            if hand >> b & 1:
                s = score(T, hand ^ (1 << a) ^ (1 << b), g, yes, no, 0.0)
                if s > best_s:
                    best, best_s = (1 << a) | (1 << b), s
    return best, best_s


@inner
def _lowest_trump(T, cards: int, g: int) -> int:
    """The first card of ``cards`` sorted by (order, points): what ``sorted(...)[0]`` takes."""
    best = -1
    for c in range(NUM_CARDS):
        if cards >> c & 1:
            if best < 0 or T.order[g, c] < T.order[g, best] or (
                    T.order[g, c] == T.order[g, best] and T.points[c] < T.points[best]):
                best = c
    return best


@inner
def best_discard(T, W, hand: int, g: int, n_drop: int) -> tuple[int, float]:
    """``skat_hand.best_discard``: the cards to put away and the post-model logit they leave."""
    if g == NULL:
        return _null_discard(T, hand, g, n_drop)
    yes, no = np.int64(1), np.int64(0)  # typed ints: a literal argument would compile another copy
    ws = T.model[model_row(g, 1), 2]
    side = hand & ~T.trumps[g]
    n_side = popcount(side)
    if n_side < n_drop:  # keep everything but the lowest trumps
        drop = side
        for _ in range(n_drop - n_side):
            c = _lowest_trump(T, hand & T.trumps[g] & ~drop, g)
            if c < 0:
                break
            drop |= 1 << c
        return drop, score(T, hand ^ drop, g, yes, no, 0.0) + ws * points_of(T, drop)
    t = T.side[model_row(g, 1)]
    nj = NO_JACK
    gain1, gain2 = W.gain[0], W.gain[1]  # per side suit: the best drop of one card and of two
    has1, drop1, has2, drop2 = W.pick[0], W.pick[1], W.pick[2], W.pick[3]
    k = 0
    for suit in range(4):
        if suit == g:
            continue
        has1[k] = has2[k] = 0
        b = hand >> (8 * suit) & nj
        base = t[b]
        for r in range(8):
            if not b >> r & 1:
                continue
            c = suit * 8 + r
            g1 = t[b ^ (1 << r)] - base + ws * T.points[c]
            if not has1[k] or g1 > gain1[k]:
                has1[k], gain1[k], drop1[k] = 1, g1, 1 << c
            if n_drop >= 2:
                for r2 in range(r + 1, 8):
                    if b >> r2 & 1:
                        c2 = suit * 8 + r2
                        g2 = t[b ^ (1 << r) ^ (1 << r2)] - base + ws * (T.points[c] + T.points[c2])
                        if not has2[k] or g2 > gain2[k]:
                            has2[k], gain2[k], drop2[k] = 1, g2, (1 << c) | (1 << c2)
        k += 1
    best_gain, best_drop = _NONE, 0
    if n_drop == 1:
        for i in range(k):
            if has1[i] and gain1[i] > best_gain:
                best_gain, best_drop = gain1[i], drop1[i]
    else:
        for i in range(k):
            if has2[i] and gain2[i] > best_gain:
                best_gain, best_drop = gain2[i], drop2[i]
            if has1[i]:
                for j in range(i + 1, k):
                    if has1[j] and gain1[i] + gain1[j] > best_gain:
                        best_gain, best_drop = gain1[i] + gain1[j], drop1[i] | drop1[j]
    return best_drop, score(T, hand ^ best_drop, g, yes, no, 0.0) + ws * points_of(T, best_drop)
