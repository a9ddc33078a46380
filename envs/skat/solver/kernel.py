"""The compiled hot path of the double-dummy solver: fail-soft alpha-beta over card play (numba).

Everything is plain int64 arithmetic on bit sets (card ids of ``envs.skat.cards``); the trick
tables of the game type come in as arrays built from ``envs.skat.cards`` (``tables``), so no rule
is copied here. ``search`` returns the *value of the rest of the deal* seen from a node:

* ``MODE_POINTS``: card points the *solo* player (the declarer) takes from here on, plus
  ``last_bonus`` (Ramsch: the skat) when the solo player wins the last trick;
* ``MODE_TRICKS``: tricks the solo player takes from here on;
* ``MODE_NULL``: 1 when the solo player (the null declarer) takes no further trick, else 0.

The solo player maximises the value when ``solo_max`` is 1 (declarer games) and minimises it when
it is 0 (Ramsch seen paranoidly: one player against the two others); the other two do the
opposite. The transposition table holds, per (cards still in the hands, leader of the trick),
bounds on that value; it is only used at trick starts, where the value does not depend on the
cards already played. Entries carry a generation number in the key, so a new deal or question
starts clean without clearing the table.

Per node: quick cut-offs (the value lies in [0, what is left]), transposition-table bounds and
best first card, equivalent-card reduction (cards of one hand adjacent in the effective suit with
no live card between them and the same card points are one move), and move ordering (the table's
move, then cards that win the trick for the mover's side, richest first, then cheap discards).
"""

from __future__ import annotations

import numpy as np
from numba import njit

MODE_POINTS, MODE_TRICKS, MODE_NULL = 0, 1, 2
TT_BITS = 20
TT_SIZE = 1 << TT_BITS
EMPTY = -1
# params: mode, solo, solo_max, last_bonus, generation
P_MODE, P_SOLO, P_SOLO_MAX, P_LAST_BONUS, P_GEN = range(5)
# stats: nodes, tt hits
S_NODES, S_TT_HITS = 0, 1

_DEBRUIJN = 0x03F79D71B4CB0A89
_DEBRUIJN_TABLE = np.array(
    [0, 1, 48, 2, 57, 49, 28, 3, 61, 58, 50, 42, 38, 29, 17, 4, 62, 55, 59, 36, 53, 51, 43, 22, 45, 39, 33,
     30, 24, 18, 12, 5, 63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11, 46, 26, 40, 15, 34,
     20, 31, 10, 25, 14, 19, 9, 13, 8, 7, 6], dtype=np.int64)


def new_table() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """An empty transposition table: keys, lower bounds, upper bounds, best first card."""
    return (np.full(TT_SIZE, EMPTY, dtype=np.int64), np.zeros(TT_SIZE, dtype=np.int16),
            np.zeros(TT_SIZE, dtype=np.int16), np.full(TT_SIZE, -1, dtype=np.int8))


@njit(cache=True, inline="always")
def _popcount(x: int) -> int:
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True, inline="always")
def _low_index(x: int, table: np.ndarray) -> int:
    low = x & -x
    return table[((low * _DEBRUIJN) >> 58) & 63]


@njit(cache=True, inline="always")
def _mask_points(m: int, ptsb: np.ndarray) -> int:
    return ptsb[m & 0xFF] + ptsb[(m >> 8) & 0xFF] + ptsb[(m >> 16) & 0xFF] + ptsb[(m >> 24) & 0xFF]


@njit(cache=True, inline="always")
def _beats(c: int, b: int, eff: np.ndarray, order: np.ndarray) -> bool:
    """Card c, played after b, beats it (higher in the same effective suit, or a trump on a plain card)."""
    ec, eb = eff[c], eff[b]
    if ec == eb:
        return order[c] > order[b]
    return ec == 4 and eb != 4


@njit(cache=True, inline="always")
def _slot(rem: int, leader: int) -> int:
    x = (rem * 0x9E3779B1 + leader * 0x85EBCA6B) & 0x7FFFFFFFFFFFFFFF
    return ((x ^ (x >> 23)) & (TT_SIZE - 1)) & ~1


