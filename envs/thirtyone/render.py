"""Text rendering of a Thirty-One state (a spectator's view: every hand is shown)."""

from __future__ import annotations

from envs.thirtyone.cards import pretty
from envs.thirtyone.rules import DISCARD, DRAW, OVER, THROW, ThirtyOneState

_PHASES = {THROW: "throw-down choice", DRAW: "draw", DISCARD: "discard", OVER: "over"}


def _cards(cards: list[int]) -> str:
    return " ".join(pretty(c) for c in sorted(cards))


def render_text(state: ThirtyOneState) -> str:
    o = state.opts
    top = pretty(state.pile[-1]) if state.pile else "-"
    lines = [
        f"Thirty-One  round {state.round_no}  dealer player_{state.dealer}  phase {_PHASES[state.phase]}  "
        f"stock {len(state.stock)}  discard {top} ({len(state.pile)} in pile)"
    ]
    for s in range(state.n):
        mark = ">" if s == state.current_player else " "
        if not state.alive[s]:
            lines.append(f"{mark} player_{s}  out")
            continue
        if o.scoring == "lives":
            standing = "on the county" if state.on_county(s) else f"lives {state.lives(s)}"
        else:
            standing = f"score {state.scores[s]}"
        held = _cards(state.hands[s])
        extra = "  KNOCKED" if s == state.knocker else ""
        lines.append(f"{mark} player_{s}  {held:<16} ({state.hand_value(s):g})  {standing}{extra}")
    r = state.last_round
    if r is not None:
        who = f", knocker player_{r['knocker']}" if r["knocker"] >= 0 else ""
        key = "lives_lost" if "lives_lost" in r else "points"
        res = ", ".join(f"player_{s}: {v:g}/{d}" for s, v, d in zip(r["seats"], r["values"], r[key], strict=True))
        void = " (void)" if r["void"] else ""
        lines.append(f"last round {r['round']}: {r['kind']}{who}{void}; value/{key}: {res}")
    if state.is_terminal():
        lines.append("game over; returns " + ", ".join(f"{x:+.3g}" for x in state.returns()))
    return "\n".join(lines)
