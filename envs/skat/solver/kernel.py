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

from envs.skat.solver.bits import (  # noqa: F401  (re-exported: the kernel's public constants)
    _DEBRUIJN_TABLE,
    ABORTED,
    EMPTY,
    MODE_NULL,
    MODE_POINTS,
    MODE_TRICKS,
    P_GEN,
    P_LAST_BONUS,
    P_LIMIT,
    P_MODE,
    P_SOLO,
    P_SOLO_MAX,
    S_HIST,
    S_NODES,
    S_TT_HITS,
    STATS_SIZE,
    TT_BITS,
    TT_SIZE,
    _beats,
    _low_index,
    _mask_points,
    _popcount,
    _slot,
    new_table,
)

# Columns of the explicit search stack (one row per ply; numba cannot cache recursive functions,
# numba issue #6061, so the search keeps its own stack).
F_MOVES = 0  # 0..9: the moves of the node, best first
F_NM, F_K, F_A, F_B, F_A0, F_B0, F_BEST, F_BM, F_MAX, F_GAIN, F_KEY, F_SLOT, F_P, F_N, F_LEAD = range(10, 25)
F_TC = 25  # 25..27: the cards of the current trick
F_CARD = 28  # the card being tried
F_COLS = 29
MAX_PLY = 33


@njit(cache=True)
def _enter(F, d, h, eff, order, follow, seq, pts, ptsb, params, tt_key, tt_lo, tt_hi, tt_best, stats):
    """Set up node ``d`` of the stack (its trick, leader and window already in ``F[d]``).

    Returns (True, value) when the node is decided without search (end of the deal, a quick
    cut-off, a transposition-table bound), else (False, 0) with the moves ordered in ``F[d]``."""
    mode = params[P_MODE]
    solo = params[P_SOLO]
    solo_max = params[P_SOLO_MAX]
    stats[S_NODES] += 1
    n = F[d, F_N]
    leader = F[d, F_LEAD]
    alpha = F[d, F_A]
    beta = F[d, F_B]
    tt_move = -1
    F[d, F_KEY] = -1
    if n == 0:
        rem = h[0] | h[1] | h[2]
        if rem == 0:
            return True, (1 if mode == MODE_NULL else 0)
        if mode == MODE_POINTS:
            top = _mask_points(rem, ptsb) + params[P_LAST_BONUS]
        elif mode == MODE_TRICKS:
            top = _popcount(h[leader])
        else:
            top = 1
        if alpha >= top:
            return True, top
        if beta <= 0:
            return True, 0
        if h[leader] & (h[leader] - 1) == 0:
            # the last trick: every card is forced
            c0 = _low_index(h[leader], _DEBRUIJN_TABLE)
            c1 = _low_index(h[(leader + 1) % 3], _DEBRUIJN_TABLE)
            c2 = _low_index(h[(leader + 2) % 3], _DEBRUIJN_TABLE)
            wi, wc = 0, c0
            if _beats(c1, wc, eff, order):
                wi, wc = 1, c1
            if _beats(c2, wc, eff, order):
                wi = 2
            won = (leader + wi) % 3 == solo
            if mode == MODE_NULL:
                return True, (0 if won else 1)
            if not won:
                return True, 0
            if mode == MODE_TRICKS:
                return True, 1
            return True, pts[c0] + pts[c1] + pts[c2] + params[P_LAST_BONUS]
        key = rem | (leader << 32) | (params[P_GEN] << 34)
        slot = _slot(rem, leader)
        for s in range(slot, slot + 2):
            if tt_key[s] == key:
                stats[S_TT_HITS] += 1
                lo = np.int64(tt_lo[s])
                hi = np.int64(tt_hi[s])
                if lo >= beta:
                    return True, lo
                if hi <= alpha:
                    return True, hi
                if lo == hi:
                    return True, lo
                if lo > alpha:
                    alpha = lo
                if hi < beta:
                    beta = hi
                tt_move = tt_best[s]
                break
        F[d, F_KEY] = key
        F[d, F_SLOT] = slot
    elif mode == MODE_POINTS:
        top = _mask_points(h[0] | h[1] | h[2], ptsb) + params[P_LAST_BONUS]
        for i in range(n):
            top += pts[F[d, F_TC + i]]
        if alpha >= top:
            return True, top
        if beta <= 0:
            return True, 0
    F[d, F_A] = alpha
    F[d, F_B] = beta
    F[d, F_A0] = alpha
    F[d, F_B0] = beta
    p = (leader + n) % 3
    F[d, F_P] = p
    hand = h[p]
    legal = hand
    t0 = F[d, F_TC]
    if n > 0:
        f = hand & follow[eff[t0]]
        if f:
            legal = f
    maximizing = (p == solo) == (solo_max == 1)
    F[d, F_MAX] = 1 if maximizing else 0
    F[d, F_BEST] = -1 if maximizing else 1 << 20
    F[d, F_K] = 0

    # --- moves: one card per class of equivalent cards ---------------------------------------
    live = h[0] | h[1] | h[2]
    for i in range(n):
        live |= 1 << F[d, F_TC + i]
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
            F[d, F_MOVES + nm] = c
            nm += 1
            prev_in = True
            prev_pts = pts[c]
        else:
            prev_in = False
    F[d, F_NM] = nm
    F[d, F_BM] = F[d, F_MOVES]

    # --- move ordering -----------------------------------------------------------------------
    if nm > 1:
        scores = np.empty(10, dtype=np.int64)
        wcard = -1
        wpos = -1
        tpts = 0
        if n > 0:
            wcard = t0
            wi = 0
            for i in range(1, n):
                x = F[d, F_TC + i]
                if _beats(x, wcard, eff, order):
                    wcard = x
                    wi = i
            wpos = (leader + wi) % 3
            for i in range(n):
                tpts += pts[F[d, F_TC + i]]
        for k in range(nm):
            c = F[d, F_MOVES + k]
            if c == tt_move:
                scores[k] = 1 << 20
                continue
            if mode == MODE_NULL:
                if n == 0:
                    scores[k] = -order[c] if p == solo else order[c]
                    continue
                w = p if _beats(c, wcard, eff, order) else wpos
                good = (w == solo) != maximizing
                scores[k] = (1000 if good else 0) + (order[c] if p == solo else -order[c])
                continue
            # Who takes the trick if the players after this one answer greedily (with all hands open):
            # each overtakes with its cheapest winning card when the trick goes to the other side.
            if n == 0:
                lead = c
                w, wc = p, c
            else:
                lead = t0
                if _beats(c, wcard, eff, order):
                    w, wc = p, c
                else:
                    w, wc = wpos, wcard
            fl = follow[eff[lead]]
            for j in range(n + 1, 3):
                q = (leader + j) % 3
                if (w == solo) == (q == solo):
                    continue
                hq = h[q]
                lq = hq & fl
                if not lq:
                    lq = hq
                over = -1
                while lq:
                    x = _low_index(lq, _DEBRUIJN_TABLE)
                    lq &= lq - 1
                    if _beats(x, wc, eff, order) and (over < 0 or order[x] < order[over] or eff[over] != eff[x]):
                        over = x
                if over >= 0:
                    w, wc = q, over
            good = (w == solo) == maximizing
            if good:
                scores[k] = 1000 + 10 * (tpts + pts[c]) - order[c]
            else:
                scores[k] = -10 * pts[c] - order[c]
            scores[k] = scores[k] * 4096 + min(stats[S_HIST + p * 32 + c], 4095)
        for a in range(1, nm):  # insertion sort, best first
            mc, ms = F[d, F_MOVES + a], scores[a]
            b = a - 1
            while b >= 0 and scores[b] < ms:
                F[d, F_MOVES + b + 1] = F[d, F_MOVES + b]
                scores[b + 1] = scores[b]
                b -= 1
            F[d, F_MOVES + b + 1] = mc
            scores[b + 1] = ms
    return False, 0


