"""Game value and score under the International Skat Order: matadors, levels, overbid, systems.

``settle`` turns a finished game (contract, declarer's cards, card points and tricks) into a
:class:`Outcome`; ``seat_scores`` pays it out in the ``classic`` or ``tournament`` (Seeger-Fabian)
system. Ramsch has its own small rule set in ``ramsch_scores``.
"""

from __future__ import annotations

from dataclasses import dataclass

from envs.skat.actions import BASE_VALUES, NULL_VALUES, Contract
from envs.skat.cards import GRAND, NULL, TRUMP_SEQUENCES

SCORING_SYSTEMS = ("tournament", "classic")
WIN_BONUS = 50  # Seeger-Fabian: +50 for a won game, -50 for a lost one
# ... and to each other player when the declarer loses: 40 at a three-player table, 30 at four
DEFENDER_BONUS = {3: 40, 4: 30}
DURCHMARSCH_SCORE = 120


def matadors(game: int, cards: int) -> int:
    """Matadors "with" (positive) or "without" (negative), counted on hand plus skat."""
    seq = TRUMP_SEQUENCES[game]
    with_top = cards >> seq[0] & 1
    n = 0
    for c in seq:
        if (cards >> c & 1) != with_top:
            break
        n += 1
    return n if with_top else -n


def null_value(contract: Contract) -> int:
    return NULL_VALUES["N" + ("O" if contract.ouvert else "") + ("H" if contract.hand else "")]


@dataclass(frozen=True)
class Outcome:
    won: bool
    value: int  # the game value charged (positive), before Kontra/Re doubling
    multiplier: int  # the level the value is based on (0 for null)
    matadors: int  # signed: +n with, -n without (0 for null)
    overbid: bool
    schneider: bool  # reached by either side
    schwarz: bool
    declarer_points: int
    declarer_tricks: int
    doubling: int = 1  # 2 after Kontra, 4 after Re

    @property
    def declarer_score(self) -> int:
        """Classic score: +value won, -2 x value lost (Kontra/Re doubling applied)."""
        v = self.value * self.doubling
        return v if self.won else -2 * v


def multiplier_steps(contract: Contract, declarer_cards: int, declarer_points: int,
                     declarer_tricks: int) -> list[tuple[str, int]]:
    """The levels of a suit or grand game's multiplier, one step each as (name, levels), in the
    Skat Order's sequence: ``("with 2", 2)`` or ``("without 3", 3)``, ``("game", 1)``, then
    ``hand``, ``schneider``, ``schneider announced``, ``schwarz``, ``schwarz announced``, ``ouvert``
    where they count. Their sum is the multiplier :func:`settle` charges (before an overbid)."""
    if contract.game == NULL:
        raise ValueError("a null game has a fixed value, no multiplier")
    mat = matadors(contract.game, declarer_cards)
    schneider = declarer_points >= 90 or declarer_points <= 30
    schwarz = declarer_tricks in (0, 10)
    # Announced levels count even when they fail: the declarer then loses what a success would
    # have won (schneider/schwarz counted as reached).
    steps = [(f"{'with' if mat > 0 else 'without'} {abs(mat)}", abs(mat)), ("game", 1)]
    for name, counts in (
        ("hand", contract.hand),
        ("schneider", schneider or contract.schneider),
        ("schneider announced", contract.schneider),
        ("schwarz", schwarz or contract.schwarz),
        ("schwarz announced", contract.schwarz),
        ("ouvert", contract.ouvert),
    ):
        if counts:
            steps.append((name, 1))
    return steps


def settle(contract: Contract, bid: int, declarer_cards: int, declarer_points: int, declarer_tricks: int,
           doubling: int = 1) -> Outcome:
    """Score a finished game. ``declarer_cards`` is the declarer's hand as dealt plus the skat.

    ``declarer_points`` includes the skat; ``declarer_tricks`` counts tricks taken (0..10).
    """
    if contract.game == NULL:
        value = null_value(contract)
        won = declarer_tricks == 0 and value >= bid
        # A null game whose value is below the bid is charged at the smallest null value that
        # reaches it (the auction rules keep such a declaration out of the legal actions anyway).
        if value < bid:
            value = min(v for v in NULL_VALUES.values() if v >= bid) if bid <= 59 else value
        return Outcome(won, value, 0, 0, value < bid, False, False, declarer_points, declarer_tricks, doubling)

    mat = matadors(contract.game, declarer_cards)
    schwarz_won = declarer_tricks == 10
    schneider = declarer_points >= 90 or declarer_points <= 30
    schwarz = schwarz_won or declarer_tricks == 0
    if contract.schwarz:
        made = schwarz_won
    elif contract.schneider:
        made = declarer_points >= 90
    else:
        made = declarer_points >= 61
    level = sum(n for _, n in multiplier_steps(contract, declarer_cards, declarer_points, declarer_tricks))
    base = BASE_VALUES[contract.game]
    value = base * level
    overbid = value < bid
    if overbid:
        value = base * -(-bid // base)  # lowest multiple of the base value that reaches the bid
    won = made and not overbid
    return Outcome(won, value, level, mat, overbid, schneider, schwarz, declarer_points, declarer_tricks, doubling)


def seat_scores(outcome: Outcome, declarer: int, system: str, num_players: int = 3) -> list[int]:
    """Scores of the three positions (forehand, middlehand, rearhand) for one game.

    ``num_players=4``: a four-player table, where the dealer sits the deal out; a fourth score is
    appended for the dealer. In the tournament system a lost game then pays each of the three other
    players 30 (40 at a three-player table)."""
    if num_players not in (3, 4):
        raise ValueError(f"a Skat table has 3 or 4 players, got num_players={num_players!r}")
    scores = [0] * num_players
    declarer_score = outcome.declarer_score
    if system == "classic":
        scores[declarer] = declarer_score
    elif system == "tournament":
        if outcome.won:
            scores[declarer] = declarer_score + WIN_BONUS
        else:
            scores = [DEFENDER_BONUS[num_players]] * num_players
            scores[declarer] = declarer_score - WIN_BONUS
    else:
        raise ValueError(f"unknown scoring system {system!r}; expected one of {SCORING_SYSTEMS}")
    return scores


def ramsch_scores(points: list[int], tricks: list[int]) -> list[int]:
    """Ramsch: a Durchmarsch (every trick) wins +120; otherwise the most card points score minus that
    many (all tied players alike), doubled for each player who took no trick (Jungfrau)."""
    for p in range(3):
        if tricks[p] == 10:
            return [DURCHMARSCH_SCORE if q == p else 0 for q in range(3)]
    top = max(points)
    factor = 2 ** sum(1 for t in tricks if t == 0)
    return [-top * factor if points[p] == top else 0 for p in range(3)]


GRAND_BASE = BASE_VALUES[GRAND]
