"""One description per game: what generic code (the arena, training, evaluation, benchmarks) may ask.

Generic layers never branch on a game's name; they ask its :class:`GameDescription` instead::

    from envs.games import describe
    game = describe("skat")
    env = game.raw_env(scoring="classic")          # the PettingZoo AEC env, unwrapped
    game.num_seats({})                             # 3
    game.action_kinds()                            # ("bid", ..., "play"): first word of each action name
    game.decode(observation["observation"])        # readable fields of one seat's observation
    game.rule_agent                                # "agents.rule_skat:RuleSkatAgent"

Adding a game means writing its rules core and env, and one subclass of :class:`GameDescription`
registered in :data:`REGISTRY`. The base class already describes any PettingZoo AEC env with
action masks (``describe("pettingzoo.classic.leduc_holdem_v4")``): seats from ``possible_agents``,
evaluation by seat-rotated blocks of games scored by the env's rewards.

The evaluation part of a description (units, per-seat tallies, metrics, table columns) is what
``train.evaluation`` turns into duplicate matches, confidence intervals, tables, plots and the league.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Metric:
    """A ratio of per-unit sums ``numerator / denominator * scale``, reported with a 95% interval."""

    name: str
    numerator: str
    denominator: str
    scale: float = 1.0


@dataclass(frozen=True)
class Column:
    """One column of the evaluation's agent table: a header and how a summary row fills it."""

    header: str
    width: int
    cell: Callable[[dict[str, Any]], str]


