"""Game value and score under the International Skat Order: matadors, levels, overbid, systems.

``settle`` turns a finished game (contract, declarer's cards, card points and tricks) into a
:class:`Outcome`; ``seat_scores`` pays it out in the ``classic`` or ``tournament`` (Seeger-Fabian)
system. Ramsch has its own small rule set in ``ramsch_scores``.
"""

from __future__ import annotations

from dataclasses import dataclass

from envs.skat.actions import BASE_VALUES, NULL_VALUES, REVOLUTION_VALUE, Contract
from envs.skat.cards import GRAND, NULL, TRUMP_SEQUENCES, count_matadors

SCORING_SYSTEMS = ("tournament", "classic")
WIN_BONUS = 50  # Seeger-Fabian: +50 for a won game, -50 for a lost one
# ... and to each other player when the declarer loses: 40 at a three-player table, 30 at four
DEFENDER_BONUS = {3: 40, 4: 30}
DURCHMARSCH_SCORE = 120


def matadors(game: int, cards: int) -> int:
    """Matadors "with" (positive) or "without" (negative), counted on hand plus skat."""
    return count_matadors(TRUMP_SEQUENCES[game], cards)


def null_value(contract: Contract) -> int:
    """The fixed value of a null game (23, 35, 46, 59; the Revolution 92)."""
    if contract.revolution:
        return REVOLUTION_VALUE
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
    doubling: int = 1  # 2 after Kontra, 4 after Re (8 Supra, 16 Resupra)
    loss_factor: int = 2  # a lost game costs this many times its value (North American skat: 1, or 2)

    @property
    def declarer_score(self) -> int:
        """Classic score: +value won, -2 x value lost (Kontra/Re doubling applied)."""
        v = self.value * self.doubling
        return v if self.won else -self.loss_factor * v


def multiplier_steps(contract: Contract, declarer_cards: int, declarer_points: int,
                     declarer_tricks: int, *, tricks: int = 10, mat: int | None = None) -> list[tuple[str, int]]:
    """The levels of a suit or grand game's multiplier, one step each as (name, levels), in the
    Skat Order's sequence: ``("with 2", 2)`` or ``("without 3", 3)``, ``("game", 1)``, then
    ``hand``, ``schneider``, ``schneider announced``, ``schwarz``, ``schwarz announced``, ``ouvert``
    where they count. Their sum is the multiplier :func:`settle` charges (before an overbid).
    ``tricks``: the tricks of a deal (schwarz); ``mat``: matadors counted by another pack."""
    if contract.game == NULL:
        raise ValueError("a null game has a fixed value, no multiplier")
    if mat is None:
        mat = matadors(contract.game, declarer_cards)
    schneider = declarer_points >= 90 or declarer_points <= 30
    schwarz = declarer_tricks in (0, tricks)
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
           doubling: int = 1, *, tricks: int = 10, mat: int | None = None) -> Outcome:
    """Score a finished game. ``declarer_cards`` is the declarer's hand as dealt plus the skat.

    ``declarer_points`` includes the skat; ``declarer_tricks`` counts tricks taken (0..10).
    ``tricks`` is the number of tricks of a deal (11 with 36 cards, 16 in Officers' Skat) and
    ``mat`` the matadors when another pack counts them (``envs.skat.pack``).
    """
    if contract.game == NULL:
        value = null_value(contract)
        won = declarer_tricks == 0 and value >= bid
        # A null game whose value is below the bid is charged at the smallest null value that
        # reaches it (the auction rules keep such a declaration out of the legal actions anyway).
        if value < bid:
            value = min(v for v in NULL_VALUES.values() if v >= bid) if bid <= 59 else value
        return Outcome(won, value, 0, 0, value < bid, False, False, declarer_points, declarer_tricks, doubling)

    if mat is None:
        mat = matadors(contract.game, declarer_cards)
    schwarz_won = declarer_tricks == tricks
    schneider = declarer_points >= 90 or declarer_points <= 30
    schwarz = schwarz_won or declarer_tricks == 0
    if contract.schwarz:
        made = schwarz_won
    elif contract.schneider:
        made = declarer_points >= 90
    else:
        made = declarer_points >= 61
    level = sum(n for _, n in multiplier_steps(contract, declarer_cards, declarer_points, declarer_tricks,
                                               tricks=tricks, mat=mat))
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


def ramsch_result(points: list[int], tricks: list[int], how: str = "highest", jungfrau: bool = True,
                  durchmarsch: bool = True, factor: int = 1, win_bonus: int = 0) -> list[int]:
    """A Ramsch's scores by position, under the house rules of the table (``envs.skat.options``).

    ``points``: card points with the skat already given to its taker; ``tricks``: tricks taken.
    ``how``: "highest" (the most card points score minus that many, all tied players alike),
    "all" (every player scores minus its card points), "fixed" (the loser scores -15, or -20 when
    both others took no trick), "gewinner" (the fewest card points win 23, plus ``win_bonus`` for
    the won game; tied lowest all win). ``jungfrau``: each player without a trick doubles the
    loss ("highest", "all"); ``durchmarsch``: taking every trick wins +120 (not in Gewinner-Ramsch).
    ``factor``: Schieberamsch's doubling (2 for each push), applied to every score."""
    n = len(points)
    if how == "gewinner":
        low = min(points)
        return [factor * (RAMSCH_WIN + win_bonus) if points[p] == low else 0 for p in range(n)]
    total = sum(tricks)
    if durchmarsch:
        for p in range(n):
            if tricks[p] == total:
                return [factor * DURCHMARSCH_SCORE if q == p else 0 for q in range(n)]
    top = max(points)
    virgins = sum(1 for t in tricks if t == 0)
    if how == "fixed":
        loss = RAMSCH_FIXED[1] if virgins >= 2 else RAMSCH_FIXED[0]
        return [-factor * loss if points[p] == top else 0 for p in range(n)]
    mult = factor * (2 ** virgins if jungfrau else 1)
    if how == "all":
        return [-points[p] * mult for p in range(n)]
    return [-top * mult if points[p] == top else 0 for p in range(n)]


RAMSCH_WIN = 23  # Gewinner-Ramsch: the score of a won null
RAMSCH_FIXED = (15, 20)  # the fixed Ramsch loss, and with two players without a trick


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
