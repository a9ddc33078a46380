"""Bit-set helpers for the numba kernels of both games (a hand or a set of seats is an int bit set)."""

from __future__ import annotations

from numba import njit


@njit(cache=True, inline="always")
def popcount(x: int) -> int:
    """The number of set bits of ``x`` (Kernighan's loop: one pass per set bit, and hands are small)."""
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n
