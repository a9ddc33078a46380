"""Bit-set helpers shared by the rules cores (a set of cards is an int, bit c = card id c)."""

from __future__ import annotations


def cards_of(mask: int) -> list[int]:
    """Card ids in a bit set, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