@njit(cache=True)
def _store(F, d, tt_key, tt_lo, tt_hi, tt_best):
    """Record the result of a finished trick-start node as bounds in the transposition table."""
    key = F[d, F_KEY]
    slot = F[d, F_SLOT]
    best = F[d, F_BEST]
    lo = -(1 << 14)
    hi = 1 << 14
    s = -1
    if tt_key[slot] == key:
        s = slot
    elif tt_key[slot + 1] == key:
        s = slot + 1
    if s >= 0:  # keep what an existing entry of this key already proved
        lo = np.int64(tt_lo[s])
        hi = np.int64(tt_hi[s])
    else:  # replace: the first slot keeps the entry with more cards left (costlier to recompute)
        s = slot
        k0 = tt_key[slot]
        if k0 != EMPTY and _popcount(k0 & 0xFFFFFFFF) > _popcount(key & 0xFFFFFFFF):
            s = slot + 1
    if best <= F[d, F_A0]:
        if best < hi:
            hi = best
    elif best >= F[d, F_B0]:
        if best > lo:
            lo = best
    else:
        lo = best
        hi = best
    tt_key[s] = key
    tt_lo[s] = lo
    tt_hi[s] = hi
    tt_best[s] = F[d, F_BM]


@njit(cache=True, inline="always")
def _update(F, d, v):
    """Fold a child's value into node d (the card tried is ``F[d, F_CARD]``)."""
    if F[d, F_MAX]:
        if v > F[d, F_BEST]:
            F[d, F_BEST] = v
            F[d, F_BM] = F[d, F_CARD]
        if F[d, F_BEST] > F[d, F_A]:
            F[d, F_A] = F[d, F_BEST]
    else:
        if v < F[d, F_BEST]:
            F[d, F_BEST] = v
            F[d, F_BM] = F[d, F_CARD]
        if F[d, F_BEST] < F[d, F_B]:
            F[d, F_B] = F[d, F_BEST]


