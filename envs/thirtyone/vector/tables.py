"""Lookup tables of the batched Thirty-One engine, built once from the reference modules.

Hand values come from ``envs.thirtyone.cards.VALUE`` (a suit's cards summed, as
``scoring.hand_value``), elimination rewards from ``scoring.elimination_reward``, the seating of a
round from ``deal.seat_layout``, the float scalings from ``observation_ref.encode_reference``'s
formulas. :func:`tables` caches one set per device and player count.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import torch

from envs.thirtyone import actions as A
from envs.thirtyone.cards import NUM_CARDS, RANK, SUIT, VALUE
from envs.thirtyone.deal import seat_layout
from envs.thirtyone.observation import MAX_SEATS
from envs.thirtyone.scoring import elimination_reward

RANKS = 13
SUIT_BITS = (1 << RANKS) - 1
MAX_TURN_SCALE = 101  # turn counters past this are capped in every scaled entry
MAX_ROUND_SCALE = 31


def _f32(x: float) -> float:
    return float(np.float32(x))


@dataclass
class Tables:
    device: torch.device
    n: int  # players at the table
    suit_sum: torch.Tensor  # [8192] the card values of a suit's 13-bit rank set, summed
    suit_min: torch.Tensor  # [8192] the smallest card value of a suit's rank set (0: empty)
    suit_cards: torch.Tensor  # bool [8192, 13] a suit's rank set, one flag per rank
    mask_tail: torch.Tensor  # bool [3, 5] the actions after the discards: not drawing, drawing, drawing + knock
    suit_shift: torch.Tensor  # [4] 13 * suit
    bit: torch.Tensor  # [53] 1 << card, 0 at 52
    next_seat: torch.Tensor  # [2**n * n] next seat clockwise that is still in (by alive mask, seat)
    deal_at: torch.Tensor  # [2**n * n, 3n + 1] (alive mask, dealer) -> deck positions dealt (see _host)
    seated: torch.Tensor  # bool [2**n, n] alive mask -> the seats in
    dealt_stock: torch.Tensor  # [2**n] alive mask -> the stock left after a deal
    active: torch.Tensor  # [2**n] players in
    rot: torch.Tensor  # [n, n] observer, relative seat -> seat
    seat_ids: torch.Tensor  # [n, 1] 0..n-1
    unpack_mult: torch.Tensor  # int32 [26]: multiplying by it moves bit i to bit 31
    stock_value: torch.Tensor  # float32 [53]: size / 52
    turn_value: torch.Tensor  # float32 [MAX_TURN_SCALE]: min(turn / 100, 1)
    lap_value: torch.Tensor  # float32 [10 * MAX_TURN_SCALE]: active, turn -> min(turn / (10 active), 1)
    round_value: torch.Tensor  # float32 [MAX_ROUND_SCALE]: min(round / 30, 1)
    value_value: torch.Tensor  # float32 [33]: hand value / 32
    elimination: dict  # scheme -> float32 [(n + 1) * (n + 1)]: (already out, out now) -> reward


@cache
def _host(n: int) -> dict:
    t: dict = {}
    suit_values = [VALUE[r] for r in range(RANKS)]  # VALUE of the club cards: ranks 2..A
    assert all(VALUE[s * RANKS + r] == suit_values[r] and SUIT[s * RANKS + r] == s and RANK[s * RANKS + r] == r
               for s in range(4) for r in range(RANKS))
    t["suit_sum"] = [sum(suit_values[r] for r in range(RANKS) if m >> r & 1) for m in range(1 << RANKS)]
    t["suit_min"] = [min((suit_values[r] for r in range(RANKS) if m >> r & 1), default=0) for m in range(1 << RANKS)]
    t["suit_cards"] = [[bool(m >> r & 1) for r in range(RANKS)] for m in range(1 << RANKS)]
    tail = [A.DRAW, A.TAKE, A.KNOCK, A.THROW_DOWN, A.LOOK]
    t["mask_tail"] = [[a in allowed for a in tail] for allowed in ((), (A.DRAW, A.TAKE), (A.DRAW, A.TAKE, A.KNOCK))]
    t["bit"] = [1 << c for c in range(NUM_CARDS)] + [0]
    nxt = np.full((1 << n, n), -1, dtype=np.int64)
    pos = np.full((1 << n, n, n), -1, dtype=np.int64)
    for mask in range(1, 1 << n):
        alive = [bool(mask >> s & 1) for s in range(n)]
        for dealer in range(n):
            seats, next_seat = seat_layout(dealer, alive)
            for j, s in enumerate(seats):
                pos[mask, dealer, s] = j
                assert next_seat[s] == next((s + i) % n for i in range(1, n + 1) if alive[(s + i) % n])
        for s in range(n):  # the next seat clockwise that is in (from any seat, in or out)
            nxt[mask, s] = next((s + i) % n for i in range(1, n + 1) if alive[(s + i) % n])
    t["next_seat"] = nxt.reshape(-1)
    t["active"] = [bin(m).count("1") for m in range(1 << n)]
    # a deal by (alive mask, dealer): the deck position of card k of seat s at k * n + s (0 for a seat
    # out), the turned-up card's at 3 n; the seats in; the stock left
    at = np.zeros((1 << n, n, 3 * n + 1), dtype=np.int64)
    for mask in range(1, 1 << n):
        m = t["active"][mask]
        for dealer in range(n):
            for s in range(n):
                if pos[mask, dealer, s] >= 0:
                    at[mask, dealer, [k * n + s for k in range(3)]] = [pos[mask, dealer, s] + k * m for k in range(3)]
            at[mask, dealer, 3 * n] = 3 * m
    t["deal_at"] = at.reshape((1 << n) * n, 3 * n + 1)
    t["seated"] = [[bool(m >> s & 1) for s in range(n)] for m in range(1 << n)]
    t["dealt_stock"] = [NUM_CARDS - 3 * a - 1 for a in t["active"]]
    t["rot"] = [[(o + r) % n for r in range(n)] for o in range(n)]
    t["unpack_mult"] = np.array([1 << (31 - i) for i in range(26)], dtype=np.uint32).view(np.int32)
    t["stock_value"] = [_f32(k / 52.0) for k in range(NUM_CARDS + 1)]
    t["turn_value"] = [_f32(x / 100.0 if x < 100 else 1.0) for x in range(MAX_TURN_SCALE)]
    t["lap_value"] = [_f32(min(x * (1.0 / (10.0 * a)), 1.0)) if a else 0.0
                      for a in range(10) for x in range(MAX_TURN_SCALE)]
    t["round_value"] = [_f32(min(r / 30.0, 1.0)) for r in range(MAX_ROUND_SCALE)]
    t["value_value"] = [_f32(v / 32.0) for v in range(33)]
    t["elimination"] = {
        scheme: [_f32(elimination_reward(n, out, now, scheme)) if 1 <= now <= n - out else 0.0
                 for out in range(n + 1) for now in range(n + 1)]
        for scheme in ("win", "placement")
    }
    return t


@cache
def tables(n: int, device: str | torch.device = "cpu") -> Tables:
    device = torch.device(device)
    h = _host(n)

    def i64(x) -> torch.Tensor:
        return torch.as_tensor(np.asarray(x, dtype=np.int64), device=device)

    def f32(x) -> torch.Tensor:
        return torch.as_tensor(np.asarray(x, dtype=np.float32), device=device)

    return Tables(
        device=device, n=n,
        suit_sum=i64(h["suit_sum"]), suit_min=i64(h["suit_min"]),
        suit_cards=torch.tensor(h["suit_cards"], dtype=torch.bool, device=device),
        mask_tail=torch.tensor(h["mask_tail"], dtype=torch.bool, device=device),
        suit_shift=i64([RANKS * s for s in range(4)]), bit=i64(h["bit"]),
        next_seat=i64(h["next_seat"]), deal_at=i64(h["deal_at"]),
        seated=torch.tensor(h["seated"], dtype=torch.bool, device=device), dealt_stock=i64(h["dealt_stock"]),
        active=i64(h["active"]), rot=i64(h["rot"]), seat_ids=i64(range(n))[:, None],
        unpack_mult=torch.as_tensor(h["unpack_mult"], device=device),
        stock_value=f32(h["stock_value"]), turn_value=f32(h["turn_value"]), lap_value=f32(h["lap_value"]),
        round_value=f32(h["round_value"]), value_value=f32(h["value_value"]),
        elimination={k: f32(v) for k, v in h["elimination"].items()},
    )


assert MAX_SEATS == 9 and A.NUM_ACTIONS == NUM_CARDS + 5