class GameDescription:
    """A game as generic code sees it. Subclasses set the class attributes and override what differs."""

    name: str = ""
    title: str = ""
    env_module: str = ""  # the PettingZoo module: env(**options), raw_env(**options)
    rule_agent: str | None = None  # "module:Class" of the rule-based baseline, if the game has one
    openspiel_name: str | None = None  # the same game in OpenSpiel, for side-by-side benchmarks

    # --- evaluation: what a duplicate unit is and how a finished game is tallied ----------------
    unit: str = "block"  # a unit cancels card luck: every seating plays it
    unit_phrase: str = "seat-rotated blocks"
    games_per_work_item: int = 12  # games a worker plays per work item (sets the default chunk size)
    fields: tuple[str, ...] = ("games", "points", "wins", "place")  # per (unit, agent) totals; "games" first
    metrics: tuple[Metric, ...] = (Metric("mean_return", "points", "games"), Metric("win_rate", "wins", "games"),
                                   Metric("avg_place", "place", "games"))
    headline: str = "mean_return"  # the metric sample sizes are planned for and pairs are compared on
    headline_phrase: str = "mean return"
    headline_percent: bool = False  # shown in percent (and --target-ci read in percentage points)
    default_target_ci: float = 0.1
    rank_by: tuple[str, bool] = ("points", True)  # league: the field a unit is ranked by, higher is better?
    record_columns: tuple[str, ...] = ("places",)  # game-specific columns of games.csv
    ablation_groups: dict[str, tuple[str, ...]] = {}  # decision-kind groups handed over one at a time
    episode_stats_keys: tuple[str, ...] = ()  # keys of env.unwrapped.episode_stats(), logged as game/<key>

    # --- the env ---------------------------------------------------------------------------------
    def module(self) -> Any:
        return importlib.import_module(self.env_module)

    def raw_env(self, **options: Any) -> Any:
        """The unwrapped AEC env (no order-enforcing wrapper overhead)."""
        module = self.module()
        make = getattr(module, "raw_env", None) or module.env
        env = make(**options)
        return env if make is getattr(module, "raw_env", None) else env.unwrapped

    def env(self, **options: Any) -> Any:
        """The env with its usual wrappers (what a user of PettingZoo expects)."""
        return self.module().env(**options)

    def num_seats(self, options: dict[str, Any]) -> int:
        return len(self.raw_env(**options).possible_agents)

    def action_names(self, options: dict[str, Any] | None = None) -> tuple[str, ...]:
        """The name of every action index of the table ``options`` describe (``env.unwrapped.action_name``,
        else ``action <i>``); a table kind may have more actions than the default table."""
        key = repr(sorted((options or {}).items()))
        cache = self.__dict__.setdefault("_action_names", {})
        if key not in cache:
            env = self.raw_env(**(options or {}))
            name = getattr(env, "action_name", None)
            n = int(env.action_space(env.possible_agents[0]).n)
            cache[key] = tuple(name(a) if name else f"action {a}" for a in range(n))
        return cache[key]

    def action_kinds(self, options: dict[str, Any] | None = None) -> tuple[str, ...]:
        """Per action index its kind: the first word of its name. Tools name decisions by these words."""
        return tuple(n.split()[0] for n in self.action_names(options))

    def kinds_mask(self, kinds: Sequence[str], options: dict[str, Any] | None = None) -> np.ndarray:
        """Bool per action index: is its kind among ``kinds``? Unknown kinds are a ValueError naming them."""
        kind_of = self.action_kinds(options)
        wanted = set(kinds)
        if wanted - set(kind_of):
            raise ValueError(f"unknown decision kinds {sorted(wanted - set(kind_of))} for {self.name}; "
                             f"known: {sorted(set(kind_of))}")
        return np.array([k in wanted for k in kind_of], dtype=bool)

    def decode(self, vector: np.ndarray) -> Any:
        """Readable fields of one observation vector (games without a decoder return the vector)."""
        return vector

    num_roles: int = 1  # learners that keep one network per role (DMC) ask role_of which one a row uses

    def role_of(self, obs: Any) -> Any:
        """Per row of a batch of observation vectors (a torch tensor), the role it plays (0..num_roles-1)."""
        import torch

        return torch.zeros(obs.shape[0], dtype=torch.long)

    def rules_game(self, **options: Any) -> Any:
        """The rules core's Game object (``envs.core.Game``), for search and benchmarks; None if none."""
        return None

    def vector_env(self, num_envs: int, device: str = "cpu", seed: int | None = None, **options: Any) -> Any:
        """N games behind the batched-engine contract (``envs.vector``): the game's batched engine where
        it has one, else :class:`envs.vector.AECVectorEnv` (a Python loop over AEC envs)."""
        from envs.vector import AECVectorEnv

        return AECVectorEnv(self, num_envs, device=device, seed=seed, **options)

    # --- evaluation ------------------------------------------------------------------------------
    match_overrides: tuple[str, ...] = ()  # env options a match sets itself (see match_options)

    def match_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """Env options for duplicate matches (e.g. a fixed dealer, or rewards that give final places)."""
        return dict(options)

    def unit_reset(self, seed: int, unit: int) -> tuple[int | None, dict[str, Any] | None]:
        """``env.reset(seed=..., options=...)`` arguments of unit ``unit`` of a match seeded ``seed``:
        every seating of the agents replays exactly this deal (or block of games)."""
        return unit_seed(seed, unit), None

    def record(self, env: Any, returns: Sequence[float]) -> tuple[tuple[float, ...], dict[str, Any]]:
        """A finished game: the returns by seat and the game-specific details (``record_columns``).
        ``returns`` are the rewards each seat received, summed by the arena."""
        return tuple(returns), {"places": places(returns)}

    def tally(self, returns: Sequence[float], details: dict[str, Any], seat: int) -> tuple[float, ...]:
        """What one seat adds to the per-unit totals of :attr:`fields` (``games`` first, always 1)."""
        place = details["places"][seat]
        return 1.0, returns[seat], float(place == 1.0), place

    def columns(self) -> list[Column]:
        """The agent table's game-specific columns (after agent and games)."""
        return [Column("mean return [95% CI]", 24, lambda r: fmt(r, "mean_return", 2)),
                Column("win rate [95% CI]", 24, lambda r: fmt(r, "win_rate", 1, True)),
                Column("average place", 22, lambda r: fmt(r, "avg_place", 2))]

    def plot_panels(self) -> list[tuple[str, str, float]]:
        """(metric, axis label, factor) of the two panels of the evaluation plot."""
        return [("mean_return", "mean return", 1.0), ("avg_place", "average place (1 = best)", 1.0)]

    def pair_extras(self, diff: Any, second: Callable[[str, bool], Any]) -> dict[str, Any]:
        """Game-specific columns of a pairwise row: ``diff`` is the headline difference,
        ``second(field, higher_is_better)`` pairs the per-game rates of another field."""
        p = second("place", False)
        return {"diff_avg_place": p.mean.value, "place_lo": p.mean.low, "place_hi": p.mean.high}

    def pair_text(self, row: dict[str, Any]) -> str:
        low, high = row["place_lo"], row["place_hi"]
        interval = "[too few]" if low != low else f"[{low:+.2f}, {high:+.2f}]"
        return f"place {row['diff_avg_place']:+.2f} {interval}"

    def table_note(self, seats: int) -> str:
        """An extra remark under the evaluation's title ("" for none)."""
        return f"; a fair share of wins is 1/{seats} per seat"


