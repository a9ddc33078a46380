"""Observation vectors and action masks of the batched Thirty-One engine, equal to
``envs.thirtyone.observation`` (layout there, ``OBSERVATION_VERSION`` shared) and the rules core's
``legal_bytes``, for the player to act.

A step costs about a hundred tensor operations here whatever the batch. The card planes are
unpacked from bit sets in three passes (multiply, shift, mask), slice by slice of :data:`CHUNK`
rows that stay in the cache from the first pass to the last, the rest of each row written with
them: writing the observation is the largest cost of a step, and a fresh one is mostly memory
traffic. The seat rows and the global scalars (each entry a function of a few small integers) are
one lookup each in float tables :class:`Context` builds once from the same float32 scalings (the
seat rows by a code per seat, the globals by one index per column into a concatenation of
per-column tables), and the hand value is a lookup per suit (:func:`hand_values`).
"""

from __future__ import annotations

import numpy as np
import torch

from envs.thirtyone import actions as A
from envs.thirtyone import observation as L
from envs.thirtyone.cards import NUM_CARDS
from envs.thirtyone.rules import DISCARD, DRAW, OVER
from envs.thirtyone.vector.engine import (
    ALIVE,
    CUR,
    DEALER,
    HALF_BITS,
    KNOCKER,
    LOCKED,
    PHASE,
    PILE_N,
    ROUND,
    STOCK_N,
    TURN,
    Batch,
    Rules,
    knock_open,
)
from envs.thirtyone.vector.tables import MAX_ROUND_SCALE, MAX_TURN_SCALE, SUIT_BITS, Tables

FLOAT_ONE_BITS = 0x3F800000
NUM_PLANES = L.SEATS // NUM_CARDS  # 20
NUM_GLOBALS = L.OBS_SIZE - L.GLOBAL  # 18
CHUNK = 1024  # rows of card planes unpacked at a time (4 MB: about a core's share of the cache)


