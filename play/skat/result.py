"""The result of a finished Skat deal with the game value worked out step by step, on any table.

The numbers are the ones ``envs.skat`` charged (``state.outcome``, ``state.scores``): this module
only lays them out (base value, matadors with the pack's trumps, the levels, overbid, Kontra to
Resupra, Seeger-Fabian with 40 or 30 to each other player, North American values and modes, a
concession, claim or revoke, a Ramsch with its house rules, a list's totals).
"""

from __future__ import annotations

from typing import Any

from envs.skat import actions as A
from envs.skat.cards import GAME_NAMES, NULL
from envs.skat.rules import POSITION_NAMES, SkatState
from envs.skat.rules.extras import PLAYED
from envs.skat.scoring import DEFENDER_BONUS, WIN_BONUS, multiplier_steps, null_value
from envs.skat.scoring_tournee import MODE_NAMES, base_value
from play.core import Table
from play.skat.moves import contract_text, doubling_text, mode_of
from play.skat.view import seat_of, who


def scores_by_seat(table: Table, st: SkatState) -> list[int]:
    """The deal's scores by table seat (the dummy's chair has none; at four the dealer's is position 3)."""
    t = st.table
    out = [0] * t.seats
    for p in range(t.score_len):
        if (p != t.dummy and p < t.positions) or p == 3:
            out[seat_of(table, p)] = int(st.scores[p])
    return out


def result(table: Table, st: SkatState) -> dict[str, Any]:
    scores = scores_by_seat(table, st)
    base = {"scores": scores, "winner": None, "showdown": None}
    if st.passed_in:
        return {**base, "kind": "passed in", "summary": "Everyone passed: no game, nobody scores.", "steps": [],
                "declarer": None, "won": False}
    out = _ramsch(table, st) if st.contract is None else _game(table, st)
    s = table.env.series
    if s is not None:
        totals = ", ".join(f"{table.names[i]} {x:+d}" for i, x in enumerate(s.totals))
        line = f"{s.dealt} of {s.length} deals; totals {totals}"
        if st.options.bierskat:
            line += "; recorded " + ", ".join(f"{table.names[i]} {r}" for i, r in enumerate(s.recorded))
            if s.done:
                line += "; the list is over, " + " and ".join(table.names[i] for i in s.losers) + " lost"
        out["steps"].append(["list", line])
    return {**base, **out}


def _ramsch(table: Table, st: SkatState) -> dict[str, Any]:
    x = st.x
    points = x.ramsch_points if x is not None and x.ramsch_points else st.points
    steps = [[who(table, p), f"{points[p]} card points, {st.tricks_won[p]} tricks"] for p in range(3)]
    if x is not None and x.pushes:
        steps.append(["pushed on", f"the skat {x.pushes} times untouched: x{2 ** x.pushes}"])
    if x is not None and x.ending != PLAYED:
        steps.append([x.ending, f"by {who(table, x.ended_by)}: that player loses as if holding every card point"])
    scored = [f"{who(table, p)} {st.scores[p]:+d}" for p in range(3) if st.scores[p]]
    summary = "Ramsch: " + (", ".join(scored) if scored else "nobody scores")
    return {"kind": "ramsch", "summary": summary, "steps": steps, "declarer": None, "won": False}


def _game(table: Table, st: SkatState) -> dict[str, Any]:
    t, o, c, d, x = st.table, st.outcome, st.contract, st.declarer, st.x
    mode = mode_of(st)
    name = who(table, d)
    steps: list[list[str]] = [["game", f"{contract_text(c, mode)} ({c.label}), declared by {name} "
                               f"({POSITION_NAMES[d]})" + (f" at bid {st.bid}" if st.bid else "")]]
    if c.game == NULL:
        steps.append(["null value", f"{o.value}" + (" (fixed)" if o.value == null_value(c) else "")])
    else:
        base = base_value(c, mode) if t.tournee else A.BASE_VALUES[c.game]
        kind = f"{GAME_NAMES[c.game]} {MODE_NAMES[mode]}".strip()
        steps.append(["base value", f"{base} ({kind})"])
        cards = st.dealt[d] | st.original_skat
        levels = [] if t.tournee else multiplier_steps(c, cards, o.declarer_points, o.declarer_tricks,
                                                       tricks=t.tricks, mat=t.pack.matadors(c.game, cards))
        if levels and sum(n for _, n in levels) == o.multiplier:
            steps += [[n, f"+{k}"] for n, k in levels]
        else:
            with_ = "with" if o.matadors > 0 else "without"
            steps.append(["multiplier", f"{o.multiplier} ({with_} {abs(o.matadors)}, game and the levels reached)"])
        steps.append(["game value", f"{o.multiplier} x {base} = {o.multiplier * base}"])
    if o.overbid:
        steps.append(["overbid", f"the bid {st.bid} is above the game value: lost, charged at {o.value}"])
    if x is not None and x.ending != PLAYED:
        steps.append([x.ending, f"by {who(table, x.ended_by)}"])
    steps.append(["declarer", f"{o.declarer_points} card points (skat included), {o.declarer_tricks} tricks"])
    if o.schwarz:
        steps.append(["schwarz", "one side took every trick"])
    elif o.schneider:
        steps.append(["schneider", "one side reached schneider"])
    steps.append(["result", "won" if o.won else "lost"])
    if o.doubling > 1:
        steps.append([doubling_text(o.doubling), f"x {o.doubling}"])
    lost = "" if o.won else (" (a lost game counts double)" if o.loss_factor == 2 else " (lost: minus the value)")
    steps.append(["declarer score", f"{o.declarer_score:+d}{lost}"])
    if st.options.scoring == "tournament":
        extra = f"{'+' if o.won else '-'}{WIN_BONUS} for the declarer"
        if not o.won:
            extra += f", +{DEFENDER_BONUS[t.scoring_players]} to each other player"
        steps.append(["Seeger-Fabian", extra])
    score = st.scores[d]
    summary = f"{name} {'won' if o.won else 'lost'} {contract_text(c, mode)}: {score:+d}"
    return {"kind": "game", "summary": summary, "steps": steps, "declarer": seat_of(table, d), "won": o.won,
            "contract": c.label, "value": o.value, "declarer_points": o.declarer_points,
            "declarer_tricks": o.declarer_tricks, "doubling": o.doubling}
