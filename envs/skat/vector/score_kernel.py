"""The CPU kernel's scores: ``score.rewards_by_seat`` in scalar form, one finished deal after the other.

A deal ends every ten steps or so, so the tensor version ran its thirty-odd operations on a handful
of deals per step, and at 512 games in flight that was about a tenth of batched collection's time.
The same tables (``Tables``, ``score.seat_tables``), read the same way; ``tests/test_skat_vector.py``
compares both backends with the reference AEC env, rewards included, bit for bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

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
)
from envs.skat.vector.tables import NB


class ScoreKernel:
    """The host side: the scoring tables as numpy arrays."""

    def __init__(self, T, seats, ramsch: bool) -> None:
        npy = lambda t: t.cpu().numpy()  # noqa: E731
        self.ramsch = bool(ramsch)
        self.tables = (npy(T.contract_game), npy(T.seq), npy(T.matadors), npy(T.point_trick_class), npy(T.value),
                       npy(T.bid_value), npy(T.overbid_value), npy(T.made), npy(T.declarer_sign),
                       npy(seats[0]), npy(seats[1]), npy(T.pos_of_seat))

    def rewards(self, b, played: np.ndarray, rewards: np.ndarray) -> None:
        """Write each seat's score (float32) of the deals ``played`` into ``rewards[played]`` [N, 3];
        Ramsch also moves the skat's points to the last trick's winner in ``b.pos``, as the tensor
        version does."""
        score_deals(b.s.numpy(), b.pos.numpy(), b.dealt.numpy(), played, self.ramsch, *self.tables, rewards)


@njit(cache=True, nogil=True)
def score_deals(s, pos, dealt, played, ramsch, contract_game, seq, matadors, point_trick_class, value_table,
                bid_value, overbid_value, made, declarer_sign, seat_a, seat_b, pos_of_seat, rewards
                ):  # pragma: no cover
    for n in played:
        contract, declarer, level, bid, dealer = s[CONTRACT, n], s[DECLARER, n], s[LEVEL, n], s[BID, n], s[DEALER, n]
        d = max(declarer, 0)
        c = max(contract, 0)
        # the declarer's game: value by (contract, matadors, points and tricks class), then the bid; the
        # matadors count the cards the declarer held: the hand dealt and the skat
        cards = dealt[d, n] | dealt[DEALT_SKAT, n]
        d_points = pos[F_POINTS, d, n] + s[SKAT_POINTS, n]
        d_tricks = pos[F_TRICKS, d, n]
        game = contract_game[c]
        held = 0
        for j in range(seq.shape[1]):
            held += (cards >> seq[game, j] & 1) << j
        key = (c * 12 + matadors[game * 2048 + held]) * 12 + point_trick_class[d_points * 11 + d_tricks]
        value = value_table[key]
        overbid = value < bid_value[bid]
        if overbid:
            value = overbid_value[c * (NB + 1) + bid]
        won = 1 if made[key] and not overbid else 0
        x = (value << level) * declarer_sign[won]
        k = (won * 3 + dealer) * 3 + d
        for seat in range(3):
            rewards[n, seat] = seat_a[k, seat] * x + seat_b[k, seat]
        if ramsch and contract < 0:
            # Ramsch: a Durchmarsch wins; else the most points lose them, doubled per player without a trick
            leader = s[LEADER, n]
            pos[F_POINTS, leader, n] += s[SKAT_POINTS, n]
            top, no_trick, sweep = pos[F_POINTS, 0, n], 0, -1
            for q in range(3):
                top = max(top, pos[F_POINTS, q, n])
                no_trick += pos[F_TRICKS, q, n] == 0
                if pos[F_TRICKS, q, n] == 10:
                    sweep = q
            factor = 1 << no_trick
            for seat in range(3):
                q = pos_of_seat[dealer, seat]
                if sweep >= 0:
                    rewards[n, seat] = DURCHMARSCH_SCORE if q == sweep else 0
                else:
                    rewards[n, seat] = -(top * factor) if pos[F_POINTS, q, n] == top else 0