class Context:
    """Per env: the plane sources of each observer and the float tables of the seat rows and globals."""

    def __init__(self, T: Tables, R: Rules, options) -> None:
        n, dev = R.n, T.device
        zero, top, locked = 3 * n + 2, 3 * n, 3 * n + 1  # rows of the source stack after hands, discards, known
        index = []
        for o in range(n):
            row = [o, top, locked]
            row += [n + (o + r) % n if r < n else zero for r in range(L.MAX_SEATS)]
            row += [2 * n + (o + r) % n if r < n else zero for r in range(1, L.MAX_SEATS)]
            index.append(row)
        self.plane_index = torch.tensor(index, dtype=torch.int64, device=dev)  # [n, 20]: source rows by observer
        f32 = np.float32
        # the seat rows: code = (((first * tokens + t) * 2 + in) * 2 + knocked) * 2 + dealer -> 8 floats
        free = 1 if R.free_ride else 0
        self.tokens = R.start_tokens + 1
        rows = []
        for first in (0, 1):
            for t in range(self.tokens):
                for alive in (0, 1):
                    for knocked in (0, 1):
                        for dealer in (0, 1):
                            f = [0.0] * L.SEAT_FEATURES
                            f[L.PRESENT], f[L.OUT] = 1.0, float(1 - alive)
                            f[L.LIVES] = f32(max(0, t - free) / float(R.lives))
                            f[L.COUNTY] = float(R.free_ride and t == 1)
                            f[L.KNOCKED], f[L.DEALER], f[L.TO_ACT] = float(knocked), float(dealer), float(first)
                            rows.append(f)
        self.seat_absent = torch.tensor([[len(rows)]], dtype=torch.int64, device=dev)
        rows.append([0.0] * L.SEAT_FEATURES)
        self.seat_rows = torch.tensor(np.array(rows, dtype=f32), device=dev)
        self.seat_first = torch.tensor([8 * self.tokens] + [0] * (n - 1), dtype=torch.int64, device=dev)[:, None]
        self.seat_code = torch.tensor([8, 4, 2, 1], dtype=torch.int64, device=dev)  # tokens, in, knocked, dealer
        self.seats = torch.arange(n, dtype=torch.int64, device=dev)[:, None]
        # the globals: column j reads table[base[j] + code_j]
        const = [0.0] * NUM_GLOBALS
        const[L.PLAYERS - L.GLOBAL] = f32(n / 9.0)
        const[L.MIN_KNOCK - L.GLOBAL] = f32((options.min_knock_score or 0) / 31.0)
        const[L.ROUND_EP - L.GLOBAL] = float(options.episode == "round")
        host = {name: getattr(T, name).cpu().tolist() for name in
                ("stock_value", "turn_value", "lap_value", "round_value", "value_value")}
        columns = {
            L.PHASE + 1: [float(p == DRAW) for p in range(OVER + 1)],
            L.PHASE + 2: [float(p == DISCARD) for p in range(OVER + 1)],
            L.STOCK: host["stock_value"], L.PILE: host["stock_value"],
            L.ANY_KNOCK: [0.0] + [1.0] * n,  # by knocker + 1
            L.TURN: host["turn_value"], L.LAP: host["lap_value"], L.ROUND: host["round_value"],
            L.ACTIVE: [a / 9.0 for a in range(L.MAX_SEATS + 1)], L.VALUE: host["value_value"],
        }
        table, base = [], []
        for j in range(NUM_GLOBALS):
            base.append(len(table))
            table += columns.get(L.GLOBAL + j, [const[j]])
        self.global_table = torch.tensor(np.array(table, dtype=f32), device=dev)
        self.global_base = torch.tensor(base, dtype=torch.int64, device=dev)
        self.variable = [L.PHASE + 1, L.PHASE + 2, L.STOCK, L.PILE, L.ANY_KNOCK, L.TURN, L.LAP, L.ROUND, L.ACTIVE,
                         L.VALUE]
        self._zero: torch.Tensor | None = None

    def zero(self, N: int, device: torch.device) -> torch.Tensor:
        """int64 [N] zeros, kept (the code of the constant globals)."""
        if self._zero is None or len(self._zero) != N:
            self._zero = torch.zeros(N, dtype=torch.int64, device=device)
        return self._zero


class Seen:
    """What the observation and the mask share: the seat to act, its hand, its legal discards."""

    __slots__ = ("cur", "phase", "hand", "legal", "locked_bit")

    def __init__(self, b: Batch, T: Tables) -> None:
        s = b.s
        self.cur, self.phase = s[CUR], s[PHASE]
        self.hand = b.hand.gather(0, self.cur[None])[0]
        self.locked_bit = T.bit.index_select(0, s[LOCKED] % (NUM_CARDS + 1))  # -1 -> 52 -> no card
        self.legal = (self.hand & ~self.locked_bit) * (self.phase == DISCARD)


def hand_values(seen: Seen, T: Tables) -> torch.Tensor:
    """[N] the value of the hand to act: its best suit; between draw and discard the best suit
    after one legal discard (``HandValuer.best_after_discard``). For a suit S: the hand's S total,
    less the smallest legal card when every legal discard is of suit S (else a card of another suit
    goes); with no legal discard (the draw phase) the S total."""
    shift = T.suit_shift[:, None]
    total = T.suit_sum.index_select(0, ((seen.hand[None] >> shift) & SUIT_BITS).view(-1))
    legal = (seen.legal[None] >> shift) & SUIT_BITS
    smallest = T.suit_min.index_select(0, legal.view(-1))
    inside = (legal << shift) == seen.legal
    return (total - smallest * inside.view(-1)).view(4, -1).amax(0)


