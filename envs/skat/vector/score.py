"""Scores of the deals a batched step finished: ``settle`` and ``seat_scores`` of the declarer's
game (through the tables of ``envs.skat.vector.tables``, built from ``envs.skat.scoring``) or
the Ramsch rules of ``envs.skat.scoring.ramsch_scores``."""

from __future__ import annotations

import torch

from envs.skat.cards import NULL
from envs.skat.scoring import DURCHMARSCH_SCORE
from envs.skat.vector.engine import (
    BID,
    CONTRACT,
    DEALER,
    DECLARER,
    F_POINTS,
    F_TRICKS,
    HANDS,
    LEADER,
    LEVEL,
    PLAYED,
    SKAT_DEALT,
    SKAT_NOW,
    SKAT_POINTS,
    Batch,
)
from envs.skat.vector.tables import NB, Tables


def _pick(table: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    return table.index_select(0, index)


def rewards_by_seat(b: Batch, idx: torch.Tensor, T: Tables, system: str, ramsch: bool) -> torch.Tensor:
    """float32 [M, 3]: what each seat (player_0..2) scores in the deals ``idx``, played out in this
    step. Ramsch gives the skat's points to the winner of the last trick, in ``b.pos`` too (the
    final observation shows them)."""
    s, sets, pos = b.s[:, idx], b.sets[:, idx], b.pos[F_POINTS:F_TRICKS + 1, :, idx]
    contract, declarer, level, bid, dealer = s[CONTRACT], s[DECLARER], s[LEVEL], s[BID], s[DEALER]
    points, tricks = pos[0], pos[1]
    d = declarer.clamp(min=0)[None]
    c = contract.clamp(min=0)
    # the declarer's game: value by (contract, matadors, points and tricks class), then the bid
    cards = ((sets[HANDS:HANDS + 3] | sets[PLAYED:PLAYED + 3]).gather(0, d)[0] | sets[SKAT_NOW]
             | sets[SKAT_DEALT])
    d_points = points.gather(0, d)[0] + s[SKAT_POINTS]
    d_tricks = tricks.gather(0, d)[0]
    game = _pick(T.contract_game, c)
    seq = cards[:, None] >> T.seq.index_select(0, game.clamp(max=4)) & 1
    mat = torch.where(game == NULL, 1, _pick(T.matadors, game.clamp(max=4) * 2048 + (seq * T.pow11).sum(1)))
    pclass = (d_points >= 31).long() + (d_points >= 61) + (d_points >= 90)
    tclass = (d_tricks >= 1).long() + (d_tricks >= 10)
    key = ((c * 12 + mat) * 4 + pclass) * 3 + tclass
    value = _pick(T.value, key)
    overbid = value < _pick(T.bid_value, bid)
    value = torch.where(overbid, _pick(T.overbid_value, c * (NB + 1) + bid), value)
    won = (_pick(T.made, key) & ~overbid).long()
    x = value * (1 << level) * _pick(T.declarer_sign, won)
    # seats relative to the declarer: 0 the declarer, 1 and 2 the next seats
    rel = T.rel_seat.index_select(0, dealer * 3 + d[0]).t()  # [3 seats, M]
    scores = (T.score_a[system].index_select(0, won).t().gather(0, rel) * x
              + T.score_b[system].index_select(0, won).t().gather(0, rel))
    if ramsch:  # Ramsch: a Durchmarsch wins; else the most points lose them, doubled per player without a trick
        is_ramsch = contract < 0
        points = points + (T.ar3[:, None] == s[LEADER]) * (s[SKAT_POINTS] * is_ramsch)
        b.pos[F_POINTS, :, idx] = points
        sweep = tricks == 10
        top = points.max(0).values
        factor = 1 << (tricks == 0).sum(0)
        r = torch.where(points == top, -(top * factor), 0)
        r = torch.where(sweep.any(0), sweep * DURCHMARSCH_SCORE, r)  # by position
        r = r.gather(0, T.pos_of_seat.index_select(0, dealer).t())
        scores = torch.where(is_ramsch, r, scores)
    return scores.t().to(torch.float32)
