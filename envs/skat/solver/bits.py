"""Constants, the transposition table's layout and the small bit-set helpers of the solver's kernel (numba)."""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.numba_bits import popcount as _popcount  # noqa: F401  (the solver kernel imports it from here)

MODE_POINTS, MODE_TRICKS, MODE_NULL = 0, 1, 2
TT_BITS = 20
TT_SIZE = 1 << TT_BITS
EMPTY = -1
# params: mode, solo, solo_max, last_bonus, generation
P_MODE, P_SOLO, P_SOLO_MAX, P_LAST_BONUS, P_GEN, P_LIMIT = range(6)
ABORTED = -(1 << 30)  # returned when the node limit (params[P_LIMIT], counted in stats) is passed
# stats: nodes, tt hits
S_NODES, S_TT_HITS, S_HIST = 0, 1, 2  # S_HIST.. : history counts per (player, card)
STATS_SIZE = S_HIST + 96

_DEBRUIJN = 0x03F79D71B4CB0A89
_DEBRUIJN_TABLE = np.array(
    [0, 1, 48, 2, 57, 49, 28, 3, 61, 58, 50, 42, 38, 29, 17, 4, 62, 55, 59, 36, 53, 51, 43, 22, 45, 39, 33,
     30, 24, 18, 12, 5, 63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11, 46, 26, 40, 15, 34,
     20, 31, 10, 25, 14, 19, 9, 13, 8, 7, 6], dtype=np.int64)


def new_table() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """An empty transposition table: keys, lower bounds, upper bounds, best first card."""
    return (np.full(TT_SIZE, EMPTY, dtype=np.int64), np.zeros(TT_SIZE, dtype=np.int16),
            np.zeros(TT_SIZE, dtype=np.int16), np.full(TT_SIZE, -1, dtype=np.int8))



@njit(cache=True, inline="always")
def _low_index(x: int, table: np.ndarray) -> int:
    low = x & -x
    return table[((low * _DEBRUIJN) >> 58) & 63]


@njit(cache=True, inline="always")
def _mask_points(m: int, ptsb: np.ndarray) -> int:
    return ptsb[m & 0xFF] + ptsb[(m >> 8) & 0xFF] + ptsb[(m >> 16) & 0xFF] + ptsb[(m >> 24) & 0xFF]


@njit(cache=True, inline="always")
def _beats(c: int, b: int, eff: np.ndarray, order: np.ndarray) -> bool:
    """Card c, played after b, beats it (higher in the same effective suit, or a trump on a plain card)."""
    ec, eb = eff[c], eff[b]
    if ec == eb:
        return order[c] > order[b]
    return ec == 4 and eb != 4


@njit(cache=True, inline="always")
def _slot(rem: int, leader: int) -> int:
    x = (rem * 0x9E3779B1 + leader * 0x85EBCA6B) & 0x7FFFFFFFFFFFFFFF
    return ((x ^ (x >> 23)) & (TT_SIZE - 1)) & ~1
