"""Downloads of a finished deal: JSON (every game) and the game's own formats (its adapter's
``downloads``: Skat's ISS record, which ``envs.skat.iss.replay`` reads back).

JSON: the options, the seed, the deal's start as the adapter gives it (Skat: the dealer and the
hands by seat, so ``env.reset(options={"deal": {"hands": ..., "skat": ...}, "dealer": ...})``
followed by the moves replays the deal alone; Thirty-One: the game's seed, so ``env.reset(seed=...)``
followed by the moves replays the game), the moves with their names, the replay frames (every
hand open) and the result.
"""

from __future__ import annotations

import json
from typing import Any

from play.core import Deal, Table

FORMAT = "skat31-play-deal"


def deal_json(table: Table, deal: Deal) -> dict[str, Any]:
    names = table.env.action_name
    return {"format": FORMAT, "version": 2, "game": table.game, "table_seed": table.seed, "deal": deal.number,
            "seed": deal.seed, "options": table.options, "players": table.names, "human_seat": table.human_seat,
            "start": deal.start, "moves": [{"seat": s, "action": a, "name": names(a)} for s, a in deal.moves],
            "result": deal.result, "frames": deal.frames}


def download(table: Table, deal: Deal, fmt: str) -> tuple[str, str, str]:
    """(body, media type, file name) of a finished deal in ``fmt`` (one of the adapter's downloads)."""
    formats = table.adapter.downloads(table, deal)
    if fmt not in formats:
        raise ValueError(f"this deal downloads as {' or '.join(formats)}, not {fmt!r}")
    name = f"{table.game}-{table.seed}-deal{deal.number}.{fmt}"
    if fmt == "json":
        return json.dumps(deal_json(table, deal), indent=1), "application/json", name
    return table.adapter.record(table, deal, fmt) + "\n", "text/plain", name