def observe(b: Batch, T: Tables, R: Rules, ctx: Context, seen: Seen) -> torch.Tensor:
    """float32 [N, OBS_SIZE]: the observation of the player to act."""
    n, N, s = b.seats, b.n, b.s
    cur = seen.cur
    out = torch.empty(N, L.OBS_SIZE, dtype=torch.float32, device=b.device)
    pile_n = s[PILE_N]
    top = b.pile.gather(0, (pile_n - 1).clamp(min=0)[None])[0]
    top_bit = T.bit.index_select(0, top) * (pile_n > 0)
    source = torch.cat((b.hand, b.disc, b.known, top_bit[None], seen.locked_bit[None], ctx.zero(N, b.device)[None]))
    words = source.t().gather(1, ctx.plane_index.index_select(0, cur))  # [N, 20]
    # each card's bit moved to bit 31 (int32 multiplication wraps), spread to -1 or 0, masked to 1.0f:
    # three passes (below, with the seat rows and globals)
    halves = torch.stack((words & HALF_BITS, words >> 26), -1).to(torch.int32)[..., None]
    planes = out.view(torch.int32)[:, :L.SEATS].view(N, NUM_PLANES, 2, NUM_CARDS // 2)
    # seat rows, relative to the observer: one code per seat
    alive = s[ALIVE]
    flags = torch.stack((b.tokens, (alive[None] >> ctx.seats) & 1, ctx.seats == s[KNOCKER], ctx.seats == s[DEALER]))
    code = (flags * ctx.seat_code[:, None, None]).sum(0)  # [n, N] by seat
    code = code.gather(0, T.rot.index_select(0, cur).t()) + ctx.seat_first  # by relative seat
    if n < L.MAX_SEATS:  # the seats the table does not have: the zero row
        code = torch.cat((code, ctx.seat_absent.expand(L.MAX_SEATS - n, N)))
    rows = ctx.seat_rows.index_select(0, code.t().reshape(-1)).view(N, L.GLOBAL - L.SEATS)
    # the global scalars
    zero = ctx.zero(N, b.device)
    turn = s[TURN].clamp(max=MAX_TURN_SCALE - 1)
    active = T.active.index_select(0, alive)
    codes = {L.PHASE + 1: seen.phase, L.PHASE + 2: seen.phase, L.STOCK: s[STOCK_N], L.PILE: pile_n,
             L.ANY_KNOCK: s[KNOCKER] + 1, L.TURN: turn, L.LAP: active * MAX_TURN_SCALE + turn,
             L.ROUND: s[ROUND].clamp(max=MAX_ROUND_SCALE - 1), L.ACTIVE: active, L.VALUE: hand_values(seen, T)}
    index = torch.stack([codes.get(L.GLOBAL + j, zero) for j in range(NUM_GLOBALS)], 1)
    index += ctx.global_base
    rest = torch.cat((rows, ctx.global_table.index_select(0, index.view(-1)).view(N, NUM_GLOBALS)), 1)
    for a in range(0, N, CHUNK):  # rows that stay in the cache from the first pass to the last
        part = planes[a:a + CHUNK]
        torch.mul(halves[a:a + CHUNK], T.unpack_mult, out=part)
        part >>= 31
        part &= FLOAT_ONE_BITS
        out[a:a + CHUNK, L.SEATS:] = rest[a:a + CHUNK]
    return out


def legal_mask(b: Batch, T: Tables, R: Rules, seen: Seen) -> torch.Tensor:
    """bool [N, NUM_ACTIONS]: the legal actions of the player to act."""
    N = b.n
    mask = torch.empty(N, A.NUM_ACTIONS, dtype=torch.bool, device=b.device)
    suits = (seen.legal[:, None] >> T.suit_shift) & SUIT_BITS
    mask[:, :NUM_CARDS] = T.suit_cards.index_select(0, suits.view(-1)).view(N, NUM_CARDS)
    drawing = seen.phase == DRAW
    code = drawing * (1 + knock_open(b, T, R, seen.hand))
    mask[:, NUM_CARDS:] = T.mask_tail.index_select(0, code)
    return mask
