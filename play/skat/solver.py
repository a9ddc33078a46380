""""Could the declarer have won?": the double-dummy solver's answer for a finished Skat deal.

The position asked about is the deal as it stood at the first trick, after the declaration (and
any Kontra to Resupra, a Revolution's exchange), every hand open::

    Solver().value(Position.from_state(state_at_trick_1), "win")

"win" is reaching 61 card points; a declaration that needs more asks for it (schneider announced:
90, 91 in North American skat; schwarz announced or ouvert: every trick; null: no trick). If the
answer is yes, the winning line is the solver's best card at every turn (``Solver.solve``), the
declarer's towards the target and the defenders' against it. The answer is about card play only:
an overbid game is lost whatever the cards do. Asked only where the solver plays the table's card
play: three hands of the 32-card pack (not Sechserskat, Officers' Skat, Oma's face-down stack or
the two-card tricks of the unused dummy).
"""

from __future__ import annotations

import threading
from typing import Any

from envs.skat.cards import CARD_NAMES, NULL
from envs.skat.rules import SkatState, Table
from play.core import Deal
from play.core import Table as PlayTable

QUESTION = "Could the declarer have won?"
NA_SCHNEIDER = 91  # North American schneider (envs.skat.scoring_tournee)
_lock = threading.Lock()  # one solver per process; its transposition table is not for two threads at once
_solver: Any = None


def supported(t: Table) -> bool:
    return t.trick_size == 3 and t.pack.size == 32 and not t.officers and t.dummy_mode != "stack"


def question(table: PlayTable, deal: Deal) -> str | None:
    snap = deal.notes.get("play_start")
    if snap is None or snap.contract is None or not supported(snap.table):
        return None
    return QUESTION


def target(st: SkatState) -> tuple[str | int, str]:
    """The solver's question for the declared game, and what it means in words."""
    c = st.contract
    if c.game == NULL:
        return "win", "take no trick"
    if c.schwarz or c.ouvert:
        return "schwarz", "take every trick"
    if c.schneider:
        if st.table.tournee:
            return NA_SCHNEIDER, f"reach {NA_SCHNEIDER} card points (schneider announced)"
        return "schneider", "reach 90 card points (schneider announced)"
    return "win", "reach 61 card points"


def _names(table: PlayTable, deal: Deal) -> list[str]:
    t = table.env.table
    out = []
    for p in range(3):
        seat = t.seat_of(p, deal.start["dealer"])
        out.append(table.names[seat] if seat >= 0 else ("Oma" if t.dummy_mode == "stack" else "Dummy"))
    return out


def analyse(table: PlayTable, deal: Deal) -> dict[str, Any]:
    """{"available", "answer", "text", "line"}: the solver's answer, and the winning line if there is one."""
    if question(table, deal) is None:
        return {"available": False, "answer": None, "text": "the solver answers only for a suit, grand or null game "
                "played with three hands of the 32-card pack", "line": None}
    if "analysis" in deal.notes:
        return deal.notes["analysis"]
    from envs.skat.solver import Position, Solver

    global _solver
    snap: SkatState = deal.notes["play_start"]
    ask, words = target(snap)
    names = _names(table, deal)
    declarer = names[snap.declarer]
    you = declarer == table.names[table.human_seat]
    subject, plays = ("you", "you play") if you else (declarer, f"{declarer} plays")
    with _lock:
        if _solver is None:
            _solver = Solver()
        pos = Position.from_state(snap)
        won = bool(_solver.value(pos, ask))
        line = _line(_solver, pos, ask, names) if won else None
    played = deal.result.get("won") if deal.result else None
    actual = "" if played is None else f" (At the table {subject} {'won' if played else 'lost'}.)"
    if won:
        text = f"Yes: with every hand open and best play on both sides, {subject} can {words}.{actual} A winning line:"
    else:
        text = f"No: against the best defence {subject} cannot {words}, whatever {plays}.{actual}"
    answer = {"available": True, "answer": won, "text": text, "line": line}
    deal.notes["analysis"] = answer
    return answer


def _line(solver: Any, pos: Any, ask: str | int, names: list[str]) -> list[dict[str, Any]]:
    """Tricks of best play from ``pos`` on: each player plays the solver's first best card."""
    tricks: list[dict[str, Any]] = []
    cards: list[dict[str, str]] = []
    while pos.tricks_left:
        p = pos.to_move
        c = solver.solve(pos, ask).best[0]
        cards.append({"card": CARD_NAMES[c], "who": names[p]})
        pos = pos.play(c)
        if not pos.trick:
            tricks.append({"cards": cards, "winner": names[pos.leader]})
            cards = []
    return tricks


def line_text(line: list[dict[str, Any]]) -> list[str]:
    return [f"Trick {i}: " + ", ".join(f"{c['who']} {c['card']}" for c in t["cards"]) + f" -> {t['winner']}"
            for i, t in enumerate(line, 1)]
