"""Positions and the deal: who sits where relative to the dealer, and how the cards are dealt.

Positions are counted from the dealer's left: 0 forehand, 1 middlehand, 2 rearhand (the dealer at a
three-player table). The official deal goes 3 to each, 2 to the skat, 4 to each, 3 to each,
forehand first. A deal is given as a deck order (:func:`deal_from_deck`) or as hands and a skat in
card notation (:func:`parse_deal`); both come back as bit sets.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from envs.skat.cards import CARD_NAMES, FULL_DECK, cards_of, check_deck, parse_cards

FOREHAND, MIDDLEHAND, REARHAND = 0, 1, 2
POSITION_NAMES = ("forehand", "middlehand", "rearhand")

# The pile (0..2 a position, 3 the skat) each card of the deck goes to, in dealing order.
DEAL_PATTERN: tuple[int, ...] = (0,) * 3 + (1,) * 3 + (2,) * 3 + (3,) * 2 + (0,) * 4 + (1,) * 4 + (2,) * 4 + (
    0,
) * 3 + (1,) * 3 + (2,) * 3


def deal(deck: Sequence[int]) -> tuple[list[int], int]:
    """:func:`deal_from_deck` without its check, for a deck known to be one (a shuffle of range(32))."""
    piles = [0, 0, 0, 0]
    for c, pile in zip(deck, DEAL_PATTERN, strict=True):
        piles[pile] |= 1 << c
    return piles[:3], piles[3]


def deal_from_deck(deck: Iterable[int | str]) -> tuple[list[int], int]:
    """Hands (forehand, middlehand, rearhand) and skat as bit sets from a deck order (card ids or
    names), dealt 3-skat-4-3 from forehand. ValueError naming duplicates and missing cards."""
    return deal(check_deck(deck))


def _pile(cards: Any, what: str) -> int:
    try:
        return parse_cards(cards)
    except ValueError as e:
        raise ValueError(f"{what}: {e}") from None


def parse_deal(hands: Sequence[str | Sequence[str]], skat: str | Sequence[str],
               names: Sequence[str] = POSITION_NAMES) -> tuple[list[int], int]:
    """A deal given in card notation: three hands of ten and a skat of two, every card once.
    ``names`` label the three hands in the error messages (positions here; the env's seats there)."""
    if isinstance(hands, str):
        raise ValueError(f"'hands' is one string; give a list of 3 hands, one per player ({', '.join(names)}), "
                         "e.g. ['CJ SJ HA ...', 'SA ST ...', 'DA DT ...']")
    if hands is None or not isinstance(hands, Iterable):
        raise ValueError(f"'hands' must be a list of 3 hands, one per player ({', '.join(names)}), got {hands!r}")
    hands = list(hands)
    if len(hands) != 3:
        raise ValueError(f"a Skat deal needs 3 hands ({', '.join(names)}), got {len(hands)}")
    labels = [f"the hand of {n}" for n in names] + ["the skat"]
    piles = [_pile(h, label) for h, label in zip(hands, labels, strict=False)] + [_pile(skat, "the skat")]
    union, twice = 0, []
    for i, m in enumerate(piles):
        for c in cards_of(union & m):
            first = next(labels[j] for j in range(i) if piles[j] >> c & 1)
            twice.append(f"{CARD_NAMES[c]} ({first} and {labels[i]})")
        union |= m
    if twice:
        missing = " ".join(CARD_NAMES[c] for c in cards_of(FULL_DECK & ~union)) or "-"
        raise ValueError(f"the deal must use each card once; given twice: {', '.join(twice)}; missing: {missing}")
    for i in range(3):
        if piles[i].bit_count() != 10:
            raise ValueError(f"hand {i} ({names[i]}) has {piles[i].bit_count()} cards, expected 10")
    if piles[3].bit_count() != 2:
        raise ValueError(f"the skat has {piles[3].bit_count()} cards, expected 2")
    return piles[:3], piles[3]
