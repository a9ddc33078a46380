"""North American (Tournee) skat: game values and the Ramsch, as the Skat article gives them.

Base values (``envs.skat.actions``): Tournee D5 H6 S7 C8 G12, Solo D9 H10 S11 C12 G20, grand
ouvert 24, Grand Guckser 16 (32 if lost), null 20, null ouvert 40. The multiplier is the matadors
with or without plus 1 for game, 1 more for schneider (91 card points), 1 more for schwarz, and 1
(schneider) or 2 (schwarz) for an announcement; an announcement that fails still counts, and the
declarer loses what a success would have won. A won game scores +value, a lost one -value, a lost
"passt mir nicht" Tournee -2 x value and a lost Guckser its value at base 32.
"""

from __future__ import annotations

from envs.skat.actions import (
    GRAND_OUVERT_BASE,
    GUCKSER_BASE,
    GUCKSER_LOST_BASE,
    SOLO_BASE,
    TOURNEE_BASE,
    TOURNEE_NULL,
    TOURNEE_NULL_OUVERT,
    Contract,
)
from envs.skat.cards import NULL
from envs.skat.scoring import Outcome, matadors

# The modes of a North American declarer's game (``SkatState.x.mode``).
NO_MODE, TOURNEE_MODE, PASST_MODE, GUCKSER_MODE, SOLO_MODE = range(5)
MODE_NAMES = ("", "tournee", "passt mir nicht", "guckser", "solo")

SCHNEIDER_POINTS = 91  # North American schneider: 91 card points (the Skat Order's is 90)
RAMSCH_WIN, RAMSCH_NO_TRICK, RAMSCH_DURCHMARSCH = 10, 20, 30


def base_value(contract: Contract, mode: int) -> int:
    """The base value of a North American game declared in ``mode`` (``envs.skat.rules.extras``)."""
    if mode == GUCKSER_MODE:
        return GUCKSER_BASE
    if mode == SOLO_MODE:
        return GRAND_OUVERT_BASE if contract.ouvert else SOLO_BASE[contract.game]
    return TOURNEE_BASE[contract.game]


def settle_tournee(contract: Contract, mode: int, bid: int, declarer_cards: int, declarer_points: int,
                   declarer_tricks: int, doubling: int = 1) -> Outcome:
    """Score a finished North American game (the skat counts for the declarer, as in German skat)."""
    if contract.game == NULL:
        value = TOURNEE_NULL_OUVERT if contract.ouvert else TOURNEE_NULL
        overbid = value < bid
        won = declarer_tricks == 0 and not overbid
        return Outcome(won, value, 0, 0, overbid, False, False, declarer_points, declarer_tricks, doubling,
                       loss_factor=1)
    mat = matadors(contract.game, declarer_cards)
    schneider = declarer_points >= SCHNEIDER_POINTS or declarer_points <= 120 - SCHNEIDER_POINTS
    schwarz = declarer_tricks in (0, 10)
    open_game = contract.ouvert  # grand ouvert must take every trick: its schneider and schwarz count
    level = abs(mat) + 1
    level += bool(schneider or contract.schneider or open_game) + bool(schwarz or contract.schwarz or open_game)
    level += contract.schneider + contract.schwarz  # announced: schneider +1, schwarz +2
    if contract.schwarz or open_game:
        made = declarer_tricks == 10
    elif contract.schneider:
        made = declarer_points >= SCHNEIDER_POINTS
    else:
        made = declarer_points >= 61
    base = base_value(contract, mode)
    value = base * level
    overbid = value < bid
    if overbid:
        level = -(-bid // base)  # the lowest multiple of the base that reaches the bid
        value = base * level
    won = made and not overbid
    loss_factor = 2 if mode == PASST_MODE else 1
    if not won and mode == GUCKSER_MODE:
        value = GUCKSER_LOST_BASE * level
    return Outcome(won, value, level, mat, overbid, schneider, schwarz, declarer_points, declarer_tricks, doubling,
                   loss_factor=loss_factor)


def tournee_ramsch(points: list[int], tricks: list[int]) -> list[int]:
    """The North American Ramsch (the skat counts for nobody): the fewest card points win 10, or 20
    with no trick (tied players all win); a player who took every trick loses 30 and nobody wins."""
    total = sum(tricks)
    for p, t in enumerate(tricks):
        if t == total:
            return [-RAMSCH_DURCHMARSCH if q == p else 0 for q in range(len(points))]
    low = min(points)
    return [(RAMSCH_NO_TRICK if tricks[p] == 0 else RAMSCH_WIN) if points[p] == low else 0 for p in range(len(points))]
