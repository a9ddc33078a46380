"""``envs.skat.observation.decode`` in scalar form: the fields the rule player reads, from one row.

Each test is the one ``SkatView`` makes, so that odd vectors decode alike: a card plane bit and a
flag are set above 0.5, a one-hot field is the first entry equal to 1.0 (-1 when none is), a count
is rounded half to even (Python's ``round``), and the voids are read only when some entry is 1.0.
"""

from __future__ import annotations

import numpy as np

from agents.rule_skat_kernel.jit import inner
from envs.skat.actions import MAX_BID
from envs.skat.cards import GAME_NAMES, NUM_CARDS
from envs.skat.observation import (
    BID,
    DECLARER,
    GAME_TYPE,
    HAND,
    LEADER,
    NUM_EFFECTIVE_SUITS,
    OPEN_HAND,
    PHASE,
    PLAYED,
    POSITION,
    RAMSCH,
    SKAT_PUT,
    TRICK,
    VOIDS,
)
from envs.skat.rules import PHASE_NAMES, POSITION_NAMES

NUM_PHASES = len(PHASE_NAMES)
NUM_POSITIONS = len(POSITION_NAMES)
NUM_GAME_NAMES = len(GAME_NAMES)
# Where each decoded field sits in the int64 row that decode_row fills.
(D_HAND, D_SKAT_PUT, D_PLAYED, D_TRICK, D_OPEN_HAND, D_POSITION, D_PHASE, D_BID, D_DECLARER, D_GAME_TYPE,
 D_RAMSCH, D_LEADER, D_VOIDS) = (0, 1, 2, 5, 8, 9, 10, 11, 12, 13, 14, 15, 16)
D_SIZE = D_VOIDS + 3


@inner
def _plane(row: np.ndarray, offset: int) -> int:
    bits = 0
    for c in range(NUM_CARDS):
        if row[offset + c] > 0.5:
            bits |= 1 << c
    return bits


@inner
def _one_hot(row: np.ndarray, offset: int, size: int) -> int:
    for i in range(size):
        if row[offset + i] == 1.0:
            return i
    return -1


@inner
def decode_row(row: np.ndarray, out: np.ndarray) -> None:
    """Fill ``out`` (int64 [D_SIZE]) with the decoded fields of one observation row."""
    out[D_HAND] = _plane(row, HAND)
    out[D_SKAT_PUT] = _plane(row, SKAT_PUT)
    for r in range(3):
        out[D_PLAYED + r] = _plane(row, PLAYED + NUM_CARDS * r)
        out[D_TRICK + r] = _plane(row, TRICK + NUM_CARDS * r)
    out[D_OPEN_HAND] = _plane(row, OPEN_HAND)
    out[D_POSITION] = _one_hot(row, POSITION, NUM_POSITIONS)
    out[D_PHASE] = _one_hot(row, PHASE, NUM_PHASES)
    out[D_BID] = int(np.rint(np.float64(row[BID]) * MAX_BID))  # as round(float(x) * 264)
    out[D_DECLARER] = _one_hot(row, DECLARER, 3)
    out[D_GAME_TYPE] = _one_hot(row, GAME_TYPE, NUM_GAME_NAMES)
    out[D_RAMSCH] = 1 if row[RAMSCH] > 0.5 else 0
    out[D_LEADER] = _one_hot(row, LEADER, 3)
    any_void = False
    for i in range(3 * NUM_EFFECTIVE_SUITS):
        if row[VOIDS + i] == 1.0:
            any_void = True
    for r in range(3):
        v = 0
        if any_void:
            for e in range(NUM_EFFECTIVE_SUITS):
                if row[VOIDS + NUM_EFFECTIVE_SUITS * r + e] > 0.5:
                    v |= 1 << e
        out[D_VOIDS + r] = v
