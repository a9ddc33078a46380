"""The solver's Python face: questions about a :class:`Position`, answered by the compiled kernel."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envs.bitset import cards_of
from envs.skat.cards import NULL, POINTS
from envs.skat.solver import kernel as K
from envs.skat.solver.position import TABLES, Position

QUESTIONS = ("exact", "win", "schneider", "schwarz")
THRESHOLDS = {"win": 61, "schneider": 90}


class SearchAborted(Exception):
    """A search passed the solver's node limit (``Solver.limit``); its question has no answer."""


@dataclass
class Answer:
    """A solved question: ``value`` (card points for ``exact``, else True/False), the best cards for
    the player to move (every card of the best equivalence classes), and the nodes searched."""

    value: int | bool
    best: list[int]
    nodes: int


def _mode(pos: Position, question: str | int) -> int:
    if pos.game == NULL:
        return K.MODE_NULL
    return K.MODE_TRICKS if question == "schwarz" else K.MODE_POINTS


class Solver:
    """A double-dummy solver with its own transposition table (about 12 MB; keep one per process).

    Every public call starts a new table generation, so answers never depend on earlier calls."""

    def __init__(self) -> None:
        self.limit = 1 << 62  # node count (``nodes``) past which a search gives up: raises SearchAborted
        self.tt = K.new_table()
        self.stats = np.zeros(K.STATS_SIZE, dtype=np.int64)
        self._gen = 0

    # --- low level ----------------------------------------------------------------------------
    def _begin(self) -> None:
        self._gen += 1
        self.stats[K.S_HIST:] >>= 2  # the history heuristic fades between questions
        if self._gen >= 1 << 28:  # generations live in 29 key bits: start over with a clean table
            self.tt = K.new_table()
            self._gen = 1

    def _params(self, pos: Position, mode: int) -> np.ndarray:
        bonus = sum(POINTS[c] for c in cards_of(pos.skat)) if pos.ramsch and mode == K.MODE_POINTS else 0
        return np.array([mode, pos.solo, 0 if pos.ramsch else 1, bonus, self._gen, self.limit], dtype=np.int64)

    def _future(self, pos: Position, mode: int, lower: int | None = None, upper: int | None = None,
                guess: int | None = None) -> int:
        """The value of the rest of the deal (kernel semantics); with ``lower``/``upper`` only
        whether it is below, inside or above: exact inside [lower, upper], else a bound past it."""
        t = TABLES[pos.game]
        h, tc, params = self._kernel_args(pos, mode)
        if mode == K.MODE_POINTS:
            top = sum(POINTS[c] for h_ in pos.hands for c in cards_of(h_)) + sum(POINTS[c] for c in pos.trick)
            top += int(params[K.P_LAST_BONUS])
        elif mode == K.MODE_TRICKS:
            top = pos.tricks_left
        else:
            top = 1
        lo = 0 if lower is None else lower
        hi = top if upper is None else upper
        g = (lo + hi) // 2 if guess is None else min(max(guess, lo), hi)
        v = int(K.mtd(h, tc, len(pos.trick), pos.leader, g, lo, hi, t.eff, t.order, t.follow, t.seq, t.pts,
                      t.ptsb, params, *self.tt, self.stats))
        if v == K.ABORTED:
            raise SearchAborted
        return v

    def _kernel_args(self, pos: Position, mode: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The kernel's hands, trick and parameters of ``pos`` (a completed search leaves them as they were)."""
        h = np.array(pos.hands, dtype=np.int64)
        tc = np.zeros(3, dtype=np.int64)
        for i, c in enumerate(pos.trick):
            tc[i] = c
        return h, tc, self._params(pos, mode)

    def _reaches(self, pos: Position, mode: int, need: int,
                 args: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> bool:
        """Whether the rest of the deal is worth at least ``need`` to the solo player (``args``: from
        :meth:`_kernel_args` of the same position and mode, to ask one position several questions)."""
        if need <= 0:
            return True
        t = TABLES[pos.game]
        h, tc, params = args or self._kernel_args(pos, mode)
        v = K.search(h, tc, len(pos.trick), pos.leader, need - 1, need, t.eff, t.order, t.follow, t.seq, t.pts,
                     t.ptsb, params, *self.tt, self.stats)
        if v == K.ABORTED:
            raise SearchAborted
        return bool(v >= need)

    def _base(self, pos: Position, mode: int) -> int:
        """What the solo player already has towards the measured quantity."""
        if mode == K.MODE_TRICKS:
            return pos.tricks[pos.solo]
        if mode == K.MODE_NULL:
            return 0
        skat = 0 if pos.ramsch else sum(POINTS[c] for c in cards_of(pos.skat))
        return pos.points[pos.solo] + skat

    # --- questions ----------------------------------------------------------------------------
    def value(self, pos: Position, question: str | int = "exact") -> int | bool:
        """``exact``: the solo player's final card points (skat included) with best play on both sides
        (null: 1 if the declarer takes no trick, else 0). ``win`` (61), ``schneider`` (90) or an int
        threshold: whether the declarer reaches that many card points; ``schwarz``: whether it takes
        every trick. Null: every question asks whether the declarer takes no trick."""
        self._begin()
        return self._value(pos, question)

    def _value(self, pos: Position, question: str | int, guess: int | None = None) -> int | bool:
        mode = _mode(pos, question)
        if mode == K.MODE_NULL:
            if pos.tricks[pos.solo]:
                return 0 if question == "exact" else False
            v = self._future(pos, mode)
            return v if question == "exact" else bool(v)
        if mode == K.MODE_TRICKS:
            played = sum(pos.tricks)
            if pos.tricks[pos.solo] < played:
                return False
            return self._reaches(pos, mode, pos.tricks_left)
        base = self._base(pos, mode)
        if question == "exact":
            return base + self._future(pos, mode, guess=None if guess is None else guess - base)
        threshold = THRESHOLDS[question] if isinstance(question, str) else int(question)
        return self._reaches(pos, mode, threshold - base)

    def move_values(self, pos: Position, question: str | int = "exact") -> dict[int, int | bool]:
        """The value (as :meth:`value`) of each legal card of the player to move, equivalent cards alike."""
        if question not in QUESTIONS and not isinstance(question, int):
            raise ValueError(f"unknown question {question!r}; expected one of {QUESTIONS} or a card-point threshold")
        self._begin()
        mode = _mode(pos, question)
        out: dict[int, int | bool] = {}
        guess = None
        for cls in pos.equivalence_classes(by_points=mode == K.MODE_POINTS):
            c = (cls & -cls).bit_length() - 1
            v = self._value(pos.play(c), question, guess)
            if question == "exact":
                guess = int(v)
            for x in cards_of(cls):
                out[x] = v
        return out

    def move_grades(self, pos: Position, thresholds: tuple[int, ...] = (31, 61, 90)) -> dict[int, int]:
        """For each legal card, how many of the card-point ``thresholds`` (ascending) the declarer still
        reaches after it (a binary search of null-window searches; one table for all cards). Null: 1 if
        the declarer takes no trick, else 0. Cheaper than exact values when only the game's
        outcome class matters (lost schneider, lost, won, won schneider)."""
        self._begin()
        mode = _mode(pos, "win")
        out: dict[int, int] = {}
        for cls in pos.equivalence_classes(by_points=mode == K.MODE_POINTS):
            c = (cls & -cls).bit_length() - 1
            child = pos.play(c)
            if mode == K.MODE_NULL:
                grade = int(self._value(child, "win"))
            else:
                lo, hi = 0, len(thresholds)  # the grade lies in [lo, hi]
                base = self._base(child, mode)
                args = self._kernel_args(child, mode)
                while lo < hi:
                    mid = (lo + hi + 1) // 2
                    if self._reaches(child, mode, thresholds[mid - 1] - base, args):
                        lo = mid
                    else:
                        hi = mid - 1
                grade = lo
            for x in cards_of(cls):
                out[x] = grade
        return out

    def solve(self, pos: Position, question: str | int = "exact") -> Answer:
        """The value of ``pos`` and the best cards for the player to move (see :meth:`value`)."""
        before = int(self.stats[K.S_NODES])
        values = self.move_values(pos, question)
        maximizing = (pos.to_move == pos.solo) != pos.ramsch
        pick = max if maximizing else min
        best_value = pick(values.values())
        best = sorted(c for c, v in values.items() if v == best_value)
        return Answer(best_value, best, int(self.stats[K.S_NODES]) - before)

    @property
    def nodes(self) -> int:
        """Nodes searched by this solver so far."""
        return int(self.stats[K.S_NODES])


_default: Solver | None = None


def default_solver() -> Solver:
    """One solver per process, made on first use."""
    global _default
    if _default is None:
        _default = Solver()
    return _default


def value(pos: Position, question: str | int = "exact") -> int | bool:
    """:meth:`Solver.value` on the process's default solver."""
    return default_solver().value(pos, question)


def solve(pos: Position, question: str | int = "exact") -> Answer:
    """:meth:`Solver.solve` on the process's default solver."""
    return default_solver().solve(pos, question)


def move_values(pos: Position, question: str | int = "exact") -> dict[int, int | bool]:
    """:meth:`Solver.move_values` on the process's default solver."""
    return default_solver().move_values(pos, question)
