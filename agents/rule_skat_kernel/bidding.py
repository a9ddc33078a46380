"""The decisions of ``agents.rule_skat`` before card play, in numba form: auction, skat, discard,
declaration, Kontra and Re.

Each function mirrors the method of ``RuleSkatAgent`` it is named after. The per-game agent keeps
caches of hand evaluations and discards; they only memoise, so here everything is computed afresh.
The lists the Python code builds (the games of a hand, the candidate games after pickup) become
rows of the caller's scratch ``W`` (``kernel.Work``) filled in the same order, and every ``max``
keeps the first maximum as Python's does; ``sort(reverse=True)`` over (score, label) becomes a
search for the largest pair, the labels compared by their rank as strings.
"""

from __future__ import annotations

import numpy as np

from agents.rule_skat_kernel.hand import (
    best_discard,
    bid_reach,
    ev,
    expected_score,
    first,
    model_row,
    null_safe,
    points_of,
    prob,
    score,
    skat_guess,
)
from agents.rule_skat_kernel.jit import inner
from agents.rule_skat_kernel.tables import (
    F_HAND_EDGE,
    F_MARGIN,
    F_NULL_OUVERT_P,
    F_RE_PROB,
    I_HAND_SIZE,
    I_PICKUP_CLUBS,
)
from envs.numba_bits import popcount
from envs.skat import actions as A
from envs.skat.cards import ACE, GRAND, JACK_MASK, NULL
from envs.skat.tables import GAME_TYPES

NUM_GAMES = len(GAME_TYPES)
MAX_OPTIONS = 2 * NUM_GAMES + 1  # the games of a hand: each game with and without the skat, and null ouvert


@inner
def evaluate(T, W, hand: int, fore: int) -> tuple[int, int]:
    """``RuleSkatAgent.evaluate``: the bid limit, and the number of games written to ``W`` (winning
    chance, game, hand, ouvert in ``evs``, ``gs``, ``hgs``, ``ous``)."""
    ps, gs, hgs, ous = W.evs, W.gs, W.hgs, W.ous
    margin, nop = T.floats[F_MARGIN], T.floats[F_NULL_OUVERT_P]
    guess = skat_guess(T, hand)
    n = 0
    limit = 0
    for g in range(NUM_GAMES):
        for hg in range(2):
            p = prob(score(T, hand, g, hg, fore, guess if hg else 0.0))
            ps[n], gs[n], hgs[n], ous[n] = p, g, hg, 0
            n += 1
            if g == NULL:
                value = T.null_value[hg, 0]
                reach = value if expected_score(T, p, value) >= margin else 0
            else:
                reach = bid_reach(T, p, hand, g, hg, margin)
            limit = max(limit, reach)
    if null_safe(T, hand):
        ps[n], gs[n], hgs[n], ous[n] = nop, NULL, 1, 1
        n += 1
        if expected_score(T, nop, T.null_value[1, 1]) >= margin:
            limit = max(limit, T.null_value[1, 1])
    return limit, n


@inner
def auction(T, W, hand: int, fore: int, bid: int, mask: np.ndarray) -> int:
    limit = evaluate(T, W, hand, fore)[0]
    if mask[A.HOLD]:
        return A.HOLD if bid <= limit else A.PASS
    for i in range(A.NUM_BIDS):
        if mask[A.BID + i]:
            if T.bid_values[i] <= limit:
                return A.BID + i
            break
    return A.PASS


@inner
def skat(T, W, hand: int, fore: int, bid: int) -> int:
    n = evaluate(T, W, hand, fore)[1]
    no = np.int64(0)  # a typed int: a literal argument would compile another copy of ev
    best_pickup = best_hand = -1e9
    for i in range(n):
        e = ev(T, W.evs[i], hand, W.gs[i], W.hgs[i], W.ous[i], bid, no)
        if W.hgs[i]:
            if e > best_hand:
                best_hand = e
        elif e > best_pickup:
            best_pickup = e
    return A.HAND if best_hand > best_pickup + T.floats[F_HAND_EDGE] else A.PICKUP


