"""The suit-game and grand card play of ``agents.skat_play`` in numba form: following a trick by
expected value, and the declarer's and defenders' leads.

Each function mirrors the Python one of the same name, with the same float expressions in the same
order and the same tie-breaking (cards are visited lowest id first, as ``cards_of`` lists them; a
later card replaces the best only when strictly better, as there). The named constants come from
``agents.skat_play`` through the tables; the numbers written inline are the ones written inline there.
"""

from __future__ import annotations

import numpy as np

from agents.rule_skat_kernel.jit import inner
from agents.rule_skat_kernel.seen import (
    S_CAND,
    S_DECL,
    S_G,
    S_HAND,
    S_K,
    S_LEADER,
    S_LEGAL,
    S_NPOOL,
    S_OUT,
    S_SIZES,
    S_TRICK,
    highest,
    p_any,
    p_beat,
    p_holds_any,
    p_void,
    team,
    trick_winner_index,
)
from agents.rule_skat_kernel.tables import (
    F_DEF_CASH,
    F_DEF_PARTNER_RUFF,
    F_DEF_TRUMP_LEAD,
    F_KEEP_TRUMP,
    F_KEEP_TRUMP_POINTS,
    F_KEEP_TRUMP_RANK,
    F_RESPONSE,
    F_WAY,
    I_DRAW_ALWAYS,
)
from envs.numba_bits import popcount
from envs.skat.cards import JACK, NUM_CARDS, TEN


@inner
def ruff_risk(T, S: np.ndarray, e: int, r_first: int, r_last: int) -> float:
    """``_ruff_risk`` over the seats ``r_first..r_last``: the chance one of them is void in e and
    holds a trump."""
    g = S[S_G]
    risk = 0.0
    for r in range(r_first, r_last + 1):
        pv = p_void(T, S, r, e)
        if pv > 0.0:
            ns = popcount(S[S_CAND + r] & T.follow[g, e])
            x = pv * p_holds_any(T, S[S_NPOOL + r] - ns, popcount(S[S_CAND + r] & T.trumps[g]), S[S_SIZES + r])
            if x > risk:
                risk = x
    return risk


@inner
def keep_value(T, S: np.ndarray, c: int) -> float:
    """What card c is worth kept in hand, in card points."""
    g, out, hand = S[S_G], S[S_OUT], S[S_HAND]
    trumps = T.trumps[g]
    pts = T.points[c]
    if trumps >> c & 1:
        v = T.floats[F_KEEP_TRUMP] + T.floats[F_KEEP_TRUMP_POINTS] * pts + T.floats[F_KEEP_TRUMP_RANK] * T.trump_rank[c]
        if c & 7 == JACK:
            v += 2.0 + (3 - (c >> 3)) * 0.5
        if not T.higher[g, c] & out:
            v += 3.0
        if not out & trumps:
            v = 4.0 + 0.5 * pts
        return v
    e = T.eff[g, c]
    mine = hand & T.follow[g, e]
    n_mine = popcount(mine)
    if not T.higher[g, c] & out:  # boss of its suit: a later trick, unless an opponent ruffs it
        risk = 0.0
        if out & trumps:
            decl = S[S_DECL]
            risk = ruff_risk(T, S, e, np.int64(1), np.int64(2)) if decl == 0 else ruff_risk(T, S, e, decl, decl)
        v = (1.0 - risk) * (4.0 + 0.6 * pts) - risk * 0.8 * pts
    elif c & 7 == TEN:
        v = 3.0 if n_mine >= 2 else 0.5
    else:
        v = 0.5
        ten = (c & ~7) | TEN
        if mine >> ten & 1 and T.higher[g, ten] & out and n_mine <= 3:
            v = 3.0  # the guard of a ten whose ace is out
    if n_mine == 1 and hand & trumps:
        v -= 2.0  # freeing the suit lets us ruff it
    return v


@inner
def follow_trump_game(T, S: np.ndarray) -> int:
    g, k, legal = S[S_G], S[S_K], S[S_LEGAL]
    t0 = S[S_TRICK]
    e = T.eff[g, t0]
    wi = trick_winner_index(T, S)
    w = S[S_TRICK + wi]
    w_rel = (S[S_LEADER] + wi) % 3
    tp = T.points[t0] + (T.points[S[S_TRICK + 1]] if k > 1 else 0)
    after = k == 1  # seat 1 still plays to the trick
    opp_after = after and not team(S, 1)
    mate_after = after and team(S, 1)
    extra = T.floats[F_RESPONSE] if after else 0.0
    w_beaters = T.beaters[g, w]
    w_ours = team(S, w_rel)
    best, best_v = -1, -1e9
    for c in range(NUM_CARDS):
        if not legal >> c & 1:
            continue
        if w_beaters >> c & 1:
            p = 1.0
            if opp_after:
                p *= 1.0 - p_beat(T, S, 1, c, e)
        elif w_ours:
            p = 1.0
            if opp_after:
                p *= 1.0 - p_beat(T, S, 1, w, e)
        else:
            p = 0.0
            if mate_after:
                p = p_beat(T, S, 1, w, e)
        v = (2.0 * p - 1.0) * (tp + T.points[c] + extra) - keep_value(T, S, c)
        if v > best_v or (v == best_v and T.order[g, c] < T.order[g, best]):
            best, best_v = c, v
    return best


