"""The rules of the CPU kernel (``kernel.py``), per game in scalar form: the torch engine's
``advance``, ``settle_rounds``, ``end_rounds``, ``lives_lost`` and ``deal`` (``engine.py``) line for line,
on the same ``Batch`` fields, and the kernel's random generator (splitmix64, seeded by the env)."""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.numba_bits import popcount as _popcount
from envs.thirtyone import actions as A
from envs.thirtyone.cards import NUM_CARDS
from envs.thirtyone.rules import DISCARD, DRAW, OVER
from envs.thirtyone.scoring import BLITZ
from envs.thirtyone.vector.engine import (
    ALIVE,
    CUR,
    DEALER,
    FIELDS,
    KNOCKER,
    LOCKED,
    N_OUT,
    ORDERED,
    PHASE,
    PILE_N,
    ROUND,
    STOCK_N,
    TURN,
)
from envs.thirtyone.vector.tables import RANKS, SUIT_BITS

NUM_FIELDS = len(FIELDS)

# P: the rules as integers (-1: the option is off)
(P_SEATS, P_ROUND_EPISODE, P_START_TOKENS, P_PENALTY, P_DOUBLE_TIE, P_AFTER_FIRST_ROUND, P_MIN_KNOCK, P_MAX_TURNS,
 P_FIRST_DEALER, P_RECORD, P_TOKEN_KINDS) = range(11)
NUM_PARAMS = 11

# log rows: kind, slot, value (dealer, card, or the row of ``log_decks``), cards dealt
LOG_START, LOG_DEAL, LOG_DRAW = range(3)

_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xBF58476D1CE4E5B9)
_M3 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always", error_model="numpy")
def _below(rng: np.ndarray, k: int) -> int:
    """A uniform integer in [0, k) (splitmix64; k <= 52, so the 53-bit product has no bias worth
    naming: under 2**-47)."""
    z = rng[0] + _M1
    rng[0] = z
    z = (z ^ (z >> np.uint64(30))) * _M2
    z = (z ^ (z >> np.uint64(27))) * _M3
    z = z ^ (z >> np.uint64(31))
    return np.int64(((z >> np.uint64(11)) * np.uint64(k)) >> np.uint64(53))


@njit(cache=True, inline="always", error_model="numpy")
def _slot(i: int) -> int:
    """A place of the stock or the pile, kept inside them: only actions left unchecked
    (``validate=False``) can move a count out of 0..52, and they must not write past the state."""
    return min(max(i, 0), NUM_CARDS - 1)


@njit(cache=True, inline="always", error_model="numpy")
def _hand_value(h: int, suit_sum: np.ndarray) -> int:
    """The best single-suit total (``engine.hand_value``)."""
    best = 0
    for suit in range(4):
        v = suit_sum[(h >> (RANKS * suit)) & SUIT_BITS]
        if v > best:
            best = v
    return best


@njit(cache=True, inline="always", error_model="numpy")
def _log(log: np.ndarray, count: np.ndarray, kind: int, slot: int, value: int, size: int) -> None:
    i = count[0]
    if i < log.shape[0]:
        log[i, 0], log[i, 1], log[i, 2], log[i, 3] = kind, slot, value, size
    count[0] = i + 1  # past the end: the env raises (the log would be incomplete)


@njit(cache=True, error_model="numpy")
def _seat(g, s, tokens, P, rng, log, count) -> None:
    """A new game in slot g before its first deal (``ThirtyOneVectorEnv._seat``)."""
    n = P[P_SEATS]
    dealer = P[P_FIRST_DEALER] if P[P_FIRST_DEALER] >= 0 else _below(rng, n)
    for f in range(NUM_FIELDS):
        s[f, g] = 0
    s[ALIVE, g] = (1 << n) - 1
    s[DEALER, g] = dealer
    for seat in range(n):
        tokens[seat, g] = P[P_START_TOKENS]
    if P[P_RECORD]:
        _log(log, count, LOG_START, g, dealer, 0)


