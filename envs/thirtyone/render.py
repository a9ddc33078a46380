"""Text rendering of a Thirty-One state (a spectator's view: every hand is shown, face-down cards too)."""

from __future__ import annotations

from envs.thirtyone.brag import brag_name
from envs.thirtyone.cards import pretty
from envs.thirtyone.rules import PHASE_NAMES, ThirtyOneState
from envs.thirtyone.settle import summary_key

_PHASES = dict(enumerate(PHASE_NAMES)) | {0: "throw-down choice"}


def _cards(cards: list[int]) -> str:
    return " ".join(pretty(c) for c in sorted(cards))


def _value(state: ThirtyOneState, value: float) -> str:
    return brag_name(int(value)) if state.opts.ranking == "brag" else f"{value:g}"


def _table(state: ThirtyOneState) -> str:
    """The table slots: a face-up card, ``[♥K]`` for a face-down one, ``-`` for an empty slot."""
    out = []
    for j, (c, up) in enumerate(zip(state.table, state.face_up, strict=True)):
        if j == 3:
            out.append("|")
        out.append("-" if c < 0 else pretty(c) if up else f"[{pretty(c)}]")
    return " ".join(out)


def render_text(state: ThirtyOneState) -> str:
    o = state.opts
    top = pretty(state.pile[-1]) if state.pile else "-"
    head = (f"Thirty-One ({o.variant})  round {state.round_no}  dealer player_{state.dealer}  phase "
            f"{_PHASES[state.phase]}  stock {len(state.stock)}")
    if state.tk <= 1:
        head += f"  discard {top} ({len(state.pile)} in pile)"
    if state.table:
        head += f"  table {_table(state)}"
    if o.scoring == "pot":
        head += f"  pot {state.pot}"
    lines = [head if o.variant != "scat" else head.replace(" (scat)", "", 1)]
    county = "swimming" if o.variant == "schwimmen" else "on the county"
    for s in range(state.n):
        mark = ">" if s == state.current_player else " "
        if not state.alive[s]:
            lines.append(f"{mark} player_{s}  out")
            continue
        if o.scoring == "lives":
            standing = county if state.on_county(s) else f"lives {state.lives(s)}"
        elif o.scoring == "pot":
            standing = f"tokens {state.tokens[s]}"
        else:
            standing = f"score {state.scores[s]}"
        held = _cards(state.hands[s])
        extra = "  KNOCKED" if s == state.knocker else ""
        lines.append(f"{mark} player_{s}  {held:<16} ({_value(state, state.hand_value(s))})  {standing}{extra}")
    r = state.last_round
    if r is not None:
        who = f", knocker player_{r['knocker']}" if r["knocker"] >= 0 else ""
        key = summary_key(r)
        res = ", ".join(f"player_{s}: {_value(state, v)}/{d}" for s, v, d in zip(r["seats"], r["values"], r[key],
                                                                                  strict=True))
        void = " (void)" if r["void"] else ""
        lines.append(f"last round {r['round']}: {r['kind']}{who}{void}; value/{key}: {res}")
    if state.is_terminal():
        lines.append("game over; returns " + ", ".join(f"{x:+.3g}" for x in state.returns()))
    return "\n".join(lines)
