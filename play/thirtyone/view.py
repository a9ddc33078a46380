"""What a seat sees of a Thirty-One game, as the generic view of ``play.core``, and the showdowns.

Public: the discard pile's top, the stock's size, face-up table cards (the widow's, the pool, Switch's
two table hands), lives / points / tokens, who knocked, the cards a player is known to hold (taken
face up). Private: the own hand, a face-down table card (the Switch dealer sees the second hand
before choosing). At a Switch restart offer every hand is shown.
"""

from __future__ import annotations

from typing import Any

from envs.thirtyone.cards import CARD_NAMES, cards_of
from envs.thirtyone.phases import POOL, RESTART, STOCK, SWITCH, WIDOW
from envs.thirtyone.rules import PHASE_NAMES, ThirtyOneState
from envs.thirtyone.settle import summary_key
from play.core import Table
from play.thirtyone.moves import slot_token, sorted_cards, value_text


def standing(st: ThirtyOneState, seat: int) -> str:
    o = st.opts
    if not st.alive[seat]:
        return "out"
    if o.scoring == "points":
        return f"{st.scores[seat]} points"
    if o.scoring == "pot":
        return f"{st.tokens[seat]} token{'s' if st.tokens[seat] != 1 else ''}"
    if st.on_county(seat):
        return "swimming" if o.variant == "schwimmen" else "on the county"
    return f"{st.lives(seat)} {'life' if st.lives(seat) == 1 else 'lives'}"


def showdown(st: ThirtyOneState, names: list[str]) -> dict[str, Any]:
    """The last round's showdown: every hand, its value and what it cost or won (the round's record
    key: ``envs.thirtyone.settle.summary_key``: lives lost, points, or tokens in Banking's pot)."""
    r = st.last_round
    key = summary_key(r)
    rows = []
    for s, h, v, d in zip(r["seats"], r["hands"], r["values"], r[key], strict=True):
        if key == "lives_lost":
            text = f"loses {d} {'life' if d == 1 else 'lives'}" if d else "-"
        elif key == "tokens":
            text = f"{d:+d} token{'s' if abs(d) != 1 else ''}" if d else "0 tokens"
        else:
            text = f"+{d} points"
        rows.append({"seat": s, "name": names[s], "hand": sorted_cards(h), "value": value_text(st, v),
                     "result": text, key: d})
    knocker = r["knocker"] if r["knocker"] >= 0 else None
    title = f"Round {r['round']} ends: {r['kind']}" + (f", {names[knocker]} knocked" if knocker is not None else "")
    notes = [f"{names[s]} is out" for s in r["eliminated"]]
    if r["void"]:
        restarted = r["kind"] == "restart"
        notes.append("Restarted: the round is dealt again." if restarted else "A void round: nobody loses.")
    return {"title": title, "round": r["round"], "kind": r["kind"], "knocker": knocker, "void": r["void"],
            "key": key, "rows": rows, "notes": notes, "eliminated": list(r["eliminated"])}


def _center(st: ThirtyOneState, seat: int, over: bool) -> list[dict[str, Any]]:
    piles: list[dict[str, Any]] = []
    if over:
        return piles
    if st.tk in (STOCK, WIDOW):
        if st.pile:
            piles.append({"label": f"discard pile ({len(st.pile)})", "cards": [CARD_NAMES[st.pile[-1]]],
                          "captions": None, "faded": False})
        piles.append({"label": f"stock ({len(st.stock)})", "cards": ["##"] if st.stock else [], "captions": None,
                      "faded": False})
    if st.table:
        groups = [(0, len(st.table))] if st.tk != SWITCH else [(0, 3), (3, 6)]
        for lo, hi in groups:
            cards = [slot_token(st, j, seat) for j in range(lo, hi) if st.table[j] >= 0]
            label = {WIDOW: "widow", POOL: "pool"}.get(st.tk, f"table hand {lo // 3 + 1}")
            piles.append({"label": label, "cards": cards, "captions": None, "faded": False})
    return piles


def view(table: Table, st: ThirtyOneState, seat: int) -> dict[str, Any]:
    o = st.opts
    over = st.is_terminal()
    shown = st.phase == RESTART  # "the hands are shown then"
    seats = []
    for s in range(st.n):
        tags = (["dealer"] if s == st.dealer else []) + (["knocked"] if s == st.knocker else [])
        meta = standing(st, s)
        known = st.known[s] if s != seat and st.alive[s] and not shown else 0
        if known:
            meta += ", holds " + " ".join(CARD_NAMES[c] for c in cards_of(known))
        seats.append({"seat": s, "name": table.names[s], "tags": tags + (["out"] if not st.alive[s] else []),
                      "meta": meta, "cards": len(st.hands[s]) if st.alive[s] else 0,
                      "open": sorted_cards(st.hands[s]) if shown and s != seat and st.alive[s] else None,
                      # the facts themselves, for tests and curious readers
                      "alive": st.alive[s], "lives": st.lives(s), "on_county": st.on_county(s), "score": st.scores[s],
                      "tokens": st.tokens[s], "knocked": s == st.knocker, "dealer": s == st.dealer})
    mine = st.hands[seat] if st.alive[seat] else []
    value = st.hand_value(seat) if mine else None
    info = []
    if st.knocker >= 0 and not over:
        info.append(f"{table.names[st.knocker]} knocked: one more turn each")
    if value is not None and len(mine) == 3:
        info.append(f"Your hand is worth {value_text(st, value)}")
    if o.scoring == "pot" and not over:
        info.append(f"Pot: {st.pot} tokens")
    info.append(f"You: {standing(st, seat)}")
    if st.locked >= 0:
        info.append(f"{CARD_NAMES[st.locked]} was just taken: it stays this turn")
    if st.peek == seat:
        info.append("You deal: keep your hand, or take the second hand (table hand 1, shown to you alone)")
    last = showdown(st, table.names) if st.last_round else None
    return {"phase": PHASE_NAMES[st.phase], "headline": f"round {st.round_no}, phase {PHASE_NAMES[st.phase]}",
            "seats": seats, "extra_seats": [], "center": _center(st, seat, over), "info": info,
            "rows": [{"label": "Your hand", "cards": sorted_cards(mine)}] if mine else [],
            "last": [last["title"]] + [f"{r['name']}: {' '.join(r['hand'])} ({r['value']}) {r['result']}"
                                       for r in last["rows"]] if last else None,
            "hand": sorted_cards(mine), "hand_value": value, "round": st.round_no, "scoring": o.scoring,
            "top": CARD_NAMES[st.pile[-1]] if st.pile and not over else None, "stock": len(st.stock),
            "knocker": st.knocker if st.knocker >= 0 else None, "last_round": last}


def frame(table: Table, st: ThirtyOneState, caption: str) -> dict[str, Any]:
    """A replay snapshot: every hand open with its value, and the cards on the table."""
    rows = [{"label": table.names[s], "cards": sorted_cards(st.hands[s]) if st.alive[s] else [],
             "note": value_text(st, st.hand_value(s)) if st.alive[s] else "out"} for s in range(st.n)]
    if st.pile:
        rows.append({"label": "discard", "cards": [CARD_NAMES[st.pile[-1]]], "note": f"stock {len(st.stock)}"})
    if st.table:
        cards = [CARD_NAMES[c] for c in st.table if c >= 0]
        rows.append({"label": "table", "cards": cards, "note": ""})
    return {"caption": caption, "round": st.round_no, "rows": rows, "trick": [], "winner": None}
