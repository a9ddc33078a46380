"""Thirty-One as generic code sees it (``envs.games.describe("thirtyone")``): seats, decision kinds, evaluation.

Evaluation reports, besides wins and places, the **tokens won per game** of the token games: the lives
game counted in pennies (each life lost is a token into the kitty, the winner takes it: Scat, Cut
Throat, Switch, Stop the Bus, Schwimmen) and the pot game (Banking). The points game has no tokens:
its column shows ``-``. The tokens come from the rules state (``settle.tokens_won``), so they are the
same whatever reward scheme the match plays with.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from envs.games import Column, GameDescription, Metric, fmt, places


class ThirtyOneDescription(GameDescription):
    name = "thirtyone"
    title = "Thirty-One"
    env_module = "envs.thirtyone_v0"
    rule_agent = "agents.rule_thirtyone:RuleThirtyOneAgent"
    agent_specs = {"search": "agents.search_thirtyone:make_search"}  # search, search:worlds=16

    unit = "block"
    unit_phrase = "seat-rotated blocks"
    games_per_work_item = 12
    fields = ("games", "points", "wins", "place", "tokens")
    metrics = (Metric("win_rate", "wins", "games"), Metric("avg_place", "place", "games"),
               Metric("tokens_per_game", "tokens", "games"))
    headline = "win_rate"
    headline_phrase = "win rate"
    headline_percent = True
    default_target_ci = 2.0  # percentage points of win rate
    rank_by = ("place", False)
    record_columns = ("places", "tokens")
    ablation_groups = {"throw-down": ("throw_down", "look"), "turn": ("draw", "take", "knock"),
                       "discard": ("discard",)}
    episode_stats_keys = ("rounds", "knock_rate", "blitz_rate", "deal_blitz_rate", "void_rate", "reshuffle_rate",
                          "capped_rate", "knocker_loss_rate", "turns_per_round", "decisions", "redeals",
                          "throw_down_rate", "exchanges_per_round", "restart_rate")

    def decode(self, vector: np.ndarray) -> Any:
        from envs.thirtyone.observation import decode

        return decode(vector)

    def vector_env(self, num_envs: int, device: str = "cpu", seed: int | None = None, **options: Any) -> Any:
        """The batched engine (``envs.thirtyone.vector``) for the options it supports, else the AEC
        loop (``envs.vector.AECVectorEnv``)."""
        from envs.thirtyone.options import validate_options
        from envs.thirtyone.vector.env import check_supported, vector_env

        engine = {k: options.pop(k) for k in ("backend", "validate") if k in options}
        try:
            check_supported(validate_options(**options))
        except ValueError as e:
            if "does not support" not in str(e):
                raise
            return super().vector_env(num_envs, device=device, seed=seed, **options)
        return vector_env(num_envs, device=device, seed=seed, **engine, **options)

    def rules_game(self, **options: Any) -> Any:
        from envs.thirtyone.rules import ThirtyOneGame

        return ThirtyOneGame(**options)

    match_overrides = ("reward_scheme",)

    def match_options(self, options: dict[str, Any]) -> dict[str, Any]:
        opts = {k: v for k, v in options.items() if k != "reward_scheme"}
        if opts.get("episode", "game") == "game":
            opts["reward_scheme"] = "placement"  # final places from the rewards; agents do not see the scheme
        return opts

    def record(self, env: Any, returns: Sequence[float]) -> tuple[tuple[float, ...], dict[str, Any]]:
        from envs.thirtyone.settle import tokens_won

        payoff = tuple(env.state.payoff)
        tokens = tokens_won(env.state)
        return payoff, {"places": places(payoff), "tokens": None if tokens is None else tuple(tokens)}

    def tally(self, returns: Sequence[float], details: dict[str, Any], seat: int) -> tuple[float, ...]:
        place = details["places"][seat]
        tokens = details.get("tokens")
        return 1.0, returns[seat], float(place == 1.0), place, math.nan if tokens is None else tokens[seat]

    def columns(self) -> list[Column]:
        return [Column("win rate [95% CI]", 24, lambda r: fmt(r, "win_rate", 1, True)),
                Column("average place", 22, lambda r: fmt(r, "avg_place", 2)),
                Column("tokens/game [95% CI]", 24, lambda r: fmt(r, "tokens_per_game", 2))]

    def plot_panels(self) -> list[tuple[str, str, float]]:
        return [("win_rate", "win rate (%)", 100.0), ("avg_place", "average place (1 = best)", 1.0)]