@njit(cache=True, error_model="numpy")
def _deal(g, deck, s, hand, known, disc, stock, pile, P, deal_at, dealt_stock, next_seat, suit_sum,
          log, count, log_decks) -> bool:
    """Deal a round in slot g from ``deck`` (card ids in dealing order), as ``engine.deal``;
    True when a hand dealt is a blitz."""
    n = P[P_SEATS]
    alive, dealer = s[ALIVE, g], s[DEALER, g]
    layout = alive * n + dealer
    blitz = False
    for seat in range(n):
        h = 0
        if (alive >> seat) & 1:
            for k in range(3):
                h |= np.int64(1) << deck[deal_at[layout, k * n + seat]]
            if _hand_value(h, suit_sum) >= BLITZ:
                blitz = True
        hand[seat, g] = h
        known[seat, g] = 0
        disc[seat, g] = 0
    up = deck[deal_at[layout, 3 * n]]
    disc[dealer, g] = np.int64(1) << up
    for j in range(NUM_CARDS):
        stock[j, g] = deck[NUM_CARDS - 1 - j]  # reversed: an ordered stock is drawn from its end
    pile[0, g] = up
    s[PHASE, g], s[KNOCKER, g], s[LOCKED, g], s[TURN, g], s[PILE_N, g] = DRAW, -1, -1, 0, 1
    s[CUR, g] = next_seat[layout]
    s[ROUND, g] += 1
    s[STOCK_N, g] = dealt_stock[alive]
    s[ORDERED, g] = 0
    if P[P_RECORD]:
        row = count[1]
        if row < log_decks.shape[0]:
            for j in range(NUM_CARDS):
                log_decks[row, j] = deck[j]
        count[1] = row + 1
        _log(log, count, LOG_DEAL, g, row, NUM_CARDS - dealt_stock[alive])
    return blitz


@njit(cache=True, error_model="numpy")
def _lives_lost(values, inround, knocker, n, penalty, double_tie, lost) -> None:
    """``engine.lives_lost`` for one game: into ``lost`` [n]."""
    blitz = False
    low = 1 << 20
    for seat in range(n):
        if inround[seat]:
            if values[seat] >= BLITZ:
                blitz = True
            if values[seat] < low:
                low = values[seat]
    if blitz:
        for seat in range(n):
            lost[seat] = 1 if inround[seat] and values[seat] < BLITZ else 0
        return
    losers = 0
    for seat in range(n):
        lost[seat] = 1 if inround[seat] and values[seat] == low else 0
        losers += lost[seat]
    if knocker >= 0 and lost[knocker] == 1:  # the knocker is among the lowest
        if losers == 1:
            lost[knocker] = penalty
        elif double_tie:  # the knocker pays the penalty and spares the others
            for seat in range(n):
                lost[seat] = 0
            lost[knocker] = penalty
        else:  # "safe": the knocker is spared
            lost[knocker] = 0


@njit(cache=True, error_model="numpy")
def _end_round(g, knocker, s, hand, tokens, P, suit_sum, next_seat, elimination, r, values, inround, lost) -> bool:
    """Score the round that ended in slot g (``engine.end_rounds``) into ``r`` [n]; True when the
    game is over."""
    n = P[P_SEATS]
    alive = s[ALIVE, g]
    for seat in range(n):
        inround[seat] = (alive >> seat) & 1 == 1
        values[seat] = _hand_value(hand[seat, g], suit_sum)
    _lives_lost(values, inround, knocker, n, P[P_PENALTY], P[P_DOUBLE_TIE] == 1, lost)
    if P[P_ROUND_EPISODE]:
        for seat in range(n):
            tokens[seat, g] = max(0, tokens[seat, g] - lost[seat])
            r[seat] = np.float32(-lost[seat])
        s[PHASE, g] = OVER
        return True
    now = 0
    out_bits = 0
    for seat in range(n):
        if lost[seat] > 0 and tokens[seat, g] <= lost[seat] and inround[seat]:
            now += 1
            out_bits |= 1 << seat
    void = now == _popcount(alive)  # nobody would be left: the round's losses are void
    if void:
        now, out_bits = 0, 0
    else:
        for seat in range(n):
            tokens[seat, g] = max(0, tokens[seat, g] - lost[seat])
    reward_out = elimination[s[N_OUT, g] * (n + 1) + now]
    alive = alive & ~out_bits
    over = _popcount(alive) == 1
    for seat in range(n):
        if (out_bits >> seat) & 1:
            r[seat] = reward_out
        elif over and (alive >> seat) & 1:
            r[seat] = np.float32(1.0)
        else:
            r[seat] = np.float32(0.0)
    s[ALIVE, g] = alive
    s[N_OUT, g] += now
    if over:
        s[PHASE, g] = OVER
    else:
        s[DEALER, g] = next_seat[alive * n + s[DEALER, g]]
    return over


@njit(cache=True, error_model="numpy")
def _shuffle(deck, rng, k) -> None:
    """Random cards in the first k places of ``deck`` (a permutation of the 52, any order): a
    partial Fisher-Yates. The rest is the stock, whose order does not matter: a draw from a
    shuffled stock takes a random place."""
    for j in range(k):
        i = j + _below(rng, NUM_CARDS - j)
        deck[j], deck[i] = deck[i], deck[j]


