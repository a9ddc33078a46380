"""The 32-card Skat deck: card ids, notation, card points and the rank orders of each game type.

A card is an int 0..31: ``suit * 8 + rank`` with suits C S H D (0..3) and ranks 7 8 9 T J Q K A
(0..7), so ``CJ`` is 4 and ``D7`` is 24. A set of cards (a hand, the skat, a trick pile) is an int
bit set. Game types share the suit numbering: 0..3 are the suit games with that trump suit,
4 is grand, 5 is null. Everything trick-related is a precomputed table indexed by game type.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence

from envs.bitset import cards_of  # noqa: F401  (re-exported: part of this module's API)

SUITS = "CSHD"
RANKS = "789TJQKA"
SUIT_SYMBOLS = "♣♠♥♦"
NUM_CARDS = 32
FULL_DECK = (1 << NUM_CARDS) - 1

CLUBS, SPADES, HEARTS, DIAMONDS, GRAND, NULL = range(6)
GAME_LETTERS = "CSHDGN"  # ISS contract letters, indexed by game type
GAME_NAMES = ("clubs", "spades", "hearts", "diamonds", "grand", "null")
RAMSCH = GRAND  # Ramsch plays with grand's trumps and order

SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(8)
RANK_POINTS = (0, 0, 0, 10, 2, 3, 4, 11)
POINTS = tuple(RANK_POINTS[c & 7] for c in range(NUM_CARDS))
TOTAL_POINTS = 120

JACKS = tuple(s * 8 + JACK for s in range(4))  # CJ SJ HJ DJ: the trump order of the jacks
JACK_MASK = sum(1 << c for c in JACKS)
SUIT_MASK = tuple(0xFF << (8 * s) for s in range(4))  # all eight cards of a suit


def card(name: str) -> int:
    """``"CJ"`` -> 4. Raises ValueError naming the bad string."""
    if not isinstance(name, str) or len(name) != 2 or name[0] not in SUITS or name[1] not in RANKS:
        raise ValueError(f"not a Skat card: {name!r} (expected suit C S H D + rank 7 8 9 T J Q K A, e.g. 'CJ')")
    return SUITS.index(name[0]) * 8 + RANKS.index(name[1])


def name(c: int) -> str:
    return SUITS[c >> 3] + RANKS[c & 7]


card_name = name  # the name Thirty-One's cards module uses


CARD_NAMES = tuple(name(c) for c in range(NUM_CARDS))


def pretty(c: int) -> str:
    """Render-only form with a suit symbol, e.g. ``♣J``."""
    return SUIT_SYMBOLS[c >> 3] + RANKS[c & 7].replace("T", "10")


def card_id(c: int | str) -> int:
    """A card name or id -> its id; ValueError naming a bad one."""
    if isinstance(c, str):
        return card(c)
    if not isinstance(c, bool):
        try:
            i = operator.index(c)  # an int or a numpy integer
        except TypeError:
            i = -1
        if 0 <= i < NUM_CARDS:
            return i
    raise ValueError(f"not a Skat card: {c!r} (a name such as 'CJ' or an id 0..{NUM_CARDS - 1})")


def mask_of(cards: Iterable[int | str]) -> int:
    """Card names or ids -> bit set; ValueError naming a bad card or one given twice."""
    m = 0
    for c in cards:
        c = card_id(c)
        if m >> c & 1:
            raise ValueError(f"card {name(c)} given twice")
        m |= 1 << c
    return m


def _tokens(cards: str | Iterable[int | str]) -> Iterable[int | str]:
    if isinstance(cards, str):
        return cards.replace(",", " ").replace(".", " ").split()
    if not isinstance(cards, Iterable):
        raise ValueError(f"cards must be a string such as 'CJ SA HT' or a list of card names, got {cards!r}")
    return cards


def parse_cards(cards: str | Iterable[int | str]) -> int:
    """A set of cards -> bit set: ``"CJ SA HT"`` (or ``"CJ.SA.HT"``, a list of names or ids). A
    card given twice is a ValueError. For an order that matters (a deck) see :func:`parse_card_list`."""
    return mask_of(_tokens(cards))


def parse_card_list(cards: str | Iterable[int | str]) -> list[int]:
    """Cards in the order given -> ids (``"CJ SA"`` -> ``[4, 15]``); repeats are kept."""
    return [card_id(c) for c in _tokens(cards)]


def check_deck(deck: Iterable[int | str]) -> list[int]:
    """A full deck order (card names or ids) -> ids; ValueError naming what is wrong (duplicates,
    missing cards)."""
    if isinstance(deck, str) or not isinstance(deck, Iterable):
        raise ValueError(f"a Skat deck must be a list of the 32 cards in dealing order, such as ['CJ', 'D7', ...], "
                         f"got {deck!r}")
    ids = parse_card_list(deck)
    if len(ids) != NUM_CARDS or len(set(ids)) != NUM_CARDS:
        dup = sorted({name(c) for c in ids if ids.count(c) > 1})
        missing = [name(c) for c in range(NUM_CARDS) if c not in ids]
        raise ValueError(f"a Skat deck must hold each of the 32 cards exactly once; got {len(ids)} cards "
                         f"(duplicates {dup}, missing {missing})")
    return ids


def points(mask: int) -> int:
    return sum(POINTS[c] for c in cards_of(mask))


def format_cards(mask: int, game: int | None = None) -> str:
    """Names sorted strongest first for the game type (grand order when none is given)."""
    order = ORDER[GRAND if game is None else game]
    return " ".join(name(c) for c in sorted(cards_of(mask), key=lambda c: (-EFFECTIVE_SUIT_SORT[c], -order[c])))


EFFECTIVE_SUIT_SORT = tuple(10 if c in JACKS else 3 - (c >> 3) for c in range(NUM_CARDS))


# --- trick tables ---------------------------------------------------------------------------
# EFF_SUIT[g][c]: the suit card c follows in game g (4 = trump). ORDER[g][c]: its strength inside
# that suit. FOLLOW[g][s]: bit set of the cards of effective suit s.
TRUMP = 4
_NULL_ORDER = (0, 1, 2, 3, 4, 5, 6, 7)  # 7 8 9 T J Q K A: the ranks as they are
_PLAIN_ORDER = (0, 1, 2, 6, -1, 3, 4, 7)  # 7 8 9 Q K T A; jacks never plain outside null


def _tables() -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    eff, order, follow = [], [], []
    for g in range(6):
        e, o = [0] * NUM_CARDS, [0] * NUM_CARDS
        for c in range(NUM_CARDS):
            s, r = c >> 3, c & 7
            if g == NULL:
                e[c], o[c] = s, _NULL_ORDER[r]
            elif r == JACK:
                e[c], o[c] = TRUMP, 20 + (3 - s)  # CJ strongest
            elif s == g:  # the trump suit of a suit game
                e[c], o[c] = TRUMP, _PLAIN_ORDER[r]
            else:
                e[c], o[c] = s, _PLAIN_ORDER[r]
        f = [0] * 5
        for c in range(NUM_CARDS):
            f[e[c]] |= 1 << c
        eff.append(tuple(e))
        order.append(tuple(o))
        follow.append(tuple(f))
    return tuple(eff), tuple(order), tuple(follow)


EFF_SUIT, ORDER, FOLLOW = _tables()


def trick_winner(game: int, cards: tuple[int, int, int] | list[int]) -> int:
    """Index (0..2, in play order) of the card that wins a trick of three."""
    return holding_card(EFF_SUIT[game], ORDER[game], game, cards)


def holding_card(eff: Sequence[int], order: Sequence[int], game: int, trick: Sequence[int]) -> int:
    """Index (in play order) of the card that holds a trick of any size, given a pack's effective suits
    and card orders in game type ``game`` (a trump beats any other suit, except in null)."""
    best = 0
    for i in range(1, len(trick)):
        c, b = trick[i], trick[best]
        if eff[c] == eff[b]:
            if order[c] > order[b]:
                best = i
        elif eff[c] == TRUMP and game != NULL:
            best = i
    return best


def trump_sequence(game: int) -> tuple[int, ...]:
    """The trumps from the top, used to count matadors (jacks, then the trump suit A T K Q 9 8 7)."""
    seq = list(JACKS)
    if game < GRAND:
        seq += [game * 8 + r for r in (ACE, TEN, KING, QUEEN, NINE, EIGHT, SEVEN)]
    return tuple(seq)


TRUMP_SEQUENCES = tuple(trump_sequence(g) if g != NULL else () for g in range(6))


def count_matadors(sequence: Sequence[int], cards: int) -> int:
    """Matadors "with" (positive) or "without" (negative) on ``cards`` (hand plus skat), counted down a
    trump ``sequence`` (highest first): the run of trumps held, or missing, from the top."""
    with_top = cards >> sequence[0] & 1
    n = 0
    for c in sequence:
        if (cards >> c & 1) != with_top:
            break
        n += 1
    return n if with_top else -n
