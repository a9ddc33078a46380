"""Downloads of a finished deal: JSON (both games) and an ISS-style record (Skat) that
``envs.skat.iss.replay`` reads back.

JSON, Skat: the dealer and the hands by seat, so ``env.reset(options={"deal": {"hands": ...,
"skat": ...}, "dealer": ...})`` followed by the moves replays the deal alone. Thirty-One: the game's
seed, so ``env.reset(seed=...)`` followed by the moves replays the game (the stock is drawn from the
rules state's generator). Both carry the replay frames (every hand open) and the result.
"""

from __future__ import annotations

from typing import Any

from envs.skat import actions as SA
from envs.skat.cards import CARD_NAMES
from play.core import Deal, Table

FORMAT = "skat31-play-deal"


def deal_json(table: Table, deal: Deal) -> dict[str, Any]:
    names = table.env.action_name
    return {"format": FORMAT, "version": 1, "game": table.game, "table_seed": table.seed, "deal": deal.number,
            "seed": deal.seed, "options": table.options, "players": table.names, "human_seat": table.human_seat,
            "start": deal.start, "moves": [{"seat": s, "action": a, "name": names(a)} for s, a in deal.moves],
            "result": deal.result, "frames": deal.frames}


def deal_iss(table: Table, deal: Deal) -> str:
    """The deal as an ISS record: seats in the record are positions (0 forehand); Kontra/Re are
    not ISS moves, so a doubled game's record leaves the value out of ``R[]``."""
    if table.game != "skat":
        raise ValueError("ISS records are Skat records")
    if table.options.get("ramsch") and (deal.result or {}).get("kind") == "ramsch":
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
