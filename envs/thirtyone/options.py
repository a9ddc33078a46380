"""The Thirty-One option knobs: defaults (the common American game) and validation.

Every bad option raises ``ValueError`` naming the option and its valid values; an unknown option
name raises naming the valid names.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

CHOICES: dict[str, tuple[Any, ...]] = {
    "three_of_a_kind": (None, 30, 30.5),
    "three_aces": (None, 32),
    "deck": (52, 32),
    "knock_allowed": ("first_turn", "after_first_round"),
    "knocker_penalty": (2, 1),
    "knocker_tie": ("safe", "double"),
    "stock_exhausted": ("reshuffle", "draw"),
    "scoring": ("lives", "points"),
    "episode": ("game", "round"),
    "reward_scheme": ("win", "placement"),
}
MAX_PLAYERS = 9


@dataclass(frozen=True)
class ThirtyOneOptions:
    """All knobs with their defaults; see the README's options table for the rules they change."""

    num_players: int = 4  # 2..9
    lives: int = 3  # lives per player (lives game)
    free_ride: bool = True  # at 0 lives a player is "on the county" and rides once more
    three_of_a_kind: float | None = None  # None (not counted), 30 or 30.5
    three_aces: float | None = None  # None or 32 (a blitz, like 31)
    deck: int = 52  # 52, or 32 (Schwimmen-style 7..A)
    knock_allowed: str = "first_turn"  # or "after_first_round" (every player has had a turn)
    min_knock_score: float | None = None  # None, or the least hand value that may knock (0..31)
    knocker_penalty: int = 2  # lives a knocker with the single lowest hand loses (2 or 1)
    knocker_tie: str = "safe"  # knocker tied for lowest: "safe" or "double" (pays the penalty)
    stock_exhausted: str = "reshuffle"  # or "draw": the round is void when the stock runs out
    throw_down: bool = False  # the first player may, before looking, expose all hands at once
    scoring: str = "lives"  # "lives" (elimination) or "points" (no elimination, to target_score)
    target_score: int = 31  # points game: first to reach it (alone in the lead) wins
    episode: str = "game"  # "game" (until one player is left) or "round" (one deal)
    reward_scheme: str = "win"  # game episodes: "win" (+1 / -1/(n-1)) or "placement"
    max_turns: int | None = 100  # turns per round without a knock before a forced showdown
    first_dealer: int | None = None  # seat of the first dealer; None draws it from the seed


OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in fields(ThirtyOneOptions))


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def validate_options(**options: Any) -> ThirtyOneOptions:
    """Keyword options -> a validated :class:`ThirtyOneOptions`. Raises ValueError on a bad one."""
    for key in options:
        if key not in OPTION_NAMES:
            raise ValueError(f"unknown Thirty-One option {key!r}; valid options: {', '.join(OPTION_NAMES)}")
    o = ThirtyOneOptions(**options)
    n = o.num_players
    if not _is_int(n) or not 2 <= n <= MAX_PLAYERS:
        raise ValueError(f"num_players must be an int from 2 to {MAX_PLAYERS}, got {n!r}")
    if not _is_int(o.lives) or not 1 <= o.lives <= 99:
        raise ValueError(f"lives must be an int from 1 to 99, got {o.lives!r}")
    for key in ("free_ride", "throw_down"):
        if not isinstance(getattr(o, key), bool):
            raise ValueError(f"{key} must be True or False, got {getattr(o, key)!r}")
    for key, valid in CHOICES.items():
        value = getattr(o, key)
        if not any(value == v and (value is None) == (v is None) and not isinstance(value, bool) for v in valid):
            raise ValueError(f"{key} must be one of {list(valid)}, got {value!r}")
    m = o.min_knock_score
    if m is not None and (not _is_number(m) or not 0 <= m <= 31):
        raise ValueError(f"min_knock_score must be None or a number from 0 to 31, got {m!r}")
    if not _is_int(o.target_score) or o.target_score < 1:
        raise ValueError(f"target_score must be an int of at least 1, got {o.target_score!r}")
    if o.max_turns is not None and (not _is_int(o.max_turns) or o.max_turns < 1):
        raise ValueError(f"max_turns must be None or an int of at least 1, got {o.max_turns!r}")
    d = o.first_dealer
    if d is not None and (not _is_int(d) or not 0 <= d < n):
        raise ValueError(f"first_dealer must be None or a seat from 0 to {n - 1}, got {d!r}")
    return o
