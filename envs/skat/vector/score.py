"""Scores of the deals a batched step finished: ``settle`` and ``seat_scores`` of the declarer's
game (through the tables of ``envs.skat.vector.tables``, built from ``envs.skat.scoring``) or
the Ramsch rules of ``envs.skat.scoring.ramsch_scores``."""

from __future__ import annotations

import torch

from envs.skat.scoring import DURCHMARSCH_SCORE
from envs.skat.vector.engine import (
    BID,
    CONTRACT,
    DEALER,
    DEALT_SKAT,
    DECLARER,
    F_POINTS,
    F_TRICKS,
    LEADER,
    LEVEL,
    SKAT_POINTS,
    Batch,
    pick,
)
from envs.skat.vector.tables import NB, Tables


def seat_tables(T: Tables, system: str) -> tuple[torch.Tensor, torch.Tensor]:
    """[2 * 9, 3] by (won, dealer, declarer position): per seat the factor of the declarer score and
    the constant (``seat_scores`` is affine in it)."""
    rel = T.rel_seat  # [dealer * 3 + declarer position, seat] -> seat relative to the declarer
    return T.score_a[system][:, rel].reshape(18, 3), T.score_b[system][:, rel].reshape(18, 3)


def rewards_by_seat(b: Batch, idx: torch.Tensor, T: Tables, seats: tuple[torch.Tensor, torch.Tensor],
                    ramsch: bool) -> torch.Tensor:
    """float32 [M, 3]: what each seat (player_0..2) scores in the deals ``idx``, played out in this
    step (``seats``: :func:`seat_tables` of the scoring system). Ramsch gives the skat's points to
    the winner of the last trick, in ``b.pos`` too (the final observation shows them)."""
    s, pos, dealt = b.s[:, idx], b.pos[F_POINTS:F_TRICKS + 1, :, idx], b.dealt[:, idx]
    contract, declarer, level, bid, dealer = s[CONTRACT], s[DECLARER], s[LEVEL], s[BID], s[DEALER]
    points, tricks = pos[0], pos[1]
    d = declarer.clamp(min=0)
    c = contract.clamp(min=0)
    # the declarer's game: value by (contract, matadors, points and tricks class), then the bid; the
    # matadors count the cards the declarer held: the hand dealt and the skat
    cards = dealt.gather(0, d[None])[0] | dealt[DEALT_SKAT]
    d_points = points.gather(0, d[None])[0] + s[SKAT_POINTS]
    d_tricks = tricks.gather(0, d[None])[0]
    game = pick(T.contract_game, c)
    seq = cards[:, None] >> T.seq.index_select(0, game) & 1
    mat = pick(T.matadors, game * 2048 + (seq * T.pow11).sum(1))
    key = (c * 12 + mat) * 12 + pick(T.point_trick_class, d_points * 11 + d_tricks)
    value = pick(T.value, key)
    overbid = value < pick(T.bid_value, bid)
    value = torch.where(overbid, pick(T.overbid_value, c * (NB + 1) + bid), value)
    won = (pick(T.made, key) & ~overbid).long()
    x = (value << level) * pick(T.declarer_sign, won)
    k = (won * 3 + dealer) * 3 + d
    scores = seats[0].index_select(0, k) * x[:, None] + seats[1].index_select(0, k)  # [M, seats]
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
        scores = torch.where(is_ramsch[:, None], r.t(), scores)
    return scores.to(torch.float32)
