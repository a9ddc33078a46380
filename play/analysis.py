""""Could the declarer have won?": the double-dummy solver's answer for a finished Skat deal.

The question is offered only where ``envs.skat.solver`` imports (the search issue). The position
asked about is the deal as it stood before the first card (after the skat, the declaration and any
Kontra/Re), every hand open. The solver is reached through the first of these functions it has:
``could_declarer_win(state) -> bool``, ``declarer_wins(state) -> bool``, ``solve(state)`` (a bool, or
an object / dict with ``won`` / ``declarer_wins``). The answer is about card play only.
"""

from __future__ import annotations

import importlib
from typing import Any

from envs.skat.rules import PLAY, SkatGame, SkatState

ENTRY_POINTS = ("could_declarer_win", "declarer_wins", "solve")


def solver() -> Any | None:
    """The solver module, or None where it does not exist (or does not import)."""
    try:
        return importlib.import_module("envs.skat.solver")
    except Exception:  # missing, or broken in this checkout: the feature is simply not offered
        return None


def available() -> bool:
    mod = solver()
    return mod is not None and any(callable(getattr(mod, n, None)) for n in ENTRY_POINTS)


def position_before_play(options: dict[str, Any], start: dict[str, Any], moves: list[tuple[int, int]]
                         ) -> SkatState | None:
    """The rules state just before the first card, rebuilt from a table's options, the deal's start
    (dealer and hands by seat, see ``play.skat``) and its moves; None if no game was declared."""
    dealer = start["dealer"]
    hands = [start["hands"][(dealer + 1 + p) % 3] for p in range(3)]
    st = SkatGame(**options).state_from_deal(hands, start["skat"])
    for _, action in moves:
        if st.phase == PLAY:
            break
        st.apply_action(action)
    return st if st.phase == PLAY and st.contract is not None else None


def _as_bool(answer: Any) -> bool:
    if isinstance(answer, bool):
        return answer
    for key in ("won", "declarer_wins", "wins"):
        if isinstance(answer, dict) and key in answer:
            return bool(answer[key])
        if hasattr(answer, key):
            return bool(getattr(answer, key))
    raise TypeError(f"the solver answered {type(answer).__name__}, not a win/loss")


def could_declarer_have_won(options: dict[str, Any], deal_start: dict[str, Any], moves: list[tuple[int, int]]
                            ) -> dict[str, Any]:
    """{"available": bool, "answer": bool | None, "text": str} for a finished deal."""
    mod = solver()
    if mod is None:
        return {"available": False, "answer": None, "text": "no double-dummy solver in this installation"}
    start = position_before_play(options, deal_start, moves)
    if start is None:
        return {"available": True, "answer": None, "text": "no suit, grand or null game was played in this deal"}
    for name in ENTRY_POINTS:
        fn = getattr(mod, name, None)
        if callable(fn):
            won = _as_bool(fn(start))
            text = ("yes: with best play on both sides the declarer wins the card play" if won else
                    "no: against best defence the declarer loses, whatever the declarer plays")
            return {"available": True, "answer": won, "text": text}
    return {"available": False, "answer": None, "text": "the solver module has no entry point this table knows"}
