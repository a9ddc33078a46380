"""Human-readable table of a Skat deal (the only place with suit symbols)."""

from __future__ import annotations

from envs.skat import actions as A
from envs.skat.cards import EFFECTIVE_SUIT_SORT, GRAND, SUIT_SYMBOLS, cards_of, pretty
from envs.skat.pack import PACK36
from envs.skat.rules import ALL_PHASE_NAMES, PLAY, POSITION_NAMES, SkatState


def _pretty(c: int) -> str:
    return pretty(c) if c < 32 else SUIT_SYMBOLS[c - 32] + "6"


def _cards(mask: int, game: int) -> str:
    order = PACK36.order[GRAND if game < 0 else game]  # the 36-card tables hold the 32-card order too
    cs = sorted(cards_of(mask), key=lambda c: (-(EFFECTIVE_SUIT_SORT[c] if c < 32 else 35 - c), -order[c]))
    return " ".join(_pretty(c) for c in cs) or "-"


def render_table(state: SkatState, agents: list[str]) -> str:
    g = state.game_type
    lines = [f"Skat deal - phase: {ALL_PHASE_NAMES[state.phase]}"]
    for pos in range(3):
        tag = ""
        if pos == state.declarer:
            tag = " (declarer)"
        if pos == state.current_player:
            tag += "  <- to act"
        lines.append(f"  {POSITION_NAMES[pos]:<10} {agents[pos]:<9} {_cards(state.hands[pos], g)}{tag}")
    lines.append(f"  skat: {_cards(state.skat, g)}")
    calls = [f"{POSITION_NAMES[p][:1].upper()}:{A.ALL_ACTION_NAMES[a]}" for p, a in state.history
             if a < A.PICKUP or a >= A.BID_EXTRA]
    if calls:
        lines.append("  auction: " + ", ".join(calls))
    if state.contract is not None:
        extra = "".join(f" {w}" for w, level in (("kontra", 2), ("re", 4), ("supra", 8), ("resupra", 16))
                        if state.doubling >= level)
        lines.append(f"  game: {state.contract.label} at bid {state.bid}{extra}")
    elif state.phase >= PLAY and state.declarer < 0 and not state.passed_in:
        lines.append("  game: Ramsch")
    if state.trick:
        played = [f"{POSITION_NAMES[(state.leader + i) % state.trick_size]}: {_pretty(c)}"
                  for i, c in enumerate(state.trick)]
        lines.append("  trick: " + ", ".join(played))
    lines.append("  points: " + ", ".join(f"{POSITION_NAMES[p]} {state.points[p]}" for p in range(3))
                 + f"  (tricks {state.trick_count}/{state.tricks_total})")
    if state.is_terminal():
        if state.passed_in:
            lines.append("  passed in: everyone scores 0")
        else:
            lines.append("  score: " + ", ".join(f"{agents[p]} {state.scores[p]:+d}" for p in range(3)))
    return "\n".join(lines)
