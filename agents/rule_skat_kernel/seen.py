"""``agents.skat_seen`` in numba form: what a seat knows at a card-play decision, and its odds.

The Python ``Seen`` object becomes one int64 row ``S`` (fields at the ``S_*`` offsets), filled by
:func:`fill_seen` from a decoded observation (``decode.decode_row``); the odds functions read it.
"""

from __future__ import annotations

import numpy as np

from agents.rule_skat_kernel.decode import (
    D_DECLARER,
    D_GAME_TYPE,
    D_HAND,
    D_LEADER,
    D_OPEN_HAND,
    D_PLAYED,
    D_RAMSCH,
    D_SKAT_PUT,
    D_TRICK,
    D_VOIDS,
)
from agents.rule_skat_kernel.jit import inner
from agents.rule_skat_kernel.tables import I_HAND_SIZE
from envs.numba_bits import popcount
from envs.skat.cards import FULL_DECK, NULL, NUM_CARDS, RAMSCH, TRUMP
from envs.skat.observation import NUM_EFFECTIVE_SUITS

(S_G, S_HAND, S_LEGAL, S_LEADER, S_DECL, S_OUT, S_CAND, S_NPOOL, S_SIZES, S_RAMSCH, S_K, S_TRICK) = (
    0, 1, 2, 3, 4, 5, 6, 9, 12, 15, 16, 17)
S_SIZE = S_TRICK + 3


@inner
def fill_seen(T, D: np.ndarray, legal: int, S: np.ndarray) -> None:
    """``skat_seen.seen``: the seat's knowledge, from the decoded row ``D``, into ``S``."""
    hand = D[D_HAND]
    ramsch = D[D_RAMSCH]
    g = RAMSCH if ramsch else D[D_GAME_TYPE]
    decl = -1 if ramsch else D[D_DECLARER]
    known_skat = D[D_SKAT_PUT] if decl == 0 else 0
    out = FULL_DECK & ~(hand | D[D_PLAYED] | D[D_PLAYED + 1] | D[D_PLAYED + 2] | known_skat)
    S[S_G], S[S_HAND], S[S_LEGAL], S[S_DECL], S[S_OUT], S[S_RAMSCH] = g, hand, legal, decl, out, ramsch
    S[S_CAND] = 0
    for r in (1, 2):
        cand = out
        for e in range(NUM_EFFECTIVE_SUITS):
            if D[D_VOIDS + r] >> e & 1:
                cand &= ~T.follow[g, e]
        S[S_CAND + r] = cand
    open_hand = D[D_OPEN_HAND]
    if open_hand and decl > 0:  # an ouvert declarer's hand is known exactly
        S[S_CAND + decl] = open_hand & out
        S[S_CAND + 3 - decl] &= ~open_hand
    for r in range(3):
        S[S_SIZES + r] = T.ints[I_HAND_SIZE] - popcount(D[D_PLAYED + r])
    S[S_NPOOL] = 0
    S[S_NPOOL + 1] = popcount(S[S_CAND + 1])
    S[S_NPOOL + 2] = popcount(S[S_CAND + 2])
    leader = D[D_LEADER]
    S[S_LEADER] = leader
    k = 0
    if leader >= 0:
        for i in range(3):
            x = D[D_TRICK + (leader + i) % 3]
            if x:
                S[S_TRICK + k] = _top_bit(x)
                k += 1
    S[S_K] = k


@inner
def _top_bit(x: int) -> int:
    """``x.bit_length() - 1``."""
    n = -1
    while x:
        x >>= 1
        n += 1
    return n


@inner
def p_holds_any(T, n_pool: int, k: int, h: int) -> float:
    """Chance a hand of ``h`` cards out of ``n_pool`` unknown ones holds one of ``k`` given cards."""
    if k <= 0 or h <= 0:
        return 0.0
    if h >= n_pool:
        return 1.0
    return 1.0 - T.voidp[n_pool, k, h]


@inner
def p_any(T, S: np.ndarray, r: int, cards: int) -> float:
    return p_holds_any(T, S[S_NPOOL + r], popcount(S[S_CAND + r] & cards), S[S_SIZES + r])


@inner
def p_void(T, S: np.ndarray, r: int, e: int) -> float:
    return 1.0 - p_any(T, S, r, T.follow[S[S_G], e])


@inner
def p_beat(T, S: np.ndarray, r: int, top: int, e: int) -> float:
    """Chance seat r (still to play) beats ``top`` in a trick led in effective suit ``e``."""
    g = S[S_G]
    cand, n, h = S[S_CAND + r], S[S_NPOOL + r], S[S_SIZES + r]
    suit = cand & T.follow[g, e]
    ns = popcount(suit)
    beat = T.beaters[g, top]
    if T.eff[g, top] == e:
        pf = p_holds_any(T, n, popcount(suit & beat), h)
        if e == TRUMP or g == NULL:
            return pf
        pv = 1.0 - p_holds_any(T, n, ns, h)
        if pv <= 0.0:
            return pf
        return pf + pv * p_holds_any(T, n - ns, popcount(cand & T.trumps[g]), h)
    pv = 1.0 - p_holds_any(T, n, ns, h)  # top ruffed a plain lead: r beats only by over-ruffing
    if pv <= 0.0:
        return 0.0
    return pv * p_holds_any(T, n - ns, popcount(cand & beat), h)


@inner
def team(S: np.ndarray, r: int) -> bool:
    decl = S[S_DECL]
    return r == 0 or (decl != 0 and r != decl)


@inner
def lowest(T, mask: int, g: int) -> int:
    best, bo = -1, 99
    for c in range(NUM_CARDS):
        if mask >> c & 1 and T.order[g, c] < bo:
            best, bo = c, T.order[g, c]
    return best


@inner
def highest(T, mask: int, g: int) -> int:
    best, bo = -1, -99
    for c in range(NUM_CARDS):
        if mask >> c & 1 and T.order[g, c] > bo:
            best, bo = c, T.order[g, c]
    return best


@inner
def trick_winner_index(T, S: np.ndarray) -> int:
    g = S[S_G]
    wi = 0
    for i in range(1, S[S_K]):
        if T.beaters[g, S[S_TRICK + wi]] >> S[S_TRICK + i] & 1:
            wi = i
    return wi

