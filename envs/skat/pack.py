"""The packs a Skat table plays with: the 32-card pack and Sechserskat's 36 cards (with the sixes).

Card ids 0..31 are ``envs.skat.cards``'s (suit * 8 + rank); the sixes of the 36-card pack are
32..35 (``C6 S6 H6 D6``), so a 32-card deal is the same bit set in both packs. A :class:`Pack` holds
every trick table by game type: 0..3 the suit games, 4 grand, 5 null, and
6 (:data:`RAMSCH_LOW`) the Ramsch in which tens rank below queen and king (grand's trumps; the
order A K Q T 9 8 7 in each suit). For the 32-card pack the tables of game types 0..5 are the very
tuples of ``envs.skat.cards``: one home for the card order.

A six ranks below the seven in every order, is worth no card points, and is the lowest trump of a
suit game (one more matador to count "with" or "without").
"""

from __future__ import annotations

import operator
from collections.abc import Iterable

from envs.skat import cards as C
from envs.skat.cards import JACK, NULL, RANKS, SUITS, TEN, TRUMP

RAMSCH_LOW = 6  # game type of a Ramsch with the tens below queen and king
GAME_TYPES = 7  # 0..3 suits, 4 grand, 5 null, 6 Ramsch with low tens
SIX_BASE = 32  # the six of suit s is card 32 + s
SIXES = tuple(SIX_BASE + s for s in range(4))
SIX_NAMES = tuple(s + "6" for s in SUITS)
_LOW_TEN_ORDER = (0, 1, 2, 3, -1, 4, 5, 7)  # 7 8 9 T (J) Q K A: the ten under the queen


def _suit_rank(c: int) -> tuple[int, int]:
    """(suit, rank) with the six as rank -1."""
    return (c - SIX_BASE, -1) if c >= SIX_BASE else (c >> 3, c & 7)


class Pack:
    """The cards of one pack and their trick tables (indexed by game type, then card id)."""

    __slots__ = ("size", "names", "full", "points", "points_ten_one", "eff_suit", "order", "follow",
                 "trump_sequences", "_index")

    def __init__(self, size: int) -> None:
        if size not in (32, 36):
            raise ValueError(f"a Skat pack has 32 or 36 cards, got {size}")
        self.size = size
        self.names: tuple[str, ...] = C.CARD_NAMES + (SIX_NAMES if size == 36 else ())
        self.full = (1 << size) - 1
        self.points: tuple[int, ...] = C.POINTS + (0,) * (size - 32)
        # Ramsch with tens counting one point (the "tens low, counting one" house rule)
        self.points_ten_one: tuple[int, ...] = tuple(1 if c < 32 and c & 7 == TEN else p
                                                     for c, p in enumerate(self.points))
        eff, order, follow = [], [], []
        for g in range(GAME_TYPES):
            if size == 32 and g < 6:  # the tables of envs.skat.cards themselves
                eff.append(C.EFF_SUIT[g])
                order.append(C.ORDER[g])
                follow.append(C.FOLLOW[g])
                continue
            e, o = [0] * size, [0] * size
            for c in range(size):
                s, r = _suit_rank(c)
                if g == NULL:
                    e[c], o[c] = s, r
                elif r == JACK:
                    e[c], o[c] = TRUMP, 20 + (3 - s)
                else:
                    plain = _LOW_TEN_ORDER[r] if g == RAMSCH_LOW and r >= 0 else (
                        C._PLAIN_ORDER[r] if r >= 0 else -1)
                    e[c], o[c] = (TRUMP if s == g else s), plain
            f = [0] * 5
            for c in range(size):
                f[e[c]] |= 1 << c
            eff.append(tuple(e))
            order.append(tuple(o))
            follow.append(tuple(f))
        self.eff_suit: tuple[tuple[int, ...], ...] = tuple(eff)
        self.order: tuple[tuple[int, ...], ...] = tuple(order)
        self.follow: tuple[tuple[int, ...], ...] = tuple(follow)
        seqs = []
        for g in range(6):
            seq = () if g == NULL else C.TRUMP_SEQUENCES[g]
            if size == 36 and g < 4:
                seq += (SIX_BASE + g,)
            seqs.append(seq)
        self.trump_sequences: tuple[tuple[int, ...], ...] = tuple(seqs)
        self._index = {n: i for i, n in enumerate(self.names)}

    def card(self, name: str) -> int:
        """``"C6"`` -> 32 in the 36-card pack; ValueError naming a card this pack does not have."""
        if isinstance(name, str) and name in self._index:
            return self._index[name]
        ranks = ("6" if self.size == 36 else "") + RANKS
        raise ValueError(f"not a card of the {self.size}-card Skat pack: {name!r} "
                         f"(suit C S H D + rank {' '.join(ranks)}, e.g. 'CJ')")

    def card_id(self, c: int | str) -> int:
        """A card name or id of this pack -> its id; ValueError naming a bad one."""
        if isinstance(c, str):
            return self.card(c)
        i = -1
        if not isinstance(c, bool):
            try:
                i = operator.index(c)
            except TypeError:
                pass
        if 0 <= i < self.size:
            return i
        raise ValueError(f"not a card of the {self.size}-card Skat pack: {c!r} (a name such as 'CJ' or an id "
                         f"0..{self.size - 1})")

    def parse(self, cards: str | Iterable[int | str]) -> list[int]:
        """Cards in the order given (``"CJ C6"`` or a list) -> ids; repeats are kept for the caller to find."""
        if isinstance(cards, str):
            tokens: Iterable[int | str] = cards.replace(",", " ").replace(".", " ").split()
        elif isinstance(cards, Iterable):
            tokens = cards
        else:
            raise ValueError(f"cards must be a string such as 'CJ SA HT' or a list of card names, got {cards!r}")
        return [self.card_id(c) for c in tokens]

    def format(self, mask: int) -> str:
        return " ".join(self.names[c] for c in C.cards_of(mask))

    def trick_winner(self, game: int, trick: list[int] | tuple[int, ...]) -> int:
        """Index (in play order) of the card that holds a trick of any size in game type ``game``."""
        return C.holding_card(self.eff_suit[game], self.order[game], game, trick)

    def matadors(self, game: int, cards: int) -> int:
        """Matadors "with" (positive) or "without" (negative) on ``cards`` (hand plus skat)."""
        return C.count_matadors(self.trump_sequences[game], cards)

    def __repr__(self) -> str:
        return f"Pack({self.size})"


PACK32 = Pack(32)
PACK36 = Pack(36)
PACKS = {32: PACK32, 36: PACK36}