def unit_seed(seed: int, unit: int) -> int:
    """The env seed of unit ``unit`` of a match seeded ``seed`` (seat-rotated blocks)."""
    return int(np.random.default_rng([seed, unit, 2]).integers(2**31))


def places(returns: Sequence[float]) -> tuple[float, ...]:
    """Final place by seat from the returns (1 = best; tied seats share the mean of their places)."""
    r = list(returns)
    return tuple(1 + sum(y > x for y in r) + (r.count(x) - 1) / 2 for x in r)


def fmt(row: dict[str, Any], key: str, digits: int = 1, percent: bool = False) -> str:
    """``value [low, high]`` of a summary row's metric (``-`` where undefined)."""
    value, low, high = row[key], row[f"{key}_lo"], row[f"{key}_hi"]
    if value != value:
        return "-"
    f = 100.0 if percent else 1.0
    unit = "%" if percent else ""
    if low != low or high != high:
        return f"{value * f:.{digits}f}{unit} [too few]"
    return f"{value * f:.{digits}f}{unit} [{low * f:.{digits}f}, {high * f:.{digits}f}]"


class PettingZooGame(GameDescription):
    """Any PettingZoo AEC env with action masks, named by its module (``pettingzoo.classic.leduc_holdem_v4``)."""

    def __init__(self, module: str) -> None:
        self.name = self.env_module = module
        self.title = module.rsplit(".", 1)[-1]


# The project's games: name -> "module:Class" of the description.
REGISTRY = {
    "skat": "envs.skat.description:SkatDescription",
    "thirtyone": "envs.thirtyone.description:ThirtyOneDescription",
}
GAMES = tuple(REGISTRY)


@cache
def describe(game: str) -> GameDescription:
    """The description of a registered game, or of an importable PettingZoo env module."""
    if not isinstance(game, str):
        raise ValueError(f"a game is named by a string, got {game!r}")
    if game in REGISTRY:
        module, cls = REGISTRY[game].split(":")
        return getattr(importlib.import_module(module), cls)()
    if "." in game:
        try:
            module = importlib.import_module(game)
        except ImportError as e:
            raise ValueError(f"unknown game {game!r}: not one of {list(GAMES)} and not an importable env module "
                             f"({e})") from None
        if not callable(getattr(module, "env", None)):
            raise ValueError(f"game module {game!r} has no env() function (a PettingZoo AEC env module has one)")
        return PettingZooGame(game)
    raise ValueError(f"unknown game {game!r}; known games: {list(GAMES)} (or a PettingZoo env module such as "
                     "pettingzoo.classic.leduc_holdem_v4)")
