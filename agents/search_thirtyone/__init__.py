"""A search agent for Thirty-One: determinized rollouts over the rules core, the rule agent as rollout policy.

Spec strings (``agents.make(spec, game="thirtyone", seed=...)``)::

    search                          the default setting (48 worlds per move)
    search:preset=fast              16 worlds per move, about 3x faster
    search:worlds=64,model=uniform  any option of :class:`SearchOptions`, comma separated
    search:variant=cut_throat       the game's options the observation does not show (see below)

Each decision (with more than one legal action) is made as follows:

1. **What the seat knows** is read from its observation alone (``envs.thirtyone.worlds.knowledge``):
   own hand, the discard pile by who discarded each card, the cards others took from the pile and
   still hold, the stock size, lives, dealer, knocker, turn and phase. Nothing else is used.
2. **Worlds**: ``worlds`` times, the cards it cannot see (the other hands, the stock and its order, the
   pile under the top card) are dealt at random consistently with that (``sample_world``; with the
   ``draws`` hand model an opponent that has drawn k cards this round keeps the best of 3 + k).
3. **Rollouts**: in every world, every legal action is played, then every seat (this one included)
   plays the rule agent's heuristics (``rollout.rule_move``) to the end of the round. The same world and
   the same stock order serve every action (common random numbers), so the actions are compared on
   the same cards.
4. **Leaf value**: the end of the round is scored by the chance to win the game from the lives left
   (``rollout.win_chance``); a finished game by its result; the points game by the points lead gained;
   round episodes by the round's reward.
5. **Choice**: the action with the best mean value, unless it beats the rule agent's own choice by
   less than ``z`` standard errors of the paired difference (then the rule agent's choice: a noisy
   estimate should not overturn the heuristics).

The observation does not show every option of the game (the lives option, the free ride, the knocker
penalty, ...): the agent assumes those of ``variant`` (default ``scat``) and any option given in the
spec; the player count, deck and the options the observation does encode are read from it. Where the
world sampler does not cover a game (the table games: Banking, Switch, Stop the Bus, Schwimmen) and
for the throw-down choice (made before looking) the agent plays the rule agent's move; ``fallbacks``
counts those decisions. The agent keeps no state between decisions (``shareable``): an action is a
function of the seed and the observation.
"""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np
import yaml

from agents.base import Agent, Observation
from agents.rule_thirtyone import RuleThirtyOneAgent
from agents.search_thirtyone.rollout import play_round, rule_move, win_chance
from envs.thirtyone import worlds
from envs.thirtyone.observation import decode
from envs.thirtyone.options import OPTION_NAMES
from envs.thirtyone.phases import OVER
from envs.thirtyone.rules import ThirtyOneGame, ThirtyOneState

PRESETS = {"default": {}, "fast": {"worlds": 16}}


@dataclass(frozen=True)
class SearchOptions:
    """The search's knobs (spec keys)."""

    worlds: int = 48  # sampled worlds per decision; every legal action is rolled out in each
    model: str = "draws"  # hand model of the world sampler: "uniform" or "draws" (envs.thirtyone.worlds)
    max_draws: int = 4  # "draws": at most this many extra cards seen per opponent
    z: float = 0.5  # leave the rule agent's choice only when another is better by z standard errors

    def check(self) -> SearchOptions:
        if not isinstance(self.worlds, int) or isinstance(self.worlds, bool) or self.worlds < 1:
            raise ValueError(f"search option worlds must be an int of at least 1, got {self.worlds!r}")
        if self.model not in worlds.MODELS:
            raise ValueError(f"search option model must be one of {list(worlds.MODELS)}, got {self.model!r}")
        if not isinstance(self.max_draws, int) or isinstance(self.max_draws, bool) or self.max_draws < 0:
            raise ValueError(f"search option max_draws must be an int of at least 0, got {self.max_draws!r}")
        if not isinstance(self.z, int | float) or isinstance(self.z, bool) or self.z < 0:
            raise ValueError(f"search option z must be a number of at least 0, got {self.z!r}")
        return self


SEARCH_KEYS = tuple(f.name for f in fields(SearchOptions))


def parse_spec(spec: str) -> tuple[SearchOptions, dict[str, Any]]:
    """``"search:worlds=8,variant=cut_throat"`` -> (search options, game options). ValueError naming a bad key."""
    name, _, rest = spec.partition(":")
    if name != "search":
        raise ValueError(f"not a search agent spec: {spec!r} (expected 'search' or 'search:key=value,...')")
    given: dict[str, Any] = {}
    for item in filter(None, (x.strip() for x in rest.split(","))):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep:
            raise ValueError(f"search agent spec {spec!r}: expected key=value, got {item!r}")
        if key in given:
            raise ValueError(f"search agent spec {spec!r}: {key!r} given twice")
        given[key] = yaml.safe_load(value)
    preset = given.pop("preset", "default")
    if preset not in PRESETS:
        raise ValueError(f"search option preset must be one of {list(PRESETS)}, got {preset!r}")
    search = {**PRESETS[preset], **{k: v for k, v in given.items() if k in SEARCH_KEYS}}
    game = {k: v for k, v in given.items() if k not in SEARCH_KEYS}
    unknown = [k for k in game if k not in OPTION_NAMES]
    if unknown:
        raise ValueError(f"search agent spec {spec!r}: unknown key(s) {unknown}; search options: "
                         f"{', '.join(('preset', *SEARCH_KEYS))}; or a Thirty-One option: {', '.join(OPTION_NAMES)}")
    ThirtyOneGame(**game)  # a bad game option fails here, named
    return replace(SearchOptions(), **search).check(), game