@njit(cache=True)
def search(h, tc, n, leader, alpha, beta, eff, order, follow, seq, pts, ptsb, params,
           tt_key, tt_lo, tt_hi, tt_best, stats):
    """Value of the node (see the module docstring), fail-soft within (alpha, beta).

    ``h``: the three hands (bit sets, by position), changed and restored in place; ``tc``: the
    cards of the current trick in play order (``n`` of them), ``leader`` who led it."""
    mode = params[P_MODE]
    solo = params[P_SOLO]
    F = np.empty((MAX_PLY, F_COLS), dtype=np.int64)
    F[0, F_N] = n
    F[0, F_LEAD] = leader
    F[0, F_A] = alpha
    F[0, F_B] = beta
    for i in range(3):
        F[0, F_TC + i] = tc[i]
    done, v = _enter(F, 0, h, eff, order, follow, seq, pts, ptsb, params, tt_key, tt_lo, tt_hi, tt_best, stats)
    if done:
        return v
    d = 0
    limit = params[P_LIMIT]
    while True:
        if stats[S_NODES] > limit:
            return ABORTED
        k = F[d, F_K]
        if k < F[d, F_NM] and F[d, F_A] < F[d, F_B]:
            c = F[d, F_MOVES + k]
            F[d, F_K] = k + 1
            F[d, F_CARD] = c
            p = F[d, F_P]
            h[p] ^= 1 << c
            nn = F[d, F_N]
            e = d + 1
            if nn < 2:
                F[e, F_N] = nn + 1
                F[e, F_LEAD] = F[d, F_LEAD]
                F[e, F_TC] = F[d, F_TC]
                F[e, F_TC + 1] = F[d, F_TC + 1]
                F[e, F_TC + nn] = c
                F[e, F_A] = F[d, F_A]
                F[e, F_B] = F[d, F_B]
                F[d, F_GAIN] = 0
            else:
                c0, c1 = F[d, F_TC], F[d, F_TC + 1]
                wi = 0
                wc = c0
                if _beats(c1, c0, eff, order):
                    wi = 1
                    wc = c1
                if _beats(c, wc, eff, order):
                    wi = 2
                winner = (F[d, F_LEAD] + wi) % 3
                gain = 0
                if mode == MODE_NULL:
                    if winner == solo:  # the null declarer took a trick: lost, nothing to search
                        h[p] ^= 1 << c
                        _update(F, d, 0)
                        continue
                elif winner == solo:
                    if mode == MODE_POINTS:
                        gain = pts[c0] + pts[c1] + pts[c]
                        if (h[0] | h[1] | h[2]) == 0:
                            gain += params[P_LAST_BONUS]
                    else:
                        gain = 1
                F[d, F_GAIN] = gain
                F[e, F_N] = 0
                F[e, F_LEAD] = winner
                F[e, F_A] = F[d, F_A] - gain
                F[e, F_B] = F[d, F_B] - gain
            done, v = _enter(F, e, h, eff, order, follow, seq, pts, ptsb, params, tt_key, tt_lo, tt_hi, tt_best,
                             stats)
            if done:
                h[p] ^= 1 << c
                _update(F, d, v + F[d, F_GAIN])
            else:
                d = e
            continue
        # node d is finished
        v = F[d, F_BEST]
        if F[d, F_KEY] >= 0:
            _store(F, d, tt_key, tt_lo, tt_hi, tt_best)
        if F[d, F_K] < F[d, F_NM]:  # a cut-off: remember the card that caused it
            stats[S_HIST + F[d, F_P] * 32 + F[d, F_BM]] += 1
        if d == 0:
            return v
        d -= 1
        h[F[d, F_P]] ^= 1 << F[d, F_CARD]
        _update(F, d, v + F[d, F_GAIN])


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
        if g == ABORTED:
            return g
        if g < b:
            hi = g
        else:
            lo = g
    return g