@inner
def candidates(T, W, hand: int, skat_cards: int, bid: int, fore: int, n_drop: int) -> int:
    """``RuleSkatAgent._candidates``: the pickup games, best discard applied, written to ``W`` (``evs``,
    ``gs``, ``drops``, ``ous``); returns how many."""
    evs, gs, drops, ous = W.evs, W.gs, W.drops, W.ous
    nop = T.floats[F_NULL_OUVERT_P]
    yes, no = np.int64(1), np.int64(0)  # typed ints: a literal argument would compile another copy
    skat_pts = points_of(T, skat_cards)
    f = 1.0 if fore else 0.0
    n = 0
    for g in range(NUM_GAMES):
        if n_drop:
            drop, logit = best_discard(T, W, hand, g, n_drop)
        else:
            drop, logit = no, score(T, hand, g, yes, no, 0.0)
        row = model_row(g, 1)
        p = prob(logit + T.model[row, 1] * f + T.model[row, 2] * skat_pts)
        evs[n], gs[n], drops[n], ous[n] = ev(T, p, hand | skat_cards, g, no, no, bid, yes), g, drop, 0
        n += 1
        if g == NULL and null_safe(T, hand ^ drop):
            evs[n], gs[n], drops[n], ous[n] = ev(T, min(p, nop), no, g, no, yes, bid, yes), g, drop, 1
            n += 1
    return n


@inner
def first_max(values: np.ndarray, n: int) -> int:
    """The index of the first maximum of ``values[:n]``, as Python's ``max`` picks it."""
    best = 0
    for i in range(1, n):
        if values[i] > values[best]:
            best = i
    return best


@inner
def discard(T, W, hand: int, put: int, bid: int, fore: int) -> int:
    """``RuleSkatAgent._discard``: the card (id) to put away; the second discard finds the pair the
    first chose (with twelve cards) and puts away its other card."""
    n_drop = popcount(hand) - T.ints[I_HAND_SIZE]
    if n_drop == 1 and put:
        pair = W.drops[first_max(W.evs, candidates(T, W, hand | put, np.int64(0), bid, fore, np.int64(2)))]
        if first(pair) == first(put) and pair & hand:
            return first(pair & hand)
    return first(W.drops[first_max(W.evs, candidates(T, W, hand, put, bid, fore, n_drop))])


@inner
def declare(T, W, hand: int, put: int, bid: int, fore: int, mask: np.ndarray) -> int:
    """``RuleSkatAgent._declare``: the legal option first in ``sort(reverse=True)`` order of
    (expected score, label); the labels compare through their precomputed string ranks."""
    nop = T.floats[F_NULL_OUVERT_P]
    yes, no = np.int64(1), np.int64(0)  # typed ints: a literal argument would compile another copy
    evs, gs, hgs, ous = W.evs, W.gs, W.hgs, W.ous
    if mask[T.ints[I_PICKUP_CLUBS]]:  # after pickup
        n = candidates(T, W, hand, put, bid, fore, no)
        for i in range(n):
            hgs[i] = 0
    else:  # hand game
        guess = skat_guess(T, hand)
        n = 0
        for g in range(NUM_GAMES):
            p = prob(score(T, hand, g, yes, fore, guess))
            evs[n], gs[n], hgs[n], ous[n] = ev(T, p, hand, g, yes, no, bid, no), g, 1, 0
            n += 1
            if g == NULL and null_safe(T, hand):
                evs[n], gs[n], hgs[n], ous[n] = ev(T, min(p, nop), hand, g, yes, yes, bid, no), g, 1, 1
                n += 1
    best = -1
    best_rank = -1
    for i in range(n):
        action = T.label_action[gs[i], hgs[i], ous[i]]
        if not mask[action]:
            continue
        rank = T.label_rank[gs[i], hgs[i], ous[i]]
        if best < 0 or evs[i] > evs[best] or (evs[i] == evs[best] and rank > best_rank):
            best, best_rank = i, rank
    if best >= 0:
        return T.label_action[gs[best], hgs[best], ous[best]]
    for a in range(A.NUM_ACTIONS):
        if mask[a]:
            return a
    return -1


@inner
def kontra(T, hand: int, g: int) -> bool:
    if g < 0 or g == NULL:
        return False
    jacks = popcount(hand & JACK_MASK)
    aces = 0
    for suit in range(4):
        if suit != g:
            aces += hand >> (8 * suit + ACE) & 1
    if g == GRAND:
        return jacks >= 3 or (jacks >= 2 and aces >= 2)
    trumps = popcount(hand & T.trumps[g])
    return jacks >= 3 or (trumps >= 4 and (jacks >= 2 or aces >= 2))


@inner
def re(T, hand: int, skat_cards: int, g: int, fore: int) -> bool:
    if g < 0:
        return False
    skat_pts = float(points_of(T, skat_cards)) if skat_cards else skat_guess(T, hand)
    return prob(score(T, hand, g, np.int64(1), fore, skat_pts)) >= T.floats[F_RE_PROB]
