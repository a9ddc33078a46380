"""The numpy form of every table and constant the rule-based Skat player decides by.

Nothing here is a new fact: each array is read, at import or when :func:`build` is called, from
the module that owns it (the card tables of ``envs.skat``, the hand models of
``agents.skat_hand``, the card-play constants of ``agents.skat_play``, the odds of
``agents.skat_seen``; the bidding constants and contract labels of ``agents.rule_skat`` arrive as
arguments, that module importing this package and not the other way round). The kernel takes
them as an argument rather than as globals because numba freezes globals into its on-disk cache:
a retuned weight would otherwise keep playing the old value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from agents import skat_hand as H
from agents import skat_play as P
from agents.skat_seen import VOIDP
from envs.skat import actions as A
from envs.skat.cards import EFF_SUIT, FOLLOW, NUM_CARDS, ORDER, POINTS, TOTAL_POINTS, TRUMP_SEQUENCES
from envs.skat.scoring import WIN_BONUS
from envs.skat.tables import (
    BEATERS,
    GAME_TYPES,
    HAND_SIZE,
    HIGHER,
    LOWER,
    NULL_VALUE,
    SKAT_SIZE,
    TRUMP_RANK,
    TRUMPS,
)

NUM_GAMES = len(GAME_TYPES)
FAMILIES = ("suit", "grand", "null")  # a model's row: 2 * family + post (``hand.model_row``)


class Tables(NamedTuple):
    """Everything the kernel reads; card sets are int64 bit sets, seats and games plain indices."""

    points: np.ndarray  # [32] card points
    order: np.ndarray  # [6, 32] strength inside the effective suit
    eff: np.ndarray  # [6, 32] effective suit (4 = trump)
    follow: np.ndarray  # [6, 5] cards of each effective suit
    higher: np.ndarray  # [6, 32]
    lower: np.ndarray  # [6, 32]
    beaters: np.ndarray  # [6, 32]
    trumps: np.ndarray  # [6]
    trump_rank: np.ndarray  # [32]
    trump_seq: np.ndarray  # [6, 11] the matador sequences (jacks, then a suit game's trumps), padded with -1
    seq_len: np.ndarray  # [6]
    base: np.ndarray  # [6] base values (0 for null)
    null_value: np.ndarray  # [2, 2] by (hand, ouvert)
    bid_values: np.ndarray  # [NUM_BIDS]
    label_action: np.ndarray  # [6, 2, 2] declare action of (game, hand, ouvert), -1 where none
    label_rank: np.ndarray  # [6, 2, 2] place of that label among all labels sorted as strings
    null_unsafe: np.ndarray  # [256] a suit byte with a gap in null
    model: np.ndarray  # [6, 3] bias, forehand and skat-point weights of each model row
    side: np.ndarray  # [6, 256] side-suit table of each model row
    trump: np.ndarray  # [6, 4096] trump table (jacks | trump byte << 4)
    jacks: np.ndarray  # [6, 16] grand's jack table
    null: np.ndarray  # [6, 256] null's suit table
    keep_level: np.ndarray  # [12]
    voidp: np.ndarray  # [33, 33, 11] VOIDP, zero where undefined
    ints: np.ndarray  # the integer constants, indexed by the I_* names
    floats: np.ndarray  # the float constants, indexed by the F_* names


# Indices into Tables.ints and Tables.floats.
I_PICKUP_CLUBS, I_DRAW_ALWAYS, I_TOTAL_POINTS, I_WIN_BONUS, I_HAND_SIZE = range(5)
(F_MARGIN, F_HAND_EDGE, F_RE_PROB, F_NULL_OUVERT_P, F_SKAT_SHARE, F_KEEP_TRUMP, F_KEEP_TRUMP_POINTS,
 F_KEEP_TRUMP_RANK, F_RESPONSE, F_WAY, F_DEF_CASH, F_DEF_PARTNER_RUFF, F_DEF_TRUMP_LEAD) = range(13)


def _i(x: object) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(x, dtype=np.int64))


def _f(x: object) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(x, dtype=np.float64))


def _models() -> tuple[np.ndarray, ...]:
    """Each model's weights and lookup tables, one row per (family, post); a family's missing tables are zeros."""
    rows = 2 * len(FAMILIES)
    size = {name: len(getattr(H.MODELS[family, False], name)) for family in FAMILIES
            for name in ("side", "trump", "jacks", "null") if getattr(H.MODELS[family, False], name) is not None}
    model = np.zeros((rows, 3))
    side, trump = np.zeros((rows, size["side"])), np.zeros((rows, size["trump"]))
    jacks, null = np.zeros((rows, size["jacks"])), np.zeros((rows, size["null"]))
    for f, family in enumerate(FAMILIES):
        for post in (False, True):
            m = H.MODELS[family, post]
            row = 2 * f + post
            model[row] = (m.bias, m.fore, m.skat)
            for table, values in ((side, m.side), (trump, m.trump), (jacks, m.jacks), (null, m.null)):
                if values is not None:
                    table[row] = values
    return _f(model), _f(side), _f(trump), _f(jacks), _f(null)


def _voidp() -> np.ndarray:
    out = np.zeros((NUM_CARDS + 1, NUM_CARDS + 1, HAND_SIZE + 1))
    for n, row in enumerate(VOIDP):
        for k, values in enumerate(row):
            out[n, k] = values
    return _f(out)


def _labels(labels: Mapping[tuple[int, bool, bool], str]) -> tuple[np.ndarray, np.ndarray]:
    ranks = {label: i for i, label in enumerate(sorted(A.CONTRACT_BY_LABEL))}
    action = np.full((NUM_GAMES, 2, 2), -1)
    rank = np.full((NUM_GAMES, 2, 2), -1)
    for (g, hand, ouvert), label in labels.items():
        if label in A.CONTRACT_BY_LABEL:
            action[g, int(hand), int(ouvert)] = A.DECLARE + A.CONTRACT_BY_LABEL[label]
            rank[g, int(hand), int(ouvert)] = ranks[label]
    return _i(action), _i(rank)


def build(margin: float, hand_edge: float, re_prob: float, null_ouvert_p: float,
          labels: Mapping[tuple[int, bool, bool], str], pickup_clubs: int) -> Tables:
    """The kernel's tables, with the bidding constants and labels of ``agents.rule_skat``."""
    seq = np.full((NUM_GAMES, max(len(s) for s in TRUMP_SEQUENCES)), -1)
    for g in GAME_TYPES:
        seq[g, :len(TRUMP_SEQUENCES[g])] = TRUMP_SEQUENCES[g]
    model, side, trump, jacks, null = _models()
    label_action, label_rank = _labels(labels)
    floats = [0.0] * 13
    floats[F_MARGIN], floats[F_HAND_EDGE], floats[F_RE_PROB], floats[F_NULL_OUVERT_P] = (
        margin, hand_edge, re_prob, null_ouvert_p)
    floats[F_SKAT_SHARE] = H.UNSEEN / SKAT_SIZE  # skat_guess divides by this
    floats[F_KEEP_TRUMP], floats[F_KEEP_TRUMP_POINTS], floats[F_KEEP_TRUMP_RANK] = (
        P.KEEP_TRUMP, P.KEEP_TRUMP_POINTS, P.KEEP_TRUMP_RANK)
    floats[F_RESPONSE], floats[F_WAY] = P.RESPONSE, P.WAY
    floats[F_DEF_CASH], floats[F_DEF_PARTNER_RUFF], floats[F_DEF_TRUMP_LEAD] = (
        P.DEF_CASH, P.DEF_PARTNER_RUFF, P.DEF_TRUMP_LEAD)
    ints = [0] * 5
    ints[I_PICKUP_CLUBS], ints[I_DRAW_ALWAYS] = pickup_clubs, P.DRAW_ALWAYS
    ints[I_TOTAL_POINTS], ints[I_WIN_BONUS], ints[I_HAND_SIZE] = TOTAL_POINTS, WIN_BONUS, HAND_SIZE
    return Tables(
        points=_i(POINTS), order=_i(ORDER), eff=_i(EFF_SUIT), follow=_i(FOLLOW), higher=_i(HIGHER),
        lower=_i(LOWER), beaters=_i(BEATERS), trumps=_i(TRUMPS), trump_rank=_i(TRUMP_RANK), trump_seq=_i(seq),
        seq_len=_i([len(s) for s in TRUMP_SEQUENCES]),
        base=_i([A.BASE_VALUES.get(g, 0) for g in GAME_TYPES]),
        null_value=_i([[NULL_VALUE[h, o] for o in (False, True)] for h in (False, True)]),
        bid_values=_i(A.BID_VALUES), label_action=label_action, label_rank=label_rank,
        null_unsafe=_i([H.null_features(b)[1] > 0 for b in range(256)]),
        model=model, side=side, trump=trump, jacks=jacks, null=null, keep_level=_f(H.KEEP_LEVEL), voidp=_voidp(),
        ints=_i(ints), floats=_f(floats),
    )