@njit(cache=True)
def search(h, tc, n, leader, alpha, beta, eff, order, follow, seq, pts, ptsb, params,
           tt_key, tt_lo, tt_hi, tt_best, stats):
    """Value of the node (see the module docstring), fail-soft within (alpha, beta).

    ``h``: the three hands (bit sets, by position), changed and restored in place; ``tc``: the
    cards of the current trick in play order (``n`` of them), ``leader`` who led it."""
    mode = params[P_MODE]
    solo = params[P_SOLO]
    solo_max = params[P_SOLO_MAX]
    stats[S_NODES] += 1
    key = -1
    slot = 0
    tt_move = -1
    alpha0, beta0 = alpha, beta
    if n == 0:
        rem = h[0] | h[1] | h[2]
        if rem == 0:
            return 1 if mode == MODE_NULL else 0
        if mode == MODE_POINTS:
            top = _mask_points(rem, ptsb) + params[P_LAST_BONUS]
        elif mode == MODE_TRICKS:
            top = _popcount(h[leader])
        else:
            top = 1
        if alpha >= top:
            return top
        if beta <= 0:
            return 0
        key = rem | (leader << 32) | (params[P_GEN] << 34)
        slot = _slot(rem, leader)
        for s in range(slot, slot + 2):
            if tt_key[s] == key:
                stats[S_TT_HITS] += 1
                lo, hi = tt_lo[s], tt_hi[s]
                if lo >= beta:
                    return lo
                if hi <= alpha:
                    return hi
                if lo > alpha:
                    alpha = lo
                if hi < beta:
                    beta = hi
                if lo == hi:
                    return lo
                tt_move = tt_best[s]
                slot = s
                break
        alpha0, beta0 = alpha, beta
    p = (leader + n) % 3
    hand = h[p]
    legal = hand
    if n > 0:
        f = hand & follow[eff[tc[0]]]
        if f:
            legal = f
    t0, t1 = tc[0], tc[1]
    maximizing = (p == solo) == (solo_max == 1)

    # --- moves: one card per class of equivalent cards ---------------------------------------
    live = h[0] | h[1] | h[2]
    for i in range(n):
        live |= 1 << tc[i]
    moves = np.empty(10, dtype=np.int64)
    scores = np.empty(10, dtype=np.int64)
    nm = 0
    prev_in = False
    prev_pts = -1
    prev_suit = -1
    use_points = mode == MODE_POINTS
    for i in range(32):
        c = seq[i]
        bit = 1 << c
        if not live & bit:
            continue
        s = eff[c]
        if s != prev_suit:
            prev_in = False
            prev_suit = s
        if legal & bit:
            if prev_in and (not use_points or pts[c] == prev_pts):
                continue
            moves[nm] = c
            nm += 1
            prev_in = True
            prev_pts = pts[c]
        else:
            prev_in = False

    # --- move ordering -----------------------------------------------------------------------
    if nm > 1:
        wcard = -1
        wpos = -1
        tpts = 0
        if n > 0:
            wi = 0
            for i in range(1, n):
                if _beats(tc[i], tc[wi], eff, order):
                    wi = i
            wcard = tc[wi]
            wpos = (leader + wi) % 3
            for i in range(n):
                tpts += pts[tc[i]]
        for k in range(nm):
            c = moves[k]
            if c == tt_move:
                scores[k] = 1 << 20
                continue
            if n == 0:
                # lead: the top live card of its suit first (a likely winner), then low cards
                boss = True
                for j in range(32):
                    x = seq[j]
                    if eff[x] == eff[c] and order[x] > order[c] and (live >> x) & 1 and not (hand >> x) & 1:
                        boss = False
                        break
                if mode == MODE_NULL:
                    scores[k] = -order[c] if p == solo else order[c]
                elif boss:
                    scores[k] = 100 + pts[c]
                else:
                    scores[k] = -10 * pts[c] - order[c]
                continue
            w = p if _beats(c, wcard, eff, order) else wpos
            if mode == MODE_NULL:
                good = (w == solo) != maximizing
            else:
                good = (w == solo) == maximizing
            if good:
                scores[k] = 1000 + 10 * (tpts + pts[c]) - (order[c] if w == p else 0)
            else:
                scores[k] = -10 * pts[c] - order[c]
        for a in range(1, nm):  # insertion sort, best first
            mc, ms = moves[a], scores[a]
            b = a - 1
            while b >= 0 and scores[b] < ms:
                moves[b + 1] = moves[b]
                scores[b + 1] = scores[b]
                b -= 1
            moves[b + 1] = mc
            scores[b + 1] = ms

    # --- search ------------------------------------------------------------------------------
    best = -1 if maximizing else 1 << 20
    best_move = moves[0]
    for k in range(nm):
        c = moves[k]
        bit = 1 << c
        h[p] ^= bit
        tc[0], tc[1] = t0, t1
        tc[n] = c
        if n < 2:
            v = search(h, tc, n + 1, leader, alpha, beta, eff, order, follow, seq, pts, ptsb, params,
                       tt_key, tt_lo, tt_hi, tt_best, stats)
        else:
            wi = 0
            if _beats(tc[1], tc[0], eff, order):
                wi = 1
            if _beats(tc[2], tc[wi], eff, order):
                wi = 2
            winner = (leader + wi) % 3
            if mode == MODE_NULL:
                if winner == solo:
                    v = 0
                else:
                    v = search(h, tc, 0, winner, alpha, beta, eff, order, follow, seq, pts, ptsb, params,
                               tt_key, tt_lo, tt_hi, tt_best, stats)
            else:
                gain = 0
                if winner == solo:
                    if mode == MODE_POINTS:
                        gain = pts[tc[0]] + pts[tc[1]] + pts[tc[2]]
                        if (h[0] | h[1] | h[2]) == 0:
                            gain += params[P_LAST_BONUS]
                    else:
                        gain = 1
                v = gain + search(h, tc, 0, winner, alpha - gain, beta - gain, eff, order, follow, seq, pts,
                                  ptsb, params, tt_key, tt_lo, tt_hi, tt_best, stats)
        h[p] ^= bit
        if maximizing:
            if v > best:
                best = v
                best_move = c
            if best > alpha:
                alpha = best
        else:
            if v < best:
                best = v
                best_move = c
            if best < beta:
                beta = best
        if alpha >= beta:
            break
    tc[0], tc[1] = t0, t1

    if key >= 0:
        lo = -1 << 14
        hi = 1 << 14
        # keep what an existing entry of this key already proved
        s = -1
        if tt_key[slot] == key:
            s = slot
        elif tt_key[slot + 1] == key:
            s = slot + 1
        if s >= 0:
            lo, hi = tt_lo[s], tt_hi[s]
        else:
            # replace: slot 0 keeps the entry with more cards left (costlier to recompute)
            s = slot
            k0 = tt_key[slot]
            if k0 != EMPTY and _popcount(k0 & 0xFFFFFFFF) > _popcount(key & 0xFFFFFFFF):
                s = slot + 1
        if best <= alpha0:
            if best < hi:
                hi = best
        elif best >= beta0:
            if best > lo:
                lo = best
        else:
            lo = best
            hi = best
        tt_key[s] = key
        tt_lo[s] = lo
        tt_hi[s] = hi
        tt_best[s] = best_move
    return best


@njit(cache=True)
def mtd(h, tc, n, leader, guess, lower, upper, eff, order, follow, seq, pts, ptsb, params,
        tt_key, tt_lo, tt_hi, tt_best, stats):
    """The exact value in [lower, upper] by MTD(f): null-window searches converging from ``guess``."""
    g = guess
    lo, hi = lower, upper
    while lo < hi:
        b = g if g > lo else lo + 1
        g = search(h, tc, n, leader, b - 1, b, eff, order, follow, seq, pts, ptsb, params,
                   tt_key, tt_lo, tt_hi, tt_best, stats)
        if g < b:
            hi = g
        else:
            lo = g
    return g
