"""Tables derived from the Skat rules for players and search: nothing here is a new fact.

Everything is computed from ``envs.skat.cards``, ``envs.skat.actions`` and ``envs.skat.scoring``
(the homes of the card order, the game values and the scoring), indexed by game type (0..3 suit,
4 grand, 5 null) and card id, so that a player can answer "which cards beat this one" or "what
is this null game worth" with one lookup.
"""

from __future__ import annotations

from envs.skat.actions import BASE_VALUES, Contract
from envs.skat.cards import EFF_SUIT, FOLLOW, GAME_NAMES, NULL, NUM_CARDS, ORDER, TRUMP, TRUMP_SEQUENCES
from envs.skat.scoring import null_value

GAME_TYPES = range(len(GAME_NAMES))
SKAT_SIZE = 2
HAND_SIZE = (NUM_CARDS - SKAT_SIZE) // 3  # cards dealt to each of the three players: ten

# TRUMPS[g]: the trumps of game type g (none in null).
TRUMPS: tuple[int, ...] = tuple(FOLLOW[g][TRUMP] for g in GAME_TYPES)


def _relative_tables() -> tuple[tuple[tuple[int, ...], ...], ...]:
    higher, lower, beaters = [], [], []
    for g in GAME_TYPES:
        eff, order = EFF_SUIT[g], ORDER[g]
        h, lo, b = [0] * NUM_CARDS, [0] * NUM_CARDS, [0] * NUM_CARDS
        for c in range(NUM_CARDS):
            for x in range(NUM_CARDS):
                if eff[x] == eff[c]:
                    if order[x] > order[c]:
                        h[c] |= 1 << x
                    elif order[x] < order[c]:
                        lo[c] |= 1 << x
            b[c] = h[c] | (TRUMPS[g] if eff[c] != TRUMP else 0)
        higher.append(tuple(h))
        lower.append(tuple(lo))
        beaters.append(tuple(b))
    return tuple(higher), tuple(lower), tuple(beaters)


# HIGHER[g][c] / LOWER[g][c]: the cards of c's effective suit above / below c in game type g.
# BEATERS[g][c]: the cards that beat c when c holds the trick: higher in its suit, or any trump
# over a plain card.
HIGHER, LOWER, BEATERS = _relative_tables()

# TRUMP_RANK[c]: the place of c among the eleven trumps of a suit game it is a trump in,
# 0 (the seven) .. 10 (the club jack); a jack's place is the same in every suit game.
TRUMP_RANK: tuple[int, ...] = tuple(
    len(TRUMP_SEQUENCES[c // 8]) - 1 - TRUMP_SEQUENCES[c // 8].index(c) for c in range(NUM_CARDS)
)

# NULL_VALUE[hand, ouvert]: the value of a null game (23, 35 by hand, 46 ouvert, 59 ouvert by hand).
NULL_VALUE: dict[tuple[bool, bool], int] = {
    (hand, ouvert): null_value(Contract(NULL, hand, False, False, ouvert))
    for hand in (False, True) for ouvert in (False, True)
}


def trick_winner_index(game: int, trick: list[int] | tuple[int, ...]) -> int:
    """Index (in play order) of the card that holds a trick of one to three cards so far."""
    wi = 0
    for i in range(1, len(trick)):
        if BEATERS[game][trick[wi]] >> trick[i] & 1:
            wi = i
    return wi


def overbid_value(game: int, bid: int) -> int:
    """What an overbid suit or grand game is charged: the lowest multiple of its base value that
    reaches the bid (as ``envs.skat.scoring.settle`` charges it)."""
    base = BASE_VALUES[game]
    return base * -(-bid // base)
