"""The CPU kernel of the batched Thirty-One engine (``backend="numba"``): one compiled loop over
the games per step, on the same :class:`~envs.thirtyone.vector.engine.Batch` tensors.

The torch engine (``engine.py``, ``observe.py``) runs the same rules as a few hundred tensor
operations per step whatever the batch, which is what a GPU wants; on a CPU each of them streams
every game's row through memory again, and the observation's card planes are unpacked in three
passes. Here each game is advanced, settled, dealt and observed in one pass while its state is in
the cache, and each observation row is written once. The rules are the torch engine's in scalar
form (``kernel_rules.py``; here ``observe`` and ``legal_mask``), with the same tables;
``tests/test_thirtyone_vector.py`` drives both backends against the reference AEC env bit for bit.

The random choices (the first dealer of a new game, the deck of a deal, the place of a random
draw) come from a splitmix64 generator whose state the env seeds from its torch generator, so a
seed reproduces the games of this backend (not the torch backend's: each draws its own).
"""

from __future__ import annotations

import numpy as np
import torch
from numba import njit

from envs.thirtyone import actions as A
from envs.thirtyone import observation as L
from envs.thirtyone.cards import NUM_CARDS
from envs.thirtyone.rules import DISCARD, DRAW
from envs.thirtyone.vector.engine import ALIVE, CUR, DEALER, KNOCKER, LOCKED, PHASE, PILE_N, ROUND, STOCK_N, TURN
from envs.thirtyone.vector.kernel_rules import (
    LOG_DEAL,
    LOG_START,
    NUM_PARAMS,
    P_AFTER_FIRST_ROUND,
    P_DOUBLE_TIE,
    P_FIRST_DEALER,
    P_MAX_TURNS,
    P_MIN_KNOCK,
    P_PENALTY,
    P_RECORD,
    P_ROUND_EPISODE,
    P_SEATS,
    P_START_TOKENS,
    P_TOKEN_KINDS,
    _advance,
    _hand_value,
    _settle,
    _slot,
)
from envs.thirtyone.vector.tables import MAX_ROUND_SCALE, MAX_TURN_SCALE, RANKS, SUIT_BITS

NUM_PLANES = L.SEATS // NUM_CARDS  # 20
NUM_GLOBALS = L.OBS_SIZE - L.GLOBAL  # 18
NUM_TAIL = A.NUM_ACTIONS - NUM_CARDS  # draw, take, knock, throw down, look

# the global columns: what each reads its table row by (G_CONST: row 0)
(G_CONST, G_PHASE, G_STOCK, G_PILE, G_ANY_KNOCK, G_TURN, G_LAP, G_ROUND, G_ACTIVE, G_VALUE) = range(10)

# 4 bits as 4 floats, 0.0 or 1.0, read as two 8-byte words: one store per two floats
NIBBLE_PAIRS = np.array([[(v >> j) & 1 for j in range(4)] for v in range(16)], dtype=np.float32).view(np.uint64)