@inner
def _cheapest(T, cards: int, g: int) -> int:
    """``min(cards_of(cards), key=lambda c: (POINTS[c], order[c]))``."""
    best = -1
    for c in range(NUM_CARDS):
        if cards >> c & 1:
            if best < 0 or T.points[c] < T.points[best] or (
                    T.points[c] == T.points[best] and T.order[g, c] < T.order[g, best]):
                best = c
    return best


@inner
def lead_declarer(T, S: np.ndarray) -> int:
    g, hand, out = S[S_G], S[S_HAND], S[S_OUT]
    trumps = T.trumps[g]
    my_tr = hand & trumps
    opp_tr = popcount(out & trumps)
    if my_tr and opp_tr:
        top = highest(T, my_tr, g)
        if not T.higher[g, top] & out:
            return top
        n_tr = popcount(my_tr)
        if (n_tr >= opp_tr and n_tr >= 2) or n_tr >= T.ints[I_DRAW_ALWAYS]:  # draw with the cheapest trump
            return _cheapest(T, my_tr, g)
    best, best_s = -1, -1e9
    for c in range(NUM_CARDS):
        if not hand >> c & 1:
            continue
        pts = T.points[c]
        if trumps >> c & 1:
            if not opp_tr:  # sure tricks: kept to ruff with while side losers are given up
                s = -10.0 + pts * 0.1
            elif not T.higher[g, c] & out:
                s = 12.0
            else:
                s = -8.0 - pts
        else:
            e = T.eff[g, c]
            risk = ruff_risk(T, S, e, np.int64(1), np.int64(2)) if opp_tr else 0.0
            if not T.higher[g, c] & out:
                s = 20.0 + pts * (1.0 - 2.5 * risk) - 10.0 * risk
            elif c & 7 == TEN:
                s = -25.0
            else:
                n_mine = popcount(hand & T.follow[g, e])
                s = -pts - 0.1 * T.order[g, c]
                if n_mine == 1 and my_tr:
                    s += 3.0
                ten = (c & ~7) | TEN
                if hand >> ten & 1 and T.higher[g, ten] & out and n_mine <= 2:
                    s -= 5.0  # keep the ten guarded
                s -= 5.0 * risk
        if s > best_s:
            best, best_s = c, s
    return best


@inner
def lead_defender(T, S: np.ndarray) -> int:
    g, hand, out = S[S_G], S[S_HAND], S[S_OUT]
    trumps = T.trumps[g]
    d = S[S_DECL]
    partner = 3 - d
    decl_tr = p_any(T, S, d, trumps)
    way = T.floats[F_WAY]
    best, best_s = -1, -1e9
    for c in range(NUM_CARDS):
        if not hand >> c & 1:
            continue
        pts = T.points[c]
        boss = not T.higher[g, c] & out
        if trumps >> c & 1:
            s = T.floats[F_DEF_TRUMP_LEAD] - pts - 0.1 * T.order[g, c]
            if decl_tr == 0.0:
                s = 5.0 if boss else -5.0 - pts
        else:
            e = T.eff[g, c]
            suit = T.follow[g, e]
            p_dv = p_void(T, S, d, e)
            ruff = p_dv * decl_tr
            n_mine = popcount(hand & suit)
            if boss:
                s = T.floats[F_DEF_CASH] + pts - (40.0 + 2 * pts) * ruff
            else:
                s = -pts - 0.1 * T.order[g, c]
                if not S[S_CAND + partner] & suit and S[S_CAND + partner] & trumps:
                    s += T.floats[F_DEF_PARTNER_RUFF] * (1.0 - p_dv)  # the partner ruffs it
                s -= 25.0 * ruff
                if c & 7 == TEN:
                    s -= 15.0
                s += way * n_mine if d == 1 else -way * n_mine
                ten = (c & ~7) | TEN
                if hand >> ten & 1 and T.higher[g, ten] & out and n_mine <= 2:
                    s -= 4.0
        if s > best_s:
            best, best_s = c, s
    return best