@njit(cache=True, error_model="numpy")
def _settle(g, knocker, starting, s, hand, known, disc, tokens, stock, pile, P, rng, rewards, suit_sum,
            next_seat, deal_at, dealt_stock, elimination, log, count, log_decks, scratch) -> bool:
    """End the round of slot g and deal the next while a deal is a blitz (``engine.settle_rounds``);
    ``starting``: a new game, seated and dealt first, dealt again while its first deals would end
    it or eliminate a player, paying nothing. True when the game is over."""
    n = P[P_SEATS]
    r, values, lost, inround, deck = scratch
    scoring = not starting
    if starting:
        _seat(g, s, tokens, P, rng, log, count)
    while True:
        if scoring:
            over = _end_round(g, knocker, s, hand, tokens, P, suit_sum, next_seat, elimination, r, values, inround,
                              lost)
            if starting:
                if over or s[N_OUT, g] > 0:
                    _seat(g, s, tokens, P, rng, log, count)
            else:
                for seat in range(n):
                    rewards[g, seat] += r[seat]
                if over:
                    return True
        scoring = True
        _shuffle(deck, rng, NUM_CARDS - dealt_stock[s[ALIVE, g]])
        if not _deal(g, deck, s, hand, known, disc, stock, pile, P, deal_at, dealt_stock, next_seat, suit_sum,
                     log, count, log_decks):
            return False
        knocker = -1


@njit(cache=True, inline="always", error_model="numpy")
def _advance(g, a, s, hand, known, disc, stock, pile, P, rng, suit_sum, next_seat, log, count) -> int:
    """Apply action ``a`` in slot g (``engine.advance``). Returns -2 when the round goes on, else
    the knocker to score the ended round with (-1: none)."""
    n = P[P_SEATS]
    phase, p = s[PHASE, g], s[CUR, g]
    if phase == DISCARD:
        card = min(max(a, 0), NUM_CARDS)
        lost_bit = np.int64(1) << card if card < NUM_CARDS else np.int64(0)
        hand[p, g] -= lost_bit
        disc[p, g] |= lost_bit
        known[p, g] &= ~lost_bit
        pile_n = s[PILE_N, g]
        pile[_slot(pile_n), g] = card
        s[PILE_N, g] = pile_n + 1
        s[LOCKED, g] = -1
        s[TURN, g] += 1
        if _hand_value(hand[p, g], suit_sum) >= BLITZ:
            return s[KNOCKER, g]  # a discard that makes 31 ends the round
    elif phase == DRAW:
        if a == A.DRAW:
            stock_n = s[STOCK_N, g]
            last = _slot(stock_n - 1)
            i = last if s[ORDERED, g] else _below(rng, last + 1)
            drawn = stock[i, g]
            stock[i, g] = stock[last, g]
            if P[P_RECORD]:
                _log(log, count, LOG_DRAW, g, drawn, 0)
            hand[p, g] += np.int64(1) << drawn
            s[STOCK_N, g] = stock_n - 1
            s[PHASE, g] = DISCARD
            return -2
        if a == A.TAKE:
            pile_n = s[PILE_N, g]
            top = pile[_slot(pile_n - 1), g]
            taken_bit = np.int64(1) << top
            hand[p, g] += taken_bit
            for seat in range(n):
                disc[seat, g] &= ~taken_bit
            known[p, g] |= taken_bit
            s[PILE_N, g] = pile_n - 1
            s[LOCKED, g] = top
            s[PHASE, g] = DISCARD
            return -2
        if a != A.KNOCK:
            return -2
        s[KNOCKER, g] = p
        s[TURN, g] += 1
    else:
        return -2
    # a knock, or a discard short of 31: the turn passes, unless the round ends
    alive = s[ALIVE, g]
    knocker = s[KNOCKER, g]
    nxt = next_seat[alive * n + p]
    if knocker >= 0 and nxt == knocker:
        return knocker  # the showdown
    if knocker < 0 and P[P_MAX_TURNS] >= 0 and s[TURN, g] >= P[P_MAX_TURNS]:
        return -1  # capped
    if s[STOCK_N, g] == 0:  # the stock ran out: the pile under its top card
        pile_n = s[PILE_N, g]
        top = pile[_slot(pile_n - 1), g]
        for j in range(NUM_CARDS):
            stock[j, g] = pile[j, g]
        s[STOCK_N, g] = pile_n - 1
        pile[0, g] = top
        s[PILE_N, g] = 1
        top_bit = np.int64(1) << top
        for seat in range(n):
            disc[seat, g] &= top_bit
        s[ORDERED, g] = 0
    s[CUR, g] = nxt
    s[PHASE, g] = DRAW
    return -2