@njit(cache=True, inline="always", error_model="numpy")
def _observe(g, s, hand, known, disc, tokens, pile, P, plane_index, global_table, global_base, gkind, suit_sum,
             suit_min, active_of, mask_tail, nibble_pairs, seat_pairs, obs, pairs, mask, scratch) -> None:
    """The observation and the action mask of the player to act in slot g (``observe.observe``,
    ``observe.legal_mask``)."""
    n = P[P_SEATS]
    words, sources, codes = scratch
    cur, phase, alive = s[CUR, g], s[PHASE, g], s[ALIVE, g]
    locked = s[LOCKED, g]
    locked_bit = np.int64(1) << locked if locked >= 0 else np.int64(0)
    pile_n = s[PILE_N, g]
    top_bit = np.int64(1) << pile[_slot(pile_n - 1), g] if pile_n > 0 else np.int64(0)
    own = hand[cur, g]
    # the card planes: hands, discards, known cards, top, locked, zero (plane_index by observer)
    for seat in range(n):
        sources[seat] = hand[seat, g]
        sources[n + seat] = disc[seat, g]
        sources[2 * n + seat] = known[seat, g]
    sources[3 * n], sources[3 * n + 1], sources[3 * n + 2] = top_bit, locked_bit, 0
    for p in range(NUM_PLANES):
        words[p] = sources[plane_index[cur, p]]
    for p in range(NUM_PLANES):  # the floats of 4 bits at a time as two 8-byte pairs, from a table
        w = words[p]
        base = p * (NUM_CARDS // 2)
        for k in range(NUM_CARDS // 4):
            v = (w >> (4 * k)) & 15
            low, high = nibble_pairs[v, 0], nibble_pairs[v, 1]  # both read before either is written
            pairs[g, base + 2 * k], pairs[g, base + 2 * k + 1] = low, high
    # the seat rows, relative to the observer
    knocker, dealer = s[KNOCKER, g], s[DEALER, g]
    kinds = P[P_TOKEN_KINDS]
    for r in range(L.MAX_SEATS):
        base = L.SEATS + r * L.SEAT_FEATURES
        if r < n:
            seat = cur + r if cur + r < n else cur + r - n
            code = ((((1 if r == 0 else 0) * kinds + tokens[seat, g]) * 2 + ((alive >> seat) & 1)) * 2
                    + (1 if seat == knocker else 0)) * 2 + (1 if seat == dealer else 0)
            for k in range(L.SEAT_FEATURES // 2):
                pairs[g, base // 2 + k] = seat_pairs[code, k]
        else:
            for k in range(L.SEAT_FEATURES // 2):
                pairs[g, base // 2 + k] = 0
    # the hand value (between draw and discard: the best after a legal discard) and the mask
    legal = own & ~locked_bit if phase == DISCARD else np.int64(0)
    value = 0
    for suit in range(4):
        shift = RANKS * suit
        total = suit_sum[(own >> shift) & SUIT_BITS]
        part = (legal >> shift) & SUIT_BITS
        if (part << shift) == legal:  # every legal discard is of this suit: its smallest goes
            total -= suit_min[part]
        if total > value:
            value = total
    active = active_of[alive]
    turn = min(s[TURN, g], MAX_TURN_SCALE - 1)
    codes[G_CONST], codes[G_PHASE] = 0, phase
    codes[G_STOCK], codes[G_PILE] = min(max(s[STOCK_N, g], 0), NUM_CARDS), min(max(pile_n, 0), NUM_CARDS)
    codes[G_ANY_KNOCK], codes[G_TURN], codes[G_LAP] = knocker + 1, turn, active * MAX_TURN_SCALE + turn
    # (a hand of more than four cards, from actions left unchecked with validate=False, is capped)
    codes[G_ROUND], codes[G_ACTIVE], codes[G_VALUE] = min(s[ROUND, g], MAX_ROUND_SCALE - 1), active, min(value, 32)
    for j in range(NUM_GLOBALS):
        obs[g, L.GLOBAL + j] = global_table[global_base[j] + codes[gkind[j]]]
    for c in range(NUM_CARDS):
        mask[g, c] = (legal >> c) & 1 == 1
    tail = 0
    if phase == DRAW:
        tail = 1
        if (knocker < 0 and (P[P_AFTER_FIRST_ROUND] == 0 or s[TURN, g] >= active)
                and (P[P_MIN_KNOCK] < 0 or _hand_value(own, suit_sum) >= P[P_MIN_KNOCK])):
            tail = 2
    for k in range(NUM_TAIL):
        mask[g, NUM_CARDS + k] = mask_tail[tail, k]


@njit(cache=True, error_model="numpy")
def _observe_scratch():
    """The plane words, the plane sources of one game, the codes of the global columns."""
    return np.zeros(NUM_PLANES, np.int64), np.zeros(3 * L.MAX_SEATS + 3, np.int64), np.zeros(10, np.int64)


@njit(cache=True, inline="always", error_model="numpy")
def _hide(g, obs, mask, player) -> None:
    """A finished game shows no decision."""
    for j in range(obs.shape[1]):
        obs[g, j] = np.float32(0.0)
    for j in range(mask.shape[1]):
        mask[g, j] = False
    player[g] = 0


@njit(cache=True, error_model="numpy")
def step(s, hand, known, disc, tokens, stock, pile, actions, fresh, P, rng, suit_sum, suit_min, next_seat, deal_at,
         dealt_stock, active_of, elimination, plane_index, global_table, global_base, gkind, mask_tail,
         nibble_pairs, seat_pairs, rewards, over, obs, pairs, mask, player, log, count, log_decks) -> None:
    """One step of every game: ``actions`` [N] for the seats to act; ``fresh`` [N] the slots that
    start a new game instead. Writes ``rewards`` [N, n] (zeroed here), ``over`` [N], ``obs``,
    ``mask``, ``player``."""
    seen = _observe_scratch()
    n = P[P_SEATS]
    settling = (np.zeros(n, np.float32), np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.bool_),
                np.arange(NUM_CARDS))
    for g in range(s.shape[1]):
        for seat in range(n):
            rewards[g, seat] = np.float32(0.0)
        ended = False
        if fresh[g]:
            _settle(g, -1, True, s, hand, known, disc, tokens, stock, pile, P, rng, rewards, suit_sum, next_seat,
                    deal_at, dealt_stock, elimination, log, count, log_decks, settling)
        else:
            knocker = _advance(g, actions[g], s, hand, known, disc, stock, pile, P, rng, suit_sum, next_seat, log,
                               count)
            if knocker != -2:
                ended = _settle(g, knocker, False, s, hand, known, disc, tokens, stock, pile, P, rng, rewards,
                                suit_sum, next_seat, deal_at, dealt_stock, elimination, log, count, log_decks,
                                settling)
        over[g] = ended
        if ended:
            _hide(g, obs, mask, player)
        else:
            player[g] = s[CUR, g]
            _observe(g, s, hand, known, disc, tokens, pile, P, plane_index, global_table, global_base, gkind,
                     suit_sum, suit_min, active_of, mask_tail, nibble_pairs, seat_pairs, obs, pairs, mask, seen)


@njit(cache=True, error_model="numpy")
def observe_all(s, hand, known, disc, tokens, pile, P, plane_index, global_table, global_base, gkind,
                suit_sum, suit_min, active_of, mask_tail, nibble_pairs, seat_pairs, obs, pairs, mask, player) -> None:
    """The observations and masks of every slot (after a reset: none is over)."""
    seen = _observe_scratch()
    for g in range(s.shape[1]):
        player[g] = s[CUR, g]
        _observe(g, s, hand, known, disc, tokens, pile, P, plane_index, global_table, global_base, gkind,
                 suit_sum, suit_min, active_of, mask_tail, nibble_pairs, seat_pairs, obs, pairs, mask, seen)


class CpuKernel:
    """The host side of the kernel for one env: the rules as :data:`P`, the tables as numpy arrays
    (the torch engine's, shared on the CPU), the generator's state, the log buffers."""

    def __init__(self, T, R, ctx, options, num_envs: int, record: bool) -> None:
        npy = lambda t: t.cpu().numpy()  # noqa: E731
        P = np.zeros(NUM_PARAMS, dtype=np.int64)
        P[P_SEATS] = R.n
        P[P_ROUND_EPISODE] = int(R.round_episode)
        P[P_START_TOKENS] = R.start_tokens
        P[P_PENALTY] = R.penalty
        P[P_DOUBLE_TIE] = int(R.double_tie)
        P[P_AFTER_FIRST_ROUND] = int(R.after_first_round)
        P[P_MIN_KNOCK] = -1 if R.min_knock is None else R.min_knock
        P[P_MAX_TURNS] = -1 if R.max_turns is None else R.max_turns
        P[P_FIRST_DEALER] = -1 if options.first_dealer is None else options.first_dealer
        P[P_RECORD] = int(record)
        P[P_TOKEN_KINDS] = ctx.tokens
        self.P = P
        kind_of = {L.PHASE + 1: G_PHASE, L.PHASE + 2: G_PHASE, L.STOCK: G_STOCK, L.PILE: G_PILE,
                   L.ANY_KNOCK: G_ANY_KNOCK, L.TURN: G_TURN, L.LAP: G_LAP, L.ROUND: G_ROUND, L.ACTIVE: G_ACTIVE,
                   L.VALUE: G_VALUE}
        assert set(kind_of) == set(ctx.variable)
        gkind = np.array([kind_of.get(L.GLOBAL + j, G_CONST) for j in range(NUM_GLOBALS)], dtype=np.int64)
        # the arguments of the kernels, in their order: the rules' tables, the observation layout, the rows
        # copied into the observation and the mask
        self.tables = (npy(T.suit_sum), npy(T.suit_min), npy(T.next_seat), npy(T.deal_at), npy(T.dealt_stock),
                       npy(T.active), npy(T.elimination[R.scheme]))
        self.layout = (npy(ctx.plane_index), npy(ctx.global_table), npy(ctx.global_base), gkind)
        self.rows = (npy(T.mask_tail), NIBBLE_PAIRS, np.ascontiguousarray(npy(ctx.seat_rows)).view(np.uint64))
        self.rng = np.zeros(1, dtype=np.uint64)
        self.record = record
        cap = 16 * num_envs + 64 if record else 1
        self.log = np.zeros((cap, 4), dtype=np.int64)
        self.log_decks = np.zeros((cap, NUM_CARDS), dtype=np.int64)
        self.count = np.zeros(2, dtype=np.int64)

    def warm(self) -> None:
        """Compile the kernel (or load it from numba's cache) now, on two throwaway games, so that
        the env's first step is not the one that waits for it."""
        from envs.thirtyone.vector.engine import Batch

        b = Batch(2, int(self.P[P_SEATS]), torch.device("cpu"), game_major=True)
        saved = self.rng.copy(), self.P[P_RECORD]
        self.P[P_RECORD] = 0
        try:
            obs = np.zeros((2, L.OBS_SIZE), np.float32)
            mask = np.zeros((2, A.NUM_ACTIONS), np.bool_)
            player = np.zeros(2, np.int64)
            self.step(b, np.zeros(2, np.int64), np.ones(2, np.bool_), np.zeros((2, b.seats), np.float32),
                      np.zeros(2, np.bool_), obs, mask, player)
            self.observe(b, obs, mask, player)
        finally:
            self.rng[:], self.P[P_RECORD] = saved

    def seed(self, value: int) -> None:
        self.rng[0] = np.uint64(value)

    def step(self, b, actions: np.ndarray, fresh: np.ndarray, rewards: np.ndarray, over: np.ndarray,
             obs: np.ndarray, mask: np.ndarray, player: np.ndarray) -> list[tuple] | None:
        self.count[:] = 0
        step(b.s.numpy(), b.hand.numpy(), b.known.numpy(), b.disc.numpy(), b.tokens.numpy(), b.stock.numpy(),
             b.pile.numpy(), actions, fresh, self.P, self.rng, *self.tables, *self.layout, *self.rows,
             rewards, over, obs, obs.view(np.uint64), mask, player, self.log, self.count, self.log_decks)
        return self._events() if self.record else None

    def observe(self, b, obs: np.ndarray, mask: np.ndarray, player: np.ndarray) -> None:
        suit_sum, suit_min, _, _, _, active, _ = self.tables
        observe_all(b.s.numpy(), b.hand.numpy(), b.known.numpy(), b.disc.numpy(), b.tokens.numpy(), b.pile.numpy(),
                    self.P, *self.layout, suit_sum, suit_min, active, *self.rows, obs, obs.view(np.uint64), mask,
                    player)

    def _events(self) -> list[tuple]:
        rows, decks = int(self.count[0]), int(self.count[1])
        if rows > len(self.log) or decks > len(self.log_decks):
            raise RuntimeError(f"the kernel's log overflowed ({rows} events, {decks} deals in one step)")
        out: list[tuple] = []
        for kind, slot, value, size in self.log[:rows].tolist():
            if kind == LOG_START:
                out.append(("start", slot, value))
            elif kind == LOG_DEAL:
                out.append(("deal", slot, self.log_decks[value, :size].tolist()))
            else:
                out.append(("draw", slot, value))
        return out
