"""Observation vectors and action masks of the batched Thirty-One engine, equal to
``envs.thirtyone.observation`` (layout there, ``OBSERVATION_VERSION`` shared) and the rules core's
``legal_bytes``, for the player to act."""

from __future__ import annotations

import torch

from envs.thirtyone import actions as A
from envs.thirtyone import observation as L
from envs.thirtyone.cards import NUM_CARDS
from envs.thirtyone.rules import DISCARD, DRAW
from envs.thirtyone.vector.engine import (
    ALIVE,
    CUR,
    DEALER,
    KNOCKER,
    LOCKED,
    PHASE,
    PILE_N,
    ROUND,
    STOCK_N,
    TURN,
    Batch,
    Rules,
    best_after_discard,
    hand_value,
    knock_open,
    unpack52,
)
from envs.thirtyone.vector.tables import MAX_ROUND_SCALE, MAX_TURN_SCALE, Tables

FLOAT_ONE_BITS = 0x3F800000
NUM_PLANES = L.SEATS // NUM_CARDS  # 20


class Context:
    """Per env: the plane sources of each observer, the option scalars, the lives scaling."""

    def __init__(self, T: Tables, R: Rules, options) -> None:
        n, dev = R.n, T.device
        zero, top, locked = 3 * n + 2, 3 * n, 3 * n + 1  # rows of the source stack after hands, discards, known
        index = []
        for o in range(n):
            row = [o, top, locked]
            row += [n + (o + r) % n if r < n else zero for r in range(L.MAX_SEATS)]
            row += [2 * n + (o + r) % n if r < n else zero for r in range(1, L.MAX_SEATS)]
            index.append(row)
        self.plane_index = torch.tensor(index, dtype=torch.int64, device=dev).t().contiguous()  # [20, n]
        g = torch.zeros(L.OBS_SIZE - L.GLOBAL, dtype=torch.float32, device=dev)
        g[L.PLAYERS - L.GLOBAL] = n / 9.0
        g[L.MIN_KNOCK - L.GLOBAL] = (options.min_knock_score or 0) / 31.0
        g[L.ROUND_EP - L.GLOBAL] = float(options.episode == "round")
        self.globals = g
        free = 1 if R.free_ride else 0
        self.lives_value = torch.tensor([max(0, t - free) / float(R.lives) for t in range(R.start_tokens + 1)],
                                        dtype=torch.float32, device=dev)
        self.active_value = torch.tensor([a / 9.0 for a in range(L.MAX_SEATS + 1)], dtype=torch.float32, device=dev)
        self.free_ride = R.free_ride


def observe(b: Batch, T: Tables, R: Rules, ctx: Context) -> torch.Tensor:
    """float32 [N, OBS_SIZE]: the observation of the player to act."""
    n, N, s = b.seats, b.n, b.s
    cur, phase = s[CUR], s[PHASE]
    out = torch.empty(N, L.OBS_SIZE, dtype=torch.float32, device=b.device)
    top = torch.where(s[PILE_N] > 0, b.pile.gather(0, (s[PILE_N] - 1).clamp(min=0)[None])[0], NUM_CARDS)
    locked = torch.where(s[LOCKED] >= 0, s[LOCKED], NUM_CARDS)
    source = torch.cat((b.hand, b.disc, b.known, T.bit.index_select(0, top)[None], T.bit.index_select(0, locked)[None],
                        torch.zeros(1, N, dtype=torch.int64, device=b.device)))
    words = source.gather(0, ctx.plane_index.index_select(1, cur))  # [20, N]
    planes = out.view(torch.int32)[:, :L.SEATS].view(N, NUM_PLANES, NUM_CARDS)
    unpack52(words, T, out=planes)
    planes >>= 31
    planes &= FLOAT_ONE_BITS
    # seat rows, relative to the observer
    rot = T.rot.index_select(0, cur)  # [N, n] seat of relative seat r
    alive = (s[ALIVE][:, None] >> rot) & 1
    tokens = b.tokens.gather(0, rot.t()).t()
    f = torch.zeros(N, n, L.SEAT_FEATURES, dtype=torch.float32, device=b.device)
    f[:, :, L.PRESENT] = 1.0
    f[:, :, L.OUT] = (1 - alive).float()
    f[:, :, L.LIVES] = ctx.lives_value.index_select(0, tokens.reshape(-1)).view(N, n)
    if ctx.free_ride:
        f[:, :, L.COUNTY] = (tokens == 1).float()
    f[:, :, L.KNOCKED] = (rot == s[KNOCKER][:, None]).float()
    f[:, :, L.DEALER] = (rot == s[DEALER][:, None]).float()
    f[:, 0, L.TO_ACT] = 1.0
    seats = out[:, L.SEATS:L.GLOBAL]
    seats[:, :n * L.SEAT_FEATURES] = f.view(N, -1)
    seats[:, n * L.SEAT_FEATURES:] = 0.0
    # the global scalars
    g = out[:, L.GLOBAL:]
    g.copy_(ctx.globals.expand(N, -1))
    g[:, L.PHASE - L.GLOBAL + 1] = (phase == DRAW).float()
    g[:, L.PHASE - L.GLOBAL + 2] = (phase == DISCARD).float()
    g[:, L.STOCK - L.GLOBAL] = T.stock_value.index_select(0, s[STOCK_N])
    g[:, L.PILE - L.GLOBAL] = T.stock_value.index_select(0, s[PILE_N])
    g[:, L.ANY_KNOCK - L.GLOBAL] = (s[KNOCKER] >= 0).float()
    turn = s[TURN].clamp(max=MAX_TURN_SCALE - 1)
    active = T.active.index_select(0, s[ALIVE])
    g[:, L.TURN - L.GLOBAL] = T.turn_value.index_select(0, turn)
    g[:, L.LAP - L.GLOBAL] = T.lap_value.index_select(0, active * MAX_TURN_SCALE + turn)
    g[:, L.ROUND - L.GLOBAL] = T.round_value.index_select(0, s[ROUND].clamp(max=MAX_ROUND_SCALE - 1))
    g[:, L.ACTIVE - L.GLOBAL] = ctx.active_value.index_select(0, active)
    hand = b.hand.gather(0, cur[None])[0]
    value = torch.where(phase == DISCARD, best_after_discard(hand, s[LOCKED], T), hand_value(hand, T))
    g[:, L.VALUE - L.GLOBAL] = T.value_value.index_select(0, value)
    return out


def legal_mask(b: Batch, T: Tables, R: Rules) -> torch.Tensor:
    """bool [N, NUM_ACTIONS]: the legal actions of the player to act."""
    s = b.s
    N = b.n
    phase = s[PHASE]
    mask = torch.zeros(N, A.NUM_ACTIONS, dtype=torch.bool, device=b.device)
    hand = b.hand.gather(0, s[CUR][None])[0]
    locked = T.bit.index_select(0, torch.where(s[LOCKED] >= 0, s[LOCKED], NUM_CARDS))
    cards = (hand & ~locked) * (phase == DISCARD)
    mask[:, :NUM_CARDS] = (unpack52(cards, T) >> 31).to(torch.bool)
    drawing = phase == DRAW
    mask[:, A.DRAW] = drawing
    mask[:, A.TAKE] = drawing
    mask[:, A.KNOCK] = drawing & knock_open(b, T, R)
    return mask
