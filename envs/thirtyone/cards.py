"""The Thirty-One deck: card ids, notation and card values.

A card is an int 0..51: ``suit * 13 + rank`` with suits C S H D (0..3) and ranks
2 3 4 5 6 7 8 9 T J Q K A (0..12), so ``C2`` is 0, ``HK`` is 37 and ``DA`` is 51. A set of cards
is an int bit set (bit ``c`` = card ``c``). The 32-card (Schwimmen-style) deck keeps the same ids
and uses only the ranks 7..A.

Card values: A = 11, K Q J T = 10, the others their pips.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from envs.bitset import cards_of  # noqa: F401  (re-exported: part of this module's API)

SUITS = "CSHD"
RANKS = "23456789TJQKA"
SUIT_SYMBOLS = "♣♠♥♦"  # render only
NUM_CARDS = 52
ACE = 12
SEVEN = 5  # lowest rank of the 32-card deck

SUIT: tuple[int, ...] = tuple(c // 13 for c in range(NUM_CARDS))
RANK: tuple[int, ...] = tuple(c % 13 for c in range(NUM_CARDS))
VALUE: tuple[int, ...] = tuple(11 if r == ACE else min(r + 2, 10) for r in RANK)

DECK_52: tuple[int, ...] = tuple(range(NUM_CARDS))
DECK_32: tuple[int, ...] = tuple(c for c in range(NUM_CARDS) if RANK[c] >= SEVEN)
DECKS = {52: DECK_52, 32: DECK_32}


def card(name: str | int) -> int:
    """``"HK"`` -> 37 (an int in range is passed through). Raises ValueError naming the bad value."""
    if isinstance(name, int) and not isinstance(name, bool):
        if 0 <= name < NUM_CARDS:
            return int(name)
        raise ValueError(f"card id {name} out of range 0..{NUM_CARDS - 1}")
    if isinstance(name, str):
        s = name.strip().upper().replace("10", "T")
        if len(s) == 2 and s[0] in SUITS and s[1] in RANKS:
            return SUITS.index(s[0]) * 13 + RANKS.index(s[1])
    raise ValueError(f"not a card: {name!r} (expected suit C S H D + rank 2..9 T J Q K A, e.g. 'HK', 'DT', 'C2')")


def card_name(c: int) -> str:
    """37 -> ``"HK"``."""
    return SUITS[c // 13] + RANKS[c % 13]


CARD_NAMES: tuple[str, ...] = tuple(card_name(c) for c in range(NUM_CARDS))


def pretty(c: int) -> str:
    """Render-only form with a suit symbol, e.g. ``♥K``, ``♦10``."""
    return SUIT_SYMBOLS[c // 13] + RANKS[c % 13].replace("T", "10")


def _tokens(cards: str | Iterable[str | int]) -> Iterable[str | int]:
    if isinstance(cards, str):
        return cards.replace(",", " ").split()
    if not isinstance(cards, Iterable):
        raise ValueError(f"cards must be a string such as 'HK H8 H5' or a list of card names, got {cards!r}")
    return cards


def mask_of(cards: Iterable[str | int]) -> int:
    """Card names or ids -> bit set; ValueError naming a bad card or one given twice."""
    m = 0
    for c in cards:
        c = card(c)
        if m >> c & 1:
            raise ValueError(f"card {card_name(c)} given twice")
        m |= 1 << c
    return m


def parse_cards(cards: str | Iterable[str | int]) -> int:
    """A set of cards -> bit set: ``"HK H8 H5"`` or ``["HK", "H8", 3]``. A card given twice is a
    ValueError. For an order that matters (a deck) see :func:`parse_card_list`."""
    return mask_of(_tokens(cards))


def parse_card_list(cards: str | Iterable[str | int]) -> list[int]:
    """Cards in the order given -> ids (``"HK H8"`` -> ``[37, 32]``); repeats are kept."""
    return [card(c) for c in _tokens(cards)]


def check_deck(deck: Any, size: int = 52) -> list[int]:
    """A full deck order (card names or ids) of the ``size``-card deck -> card ids; ValueError
    naming what is wrong (duplicates, cards not in this deck, missing cards)."""
    if isinstance(deck, str) or not hasattr(deck, "__iter__"):
        raise ValueError(f"deck must be a list of card names such as ['HK', 'D7', ...], got {deck!r}")
    ids = parse_card_list(list(deck))
    want = set(DECKS[size])
    if len(ids) != len(want) or set(ids) != want:
        dup = sorted({card_name(c) for c in ids if ids.count(c) > 1})
        extra = sorted(card_name(c) for c in set(ids) - want)
        missing = sorted(card_name(c) for c in want - set(ids))
        raise ValueError(
            f"deck must hold each of the {size} cards of the {size}-card deck exactly once; got "
            f"{len(ids)} cards (duplicates {dup}, not in this deck {extra}, missing {missing})"
        )
    return ids
