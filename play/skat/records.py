"""A Skat deal's start (for the JSON record: ``env.reset(options={"deal": ..., "dealer": ...})``
replays it) and its ISS record (``envs.skat.iss.replay`` reads it back: the ISkO table only)."""

from __future__ import annotations

from typing import Any

from envs.skat import actions as SA
from envs.skat.cards import CARD_NAMES, cards_of
from envs.skat.rules import SkatState
from play.core import Deal, Table
from play.skat.moves import sorted_ids


def _pile(st: SkatState, p: int) -> list[int]:
    """Position ``p``'s cards as dealt, in the order the table needs them (Idiotenskat's slots,
    Oma's stack, Officers' face-down cards under the face-up ones), else sorted."""
    x, t = st.x, st.table
    if x is not None and x.slots is not None and x.slots[p]:
        return [c for c in x.slots[p] if c >= 0]
    if t.officers:
        ups = [c for c in cards_of(st.dealt[p]) if not x.hidden[p] >> c & 1]
        return [x.under[u] for u in ups] + ups
    return sorted_ids(st.dealt[p], -1, t.pack)


def deal_start(env: Any, st: SkatState) -> dict[str, Any]:
    """The dealer, the hands by seat (the sitting-out dealer's empty) and the skat (and the dummy)."""
    t, dealer = st.table, env.dealer
    names = t.pack.names
    hands = [""] * t.seats
    for p in range(t.positions):
        if p != t.dummy:
            hands[t.seat_of(p, dealer)] = " ".join(names[c] for c in _pile(st, p))
    skat = st.x.skat_order if st.x is not None else cards_of(st.original_skat)
    start = {"dealer": dealer, "hands": hands, "skat": " ".join(names[c] for c in skat)}
    if t.dummy >= 0:
        start["dummy"] = " ".join(names[c] for c in _pile(st, t.dummy))
    return start


def iss_possible(table: Table, deal: Deal) -> bool:
    return bool(table.env.table.classic) and (deal.result or {}).get("kind") != "ramsch"


def deal_iss(table: Table, deal: Deal) -> str:
    """The deal as an ISS record: seats in the record are positions (0 forehand); Kontra/Re are
    not ISS moves, so a doubled game's record leaves the value out of ``R[]``."""
    if not table.env.table.classic:
        raise ValueError("ISS records are three-player Skat records of the ISkO table: download the JSON record")
    if (deal.result or {}).get("kind") == "ramsch":
        raise ValueError("ISS records have no Ramsch: download the JSON record")
    dealer = deal.start["dealer"]
    seat_of = [(dealer + 1 + p) % 3 for p in range(3)]
    pos_of = {s: p for p, s in enumerate(seat_of)}
    cards = [c for p in range(3) for c in deal.start["hands"][seat_of[p]].split()] + deal.start["skat"].split()
    moves: list[str] = []
    discards: list[str] = []
    declared = False
    for seat, a in deal.moves:
        p = pos_of[seat]
        if declared and a in (SA.PASS, SA.KONTRA, SA.RE):
            continue  # Kontra / Re and the pass declining them have no ISS form
        if a < SA.HOLD:
            moves.append(f"{p} {SA.BID_VALUES[a - SA.BID]}")
        elif a in (SA.HOLD, SA.PASS):
            moves.append(f"{p} {'y' if a == SA.HOLD else 'p'}")
        elif a == SA.PICKUP:
            moves.append(f"{p} s w {'.'.join(deal.start['skat'].split())}")
        elif SA.DISCARD <= a < SA.DECLARE:
            discards.append(CARD_NAMES[a - SA.DISCARD])
        elif SA.DECLARE <= a < SA.KONTRA:
            label = SA.CONTRACTS[a - SA.DECLARE].label
            moves.append(f"{p} {label}" + ("." + ".".join(discards) if discards else ""))
            declared = True
        elif a >= SA.PLAY:
            moves.append(f"{p} {CARD_NAMES[a - SA.PLAY]}")
    result = _iss_result(deal.result, pos_of)
    names = " ".join(f"P{p}[{table.names[seat_of[p]].replace(']', ')')}]" for p in range(3))
    return (f"(;GM[Skat]PC[skat31 play]ID[play-{table.seed}-{deal.number}]DT[]{names}"
            f"MV[w {'.'.join(cards)} {' '.join(moves)} ]R[{result}] ;)")


def _iss_result(result: dict[str, Any] | None, pos_of: dict[int, int]) -> str:
    if not result or result.get("kind") != "game":
        return "passed"
    fields = [f"d:{pos_of[result['declarer']]}", "win" if result["won"] else "loss"]
    if result.get("doubling", 1) == 1:
        fields.append(f"v:{result['value'] if result['won'] else -2 * result['value']}")
    fields += [f"p:{result['declarer_points']}", f"t:{result['declarer_tricks']}"]
    return " ".join(fields)
