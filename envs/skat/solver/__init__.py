"""Double-dummy solver for Skat card play: every hand open, best play on both sides.

Questions about a :class:`Position` (built from explicit hands or from a ``SkatState`` in card play
with :meth:`Position.from_state`)::

    from envs.skat.solver import Position, Solver
    from envs.skat.cards import parse_cards, SPADES

    pos = Position(SPADES, (parse_cards("CJ SJ SA ST ..."), ..., ...), solo=0, skat=parse_cards("D7 D8"))
    solver = Solver()
    solver.value(pos, "win")        # True/False: does the declarer reach 61 card points?
    solver.value(pos, "schneider")  # ... 90?  (any int threshold works too: solver.value(pos, 75))
    solver.value(pos, "schwarz")    # ... every trick?
    solver.value(pos, "exact")      # the declarer's final card points (skat and taken tricks included)
    solver.solve(pos, "exact")      # Answer(value, best cards for the player to move, nodes)
    solver.move_values(pos, "win")  # {card: value} for every legal card of the player to move

Null: the declarer is the solo player and every question asks whether it takes no trick (``exact``
gives 1 or 0). Ramsch (``ramsch=True``, grand's trumps): the solo player is the one whose card
points are solved, minimising them against the two others (a paranoid view); the skat goes to the
winner of the last trick. ``Solver.limit`` caps the nodes (counted in ``Solver.nodes``) a search may
reach: past it the call raises ``SearchAborted`` (search agents use it as a deterministic budget).
Module-level ``value``/``solve``/``move_values`` use one solver per process.

How: ``kernel`` (numba, compiled once per machine into ``__pycache__``, ``cache=True``) runs a
fail-soft alpha-beta on the value of the rest of the deal, with null-window searches for the
threshold questions and MTD(f) for the exact value, a transposition table of bounds keyed by the
cards left and the leader, equivalent-card reduction, move ordering and quick cut-offs.
``reference`` is the readable oracle: brute-force minimax over the rules core (tests compare the
two on thousands of endgames). ``python -m envs.skat.solver.bench`` measures speed on full deals.
"""

from envs.skat.solver.position import Position
from envs.skat.solver.solve import (
    QUESTIONS,
    Answer,
    SearchAborted,
    Solver,
    default_solver,
    move_values,
    solve,
    value,
)

__all__ = ["Position", "Solver", "Answer", "SearchAborted", "QUESTIONS", "default_solver", "value", "solve",
           "move_values"]