class SearchThirtyOneAgent(Agent):
    """Determinized rollouts with the rule agent's heuristics; see the module docstring."""

    game = "thirtyone"
    name = "search"
    shareable = True

    def __init__(self, options: SearchOptions | None = None, game_options: dict[str, Any] | None = None,
                 seed: int | None = None) -> None:
        self.options = (options or SearchOptions()).check()
        self.game_options = dict(game_options or {})
        ThirtyOneGame(**self.game_options)
        self.seed = 0 if seed is None else int(seed)
        self.fallback = RuleThirtyOneAgent(seed=seed)
        self.fallbacks = 0  # decisions left to the rule agent (not covered by the world sampler)
        self.searched = 0  # decisions searched
        self._games: dict[tuple, ThirtyOneGame | None] = {}

    # ----------------------------------------------------------------- the game being played
    def _game(self, info: dict[str, Any]) -> ThirtyOneGame | None:
        """The rules of the observed game: the assumed options, overridden by what the observation shows.
        None where the world sampler does not cover the game (cards on the table, the pot game)."""
        seen = {"num_players": info["players"], "deck": info["deck"],
                "min_knock_score": info["min_knock_score"] or None,
                "three_of_a_kind": info["three_of_a_kind"], "three_aces": info["three_aces"],
                "scoring": "points" if info["points_game"] else "lives",
                "episode": "round" if info["round_episode"] else "game"}
        key = (*seen.values(), info.get("exchange", "stock"), info.get("pot_game", False),
               info.get("straight_flush"), info.get("ranking", "thirty_one"))
        if key not in self._games:
            game = None
            if key[-4:] == ("stock", False, None, "thirty_one"):
                try:  # the observation's options win; the free ride etc. are the assumed ones
                    game = ThirtyOneGame(**{**self.game_options, **seen, "reward_scheme": "win"})
                except ValueError:  # assumed options that do not fit the observed ones
                    game = None
            self._games[key] = game
        return self._games[key]

    # ----------------------------------------------------------------- acting
    def act(self, observation: Observation) -> int:
        mask = np.asarray(observation["action_mask"])
        legal = [int(a) for a in np.flatnonzero(mask)]
        if not legal:
            raise ValueError("SearchThirtyOneAgent.act called with an empty action mask (no legal action)")
        if len(legal) == 1:
            return legal[0]
        info = decode(observation)
        game = self._game(info)
        know = None
        if game is not None and info["phase"] in ("draw", "discard"):
            try:
                know = worlds.knowledge(info, game)
            except ValueError:
                know = None
        if know is None:
            self.fallbacks += 1
            return self.fallback.act(observation)
        self.searched += 1
        return self.search(know, game, legal, self._rng(observation))

    def _rng(self, observation: Observation) -> random.Random:
        """The decision's random stream: a function of the seed and the observation."""
        h = hashlib.blake2b(np.asarray(observation["observation"]).tobytes(), digest_size=8,
                            key=self.seed.to_bytes(8, "little", signed=True))
        return random.Random(int.from_bytes(h.digest(), "little"))

    def search(self, know: worlds.Knowledge, game: ThirtyOneGame, legal: list[int], rng: random.Random) -> int:
        """The action to play (see the module docstring); ``legal`` are the legal actions."""
        o = self.options
        values = np.zeros((o.worlds, len(legal)))
        default = -1
        for w in range(o.worlds):
            world = worlds.sample_world(know, game, rng, o.model, o.max_draws)
            if default < 0:
                default = rule_move(world)  # reads only what seat 0 sees: the same in every world
            for i, a in enumerate(legal):
                s = worlds.fork(world)
                s.apply_action(a)
                if s.pub_version == 0:
                    play_round(s)
                values[w, i] = leaf_value(s)
        means = values.mean(axis=0)
        best = int(np.argmax(means))
        if default not in legal or legal[best] == default:
            return legal[best]
        d = values[:, best] - values[:, legal.index(default)]
        spread = d.std(ddof=1) / math.sqrt(len(d)) if len(d) > 1 else 0.0
        return legal[best] if d.mean() > o.z * spread else default


def leaf_value(s: ThirtyOneState) -> float:
    """The value of a world state at the end of a round for seat 0 (see the module docstring)."""
    o = s.opts
    if o.episode == "round":
        return s.payoff[0]
    if s.phase == OVER:  # the game is finished
        w = 1.0 / (s.n - 1)
        return (s.payoff[0] + w) / (1.0 + w)  # "win" rewards -> the share of the win
    if o.scoring == "points":
        others = [s.scores[r] for r in range(1, s.n)]
        return (s.scores[0] - sum(others) / len(others)) / o.target_score
    return win_chance(s.tokens[0], s.tokens[1:])


def make_search(spec: str = "search", game: str | None = None, seed: int | None = None,
                **options: Any) -> SearchThirtyOneAgent:
    """``agents.make``'s builder for ``search`` / ``search:key=value,...``."""
    if options:
        raise ValueError(f"agent spec {spec!r} takes its options in the spec (search:worlds=16), got {sorted(options)}")
    if game is not None and game != SearchThirtyOneAgent.game:
        raise ValueError(f"the search agent plays Thirty-One only (game={SearchThirtyOneAgent.game!r}), not {game!r}")
    options, game_options = parse_spec(spec)
    return SearchThirtyOneAgent(options, game_options, seed=seed)
