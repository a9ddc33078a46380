"""The Thirty-One option knobs: defaults (the common American game), named variants and validation.

Every bad option raises ``ValueError`` naming the option and its valid values; an unknown option
name raises naming the valid names. ``variant`` names a preset of ``envs.thirtyone.variants`` (an
unknown one raises listing the valid names); options given beside it override the preset.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from envs.thirtyone.variants import preset

CHOICES: dict[str, tuple[Any, ...]] = {
    "three_of_a_kind": (None, 30, 30.5),
    "three_aces": (None, 32),
    "straight_flush": (None, 30),
    "ranking": ("thirty_one", "brag"),
    "deck": (52, 32),
    "exchange": ("stock", "widow", "pool", "switch"),
    "knock_allowed": ("first_turn", "after_first_round"),
    "knocker_penalty": (2, 1),
    "knocker_tie": ("safe", "double"),
    "stock_exhausted": ("reshuffle", "draw"),
    "scoring": ("lives", "points", "pot"),
    "episode": ("game", "round"),
    "reward_scheme": ("win", "placement", "tokens"),
}
MAX_PLAYERS = 9
# Cards a deal uses besides the 3 per player: the turned-up card; the widow and the up-card; the pool;
# the dealer's second hand and the face-down hand.
EXTRA_DEALT = {"stock": 1, "widow": 4, "pool": 3, "switch": 6}


@dataclass(frozen=True)
class ThirtyOneOptions:
    """All knobs with their defaults; see the README's options table for the rules they change."""

    num_players: int = 4  # 2..9
    lives: int = 3  # lives per player (lives game); tokens per player (pot game)
    free_ride: bool = True  # at 0 lives a player is "on the county" and rides once more
    three_of_a_kind: float | None = None  # None (not counted), 30 or 30.5
    three_aces: float | None = None  # None or 32 (a blitz, like 31)
    straight_flush: float | None = None  # None, or 30: three cards of one suit in sequence (A-K-Q stays 31)
    ranking: str = "thirty_one"  # or "brag": three-card-brag rankings instead of 31 (Stop the Bus)
    deck: int = 52  # 52, or 32 (Schwimmen-style 7..A)
    exchange: str = "stock"  # "stock" (draw and discard), "widow" (+ a widow), "pool" (3 table cards), "switch"
    knock_allowed: str = "first_turn"  # or "after_first_round" (every player has had a turn)
    min_knock_score: float | None = None  # None, or the least hand value that may knock (0..31)
    knocker_penalty: int = 2  # lives a knocker with the lowest hand loses (2 or 1)
    knocker_tie: str = "safe"  # knocker tied for lowest: "safe" or "double" (pays the penalty, the others none)
    stock_exhausted: str = "reshuffle"  # or "draw": the round is void when the stock runs out
    throw_down: bool = False  # the first player may, before looking, expose all hands at once
    scoring: str = "lives"  # "lives" (elimination), "points" (no elimination) or "pot" (ante, highest takes it)
    target_score: int = 31  # points game: first to reach it (alone in the lead) wins
    ante: int = 1  # pot game: tokens each player puts in the pot every round
    switch_restart: bool = False  # Switch: a same-suit hand over 21 may restart the round at a showdown
    episode: str = "game"  # "game" (until one player is left) or "round" (one deal)
    reward_scheme: str = "win"  # game episodes: "win" (+1 / -1/(n-1)), "placement" or "tokens"
    max_turns: int | None = 100  # turns per round without a knock before a forced showdown
    max_rounds: int | None = None  # rounds per game; then the most lives / points / tokens win
    first_dealer: int | None = None  # seat of the first dealer; None draws it from the seed
    variant: str = "scat"  # the preset the options started from (envs.thirtyone.variants)


OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in fields(ThirtyOneOptions))
# Options the classic observation (1130 floats, OBSERVATION_VERSION 1) was made for: a game that sets
# any other option to a non-default value uses the table layout, where those options are encoded.
CLASSIC_ONLY = {"straight_flush": None, "ranking": "thirty_one", "exchange": "stock", "max_rounds": None}


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def resolve(options: dict[str, Any]) -> dict[str, Any]:
    """``variant`` applied: the preset's options, then the ones given (unknown names are errors)."""
    for key in options:
        if key not in OPTION_NAMES:
            raise ValueError(f"unknown Thirty-One option {key!r}; valid options: {', '.join(OPTION_NAMES)}")
    name = options.get("variant", "scat")
    return {**preset(name), **options, "variant": name}


def validate_options(**options: Any) -> ThirtyOneOptions:
    """Keyword options -> a validated :class:`ThirtyOneOptions`. Raises ValueError on a bad one."""
    o = ThirtyOneOptions(**resolve(options))
    n = o.num_players
    if not _is_int(n) or not 2 <= n <= MAX_PLAYERS:
        raise ValueError(f"num_players must be an int from 2 to {MAX_PLAYERS}, got {n!r}")
    if not _is_int(o.lives) or not 1 <= o.lives <= 99:
        raise ValueError(f"lives must be an int from 1 to 99, got {o.lives!r}")
    for key in ("free_ride", "throw_down", "switch_restart"):
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
    if not _is_int(o.ante) or not 1 <= o.ante <= o.lives:
        raise ValueError(f"ante must be an int from 1 to lives={o.lives}, got {o.ante!r}")
    for key in ("max_turns", "max_rounds"):
        value = getattr(o, key)
        if value is not None and (not _is_int(value) or value < 1):
            raise ValueError(f"{key} must be None or an int of at least 1, got {value!r}")
    d = o.first_dealer
    if d is not None and (not _is_int(d) or not 0 <= d < n):
        raise ValueError(f"first_dealer must be None or a seat from 0 to {n - 1}, got {d!r}")
    _check_combinations(o)
    return o


def _check_combinations(o: ThirtyOneOptions) -> None:
    """Options that do not fit together."""
    if o.ranking == "brag":
        for key in ("three_of_a_kind", "three_aces", "straight_flush", "min_knock_score"):
            if getattr(o, key) is not None:
                raise ValueError(f"{key} is a rule of the 31 count; ranking='brag' ranks hands by three-card brag "
                                 f"(leave {key}=None)")
    if o.scoring == "pot" and o.free_ride:
        raise ValueError("free_ride belongs to the lives game; scoring='pot' needs free_ride=False "
                         "(or use variant='banking')")
    if o.reward_scheme == "tokens" and o.scoring == "points":
        raise ValueError("reward_scheme='tokens' needs a token game: scoring='lives' (each lost life is a token "
                         "into the pot) or 'pot'; the points game has no tokens")
    if o.switch_restart and o.exchange != "switch":
        raise ValueError(f"switch_restart is a rule of Switch: it needs exchange='switch', got {o.exchange!r}")
    need = 3 * o.num_players + EXTRA_DEALT[o.exchange]
    if need > o.deck:
        raise ValueError(f"{o.num_players} players with exchange={o.exchange!r} need {need} cards, more than the "
                         f"{o.deck}-card deck; use fewer players or deck=52")
