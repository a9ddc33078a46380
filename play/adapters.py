"""The play package's game registry: one front-end adapter per game of ``envs.games.GAMES``.

An adapter (``play.core.GameAdapter``) is everything the tables know about a game: its options,
moves with labels and keys, the view of a seat, results, records and the questions it can answer
after a deal. The terminal, the web server and the CLI ask it and never branch on a game's name::

    from play.adapters import adapter, games
    games()                      # the games of envs.games that have an adapter: skat, thirtyone
    adapter("skat").title        # "Skat"

Adding a game to the tables means writing its adapter and registering it here.
"""

from __future__ import annotations

import importlib
from functools import cache

from envs.games import GAMES
from play.core import GameAdapter

# game -> "module:attribute" of its adapter (imported on first use)
REGISTRY = {
    "skat": "play.skat:ADAPTER",
    "thirtyone": "play.thirtyone:ADAPTER",
}


def games() -> tuple[str, ...]:
    """The games a table can be set for, in the order of ``envs.games.GAMES``."""
    return tuple(g for g in GAMES if g in REGISTRY)


@cache
def adapter(game: str) -> GameAdapter:
    """The adapter of ``game``; ValueError naming the games there are."""
    if not isinstance(game, str) or game not in games():
        raise ValueError(f"unknown game {game!r}; the tables play {', '.join(games())}")
    module, attribute = REGISTRY[game].split(":")
    return getattr(importlib.import_module(module), attribute)
