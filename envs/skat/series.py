"""A list of deals as one episode (``episode="list"``): dealer rotation, totals, Bierskat, Raeuberskat.

:class:`Series` keeps the totals by table seat while the env deals one deal after the other. A
list ends after ``SkatOptions.deals_per_list`` counted deals (36 at three, 48 at four; Raeuberskat:
its sequence once per player), or after the deal in which a total reaches ``target_score``
(Bierskat: the recorded points; else the score), whichever comes first; a passed-in deal counts
unless ``count_passed_in=False``. Bierskat records only negative scores (:func:`bierskat_record`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from envs.skat.options import SkatOptions

MAX_DEALS = 1000  # a list that never reaches its target (Bierskat without a deal limit) stops here


def bierskat_record(scores: Sequence[int], active: Sequence[int]) -> list[int]:
    """Bierskat: what one deal records against each seat, from its classic scores by seat.

    A negative score is recorded to its player; a positive one (a won game, a Durchmarsch, a
    Gewinner-Ramsch win) to each other seat in ``active`` (the seats that sit at the table:
    at four the dealer too). "If the declarer wins with 33 points, the score is recorded as 33 to
    the two defenders." """
    out = [0] * len(scores)
    for s, score in enumerate(scores):
        if score < 0:
            out[s] += -score
        elif score > 0:
            for q in active:
                if q != s:
                    out[q] += score
    return out


@dataclass
class Series:
    """The running list of one env episode (by table seat)."""

    options: SkatOptions
    totals: list[int] = field(default_factory=list)  # sum of the deal scores (Bierskat: minus the records)
    recorded: list[int] = field(default_factory=list)  # Bierskat: points recorded against each seat
    won: list[int] = field(default_factory=list)  # games won as declarer (Gewinner-Ramsch: its winners)
    lost: list[int] = field(default_factory=list)
    counted: int = 0  # deals that count towards the list's length
    dealt: int = 0  # every deal, passed-in ones included

    def __post_init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        n = self.options.players
        self.totals, self.recorded, self.won, self.lost = [0] * n, [0] * n, [0] * n, [0] * n
        self.counted = self.dealt = 0

    @property
    def length(self) -> int:
        """Deals in the list; with a target score and no ``list_deals``, until the target is reached."""
        o = self.options
        if o.list_deals is None and o.target_score is not None:
            return MAX_DEALS
        return o.deals_per_list

    def record(self, scores: Sequence[int], declarer: int, won: bool, passed_in: bool,
               winners: Sequence[int] = ()) -> list[int]:
        """Book one finished deal (scores by seat; ``declarer`` a seat or -1); its rewards by seat."""
        self.dealt += 1
        if not passed_in or self.options.count_passed_in:
            self.counted += 1
        if declarer >= 0:
            (self.won if won else self.lost)[declarer] += 1
        for s in winners:
            self.won[s] += 1
        if self.options.bierskat:
            rec = bierskat_record(scores, range(len(scores)))
            for s, r in enumerate(rec):
                self.recorded[s] += r
                self.totals[s] -= r
            return [-r for r in rec]
        for s, score in enumerate(scores):
            self.totals[s] += score
        return list(scores)

    @property
    def done(self) -> bool:
        o = self.options
        if self.counted >= self.length or self.dealt >= MAX_DEALS:
            return True
        if o.target_score is not None:
            return max(self.recorded if o.bierskat else self.totals) >= o.target_score
        return False

    @property
    def losers(self) -> list[int]:
        """Bierskat: the seats with the highest recorded total once the list is over."""
        top = max(self.recorded)
        return [s for s, r in enumerate(self.recorded) if r == top] if self.options.bierskat else []

    def progress(self) -> float:
        o = self.options
        if o.bierskat and o.target_score:
            return min(max(self.recorded) / o.target_score, 1.0)
        return min(self.counted / self.length, 1.0)
