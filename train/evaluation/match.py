"""The match engine: duplicate units (Skat deals, Thirty-One blocks) in every seating, over a process pool.

A *unit* is what card luck is cancelled over; the game's description says what it is
(``envs.games.GameDescription.unit_reset``):

* Skat: one deal (three hands and the skat, drawn from ``(seed, deal)``), replayed with the same
  dealer in every *seating* of the agents: all 6 permutations of 3 distinct agents; for 2 agents
  every assignment in which both sit (AAB ABA ABB BAA BAB BBA); for 1 agent the agent against
  itself; for more agents than seats every ordered choice of 3 of them.
* Thirty-One (and any other game): one block of games started from the same env seed (same first
  deck and dealer, the same shuffle stream), one game per seating, with the same seating rule.

A *matchup* is a set of agents that meet in every unit: the whole field (``schedule="table"``)
or every pair (``schedule="pairs"``, optionally only the pairs that involve the ``focus`` agents).

Work is split into chunks of units; each chunk is played by a worker process that builds its
own agents from the spec strings (nothing is pickled but strings and results). Every random
number comes from ``(seed, unit)`` (deals) or ``(seed, chunk, agent, slot, seat)`` (agents), so a
run is reproduced exactly from its seed and chunk size, whatever the number of workers. Inside a
chunk, ``window`` games run in lockstep in the arena's play loop, so that stateless (``shareable``)
agents such as neural policies decide for many games in one ``act_batch`` call.
"""

from __future__ import annotations

import itertools
import multiprocessing as mp
import os
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import agents
from arena import AgentCache, Deal, Finished, check_shape, env_shape, play
from envs.games import GameDescription, describe
from train.interrupt import children_ignore_signals, signals_stop_now, stop_workers


# ------------------------------------------------------------------------------------ agents
def make_agent(spec: str, game: str, seed: int | None = None, greedy: bool = False) -> Any:
    """An agent from any spec ``agents.make`` takes (user classes ``module:Class`` included)."""
    return agents.make(spec, game=game, seed=seed, greedy=greedy)


def labels_for(specs: Sequence[str]) -> list[str]:
    """Display names: the spec, with ``#2``, ``#3`` ... for repeats."""
    seen: dict[str, int] = {}
    out = []
    for s in specs:
        seen[s] = seen.get(s, 0) + 1
        out.append(s if seen[s] == 1 else f"{s}#{seen[s]}")
    return out


# ------------------------------------------------------------------------------------ schedule
def seatings(num_agents: int, num_seats: int) -> list[tuple[int, ...]]:
    """Every seating (agent index by seat) in which each agent sits at least once, or -- with more
    agents than seats -- every ordered choice of distinct agents."""
    if num_agents < 1:
        raise ValueError("a match needs at least one agent")
    if num_agents >= num_seats:
        return list(itertools.permutations(range(num_agents), num_seats))
    return [p for p in itertools.product(range(num_agents), repeat=num_seats) if len(set(p)) == num_agents]


def matchups(num_agents: int, schedule: str = "table", focus: Sequence[int] | None = None) -> list[tuple[int, ...]]:
    """The agent sets that meet: the whole field, or the pairs (those with a focus agent)."""
    if schedule == "table":
        return [tuple(range(num_agents))]
    if schedule != "pairs":
        raise ValueError(f"unknown schedule {schedule!r}: expected 'table' or 'pairs'")
    keep = set(range(num_agents) if focus is None else focus)
    pairs = [p for p in itertools.combinations(range(num_agents), 2) if keep & set(p)]
    if not pairs:
        raise ValueError("the pairs schedule needs at least two agents")
    return pairs


# ------------------------------------------------------------------------------------ records
@dataclass
class GameRecord:
    """One game: who sat where and what happened (seats are the env's ``player_i``)."""

    unit: int
    matchup: int
    seating: tuple[int, ...]  # agent index by seat
    returns: tuple[float, ...]  # by seat: Skat points in the env's scoring; Thirty-One placement reward
    details: dict[str, Any] = field(default_factory=dict)  # the game's record_columns (Skat: declarer, ...)


@dataclass
class MatchConfig:
    game: str
    specs: list[str]
    units: int
    seed: int = 0
    env_options: dict[str, Any] = field(default_factory=dict)
    schedule: str = "table"
    focus: list[int] | None = None
    greedy: bool = False
    chunk_size: int = 16
    window: int = 32


@dataclass
class MatchResult:
    config: MatchConfig
    labels: list[str]
    matchups: list[tuple[int, ...]]
    seats: int
    records: list[GameRecord]

    @property
    def game(self) -> GameDescription:
        return describe(self.config.game)

    def units_played(self) -> list[int]:
        """The units that have games: all of them, or those a stopped match finished (:class:`MatchInterrupted`)."""
        return sorted({r.unit for r in self.records})

    def unit_arrays(self) -> np.ndarray:
        """Totals per ``(unit, matchup, agent, field)`` over :meth:`units_played`, in that order; the fields are
        the game description's ``fields``."""
        game = self.game
        row = {unit: i for i, unit in enumerate(self.units_played())}
        out = np.zeros((len(row), len(self.matchups), len(self.labels), len(game.fields)))
        for r in self.records:
            cell = out[row[r.unit], r.matchup]
            for seat, a in enumerate(r.seating):
                cell[a] += game.tally(r.returns, r.details, seat)
        return out


class MatchInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM stopped :func:`run_match`. ``result`` holds the units of the chunks that were
    finished, each in every seating, so its numbers are those of a shorter run (with the same seed);
    ``reason`` names the signal."""

    def __init__(self, result: MatchResult, reason: str) -> None:
        super().__init__(reason)
        self.result, self.reason = result, reason


# ------------------------------------------------------------------------------------ playing
def num_seats(game: str, env_options: dict[str, Any]) -> int:
    return describe(game).num_seats(env_options)


def make_env(game: str, env_options: dict[str, Any]) -> Any:
    """The env of a match: the game's match options applied (a fixed dealer, rewards that give places)."""
    description = describe(game)
    return description.raw_env(**description.match_options(env_options))


def _agent_seed(seed: int, *keys: int) -> int:
    return int(np.random.SeedSequence([seed, *[k + 1 for k in keys]]).generate_state(1)[0])


def play_chunk(cfg: MatchConfig, chunk: int, start: int, stop: int) -> list[GameRecord]:
    """Play units ``start..stop-1`` (every matchup, every seating) with freshly built agents."""
    game = describe(cfg.game)
    seats = num_seats(cfg.game, cfg.env_options)
    games = [(u, m, tuple(mu[i] for i in s)) for u in range(start, stop)
             for m, mu in enumerate(matchups(len(cfg.specs), cfg.schedule, cfg.focus))
             for s in seatings(len(mu), seats)]
    envs = [make_env(cfg.game, cfg.env_options) for _ in range(min(cfg.window, len(games)))]
    shape = env_shape(envs[0]) if envs else (0, 0)

    def build(a: int, table: int, seat: int) -> Any:
        agent = make_agent(cfg.specs[a], cfg.game, _agent_seed(cfg.seed, chunk, a, table, seat), cfg.greedy)
        check_shape(agent, shape, cfg.specs[a])  # a checkpoint of another table kind fails here, named
        return agent

    cache = AgentCache(build)
    records: list[GameRecord | None] = [None] * len(games)
    pending = iter(range(len(games)))

    def begin(table: int) -> Deal | None:
        g = next(pending, None)
        if g is None:
            return None
        unit, _, seating = games[g]
        seed, options = game.unit_reset(cfg.seed, unit)
        actors = [cache.get(a, table, seat) for seat, a in enumerate(seating)]
        return Deal(actors, [cfg.specs[a] for a in seating], seed=seed, options=options, info=g)

    def finished(done: Finished) -> None:
        unit, m, seating = games[done.deal.info]
        records[done.deal.info] = GameRecord(unit, m, seating, *game.record(done.env, done.returns))

    # Mask-only players act batched here, as they always have in matches: their random streams
    # (and so every published number) stay reproducible.
    play(envs, begin, finished, inline_mask_only=False)
    return [r for r in records if r is not None]


def _worker_init() -> None:
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # one torch thread per worker: the pool is the parallelism
    os.environ.setdefault("MKL_NUM_THREADS", "1")



def _chunk_job(args: tuple[MatchConfig, int, int, int]) -> tuple[int, list[GameRecord]]:
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)
    return args[1], play_chunk(*args)


def games_per_unit(cfg: MatchConfig) -> int:
    seats = num_seats(cfg.game, cfg.env_options)
    return sum(len(seatings(len(mu), seats)) for mu in matchups(len(cfg.specs), cfg.schedule, cfg.focus))


def check_agents(cfg: MatchConfig) -> None:
    """Build each agent once here, so a bad spec fails before any worker starts."""
    describe(cfg.game)  # an unknown game fails here, naming the known ones
    if not cfg.specs:
        raise ValueError("no agents to evaluate")
    shape = env_shape(make_env(cfg.game, cfg.env_options))  # unknown or bad env options fail here
    for spec in cfg.specs:
        check_shape(make_agent(spec, cfg.game, 0, cfg.greedy), shape, spec)


def run_match(cfg: MatchConfig, workers: int = 2, progress: bool = True) -> MatchResult:
    """Play ``cfg.units`` units of every matchup; ``workers`` processes (1: in this process)."""
    check_agents(cfg)
    if cfg.units < 1:
        raise ValueError(f"the number of deals must be positive, got {cfg.units}")
    cut = list(range(0, cfg.units, cfg.chunk_size))
    tasks = [(cfg, i, start, min(start + cfg.chunk_size, cfg.units)) for i, start in enumerate(cut)]
    per_unit = games_per_unit(cfg)
    from tqdm import tqdm

    desc = f"{cfg.game} {len(cfg.specs)} agents"
    bar = tqdm(total=cfg.units * per_unit, unit="game", desc=desc, disable=not progress, file=sys.stderr)
    by_chunk: dict[int, list[GameRecord]] = {}
    try:
        with bar, signals_stop_now():
            _play_tasks(tasks, workers, by_chunk, bar)
    except KeyboardInterrupt as stop:  # a chunk in progress is dropped; the finished ones are a shorter run
        reason = str(stop) or "interrupt"
        raise MatchInterrupted(_result(cfg, by_chunk), reason) from None
    return _result(cfg, by_chunk)


def _result(cfg: MatchConfig, by_chunk: dict[int, list[GameRecord]]) -> MatchResult:
    records = [r for i in sorted(by_chunk) for r in by_chunk[i]]
    mus = matchups(len(cfg.specs), cfg.schedule, cfg.focus)
    return MatchResult(cfg, labels_for(cfg.specs), mus, num_seats(cfg.game, cfg.env_options), records)


def _play_tasks(tasks: list[tuple[MatchConfig, int, int, int]], workers: int,
                by_chunk: dict[int, list[GameRecord]], bar: Any) -> None:
    """Play ``tasks`` into ``by_chunk`` (chunk index -> records): in this process, or on ``workers`` processes."""
    if workers <= 1 or len(tasks) == 1:
        for task in tasks:
            i, recs = _chunk_job(task)
            by_chunk[i] = recs
            bar.update(len(recs))
    else:
        # spawn, not fork: a parent that has used torch threads must not be forked
        ctx = mp.get_context("spawn")
        with ProcessPoolExecutor(min(workers, len(tasks)), mp_context=ctx, initializer=_worker_init) as pool:
            with children_ignore_signals():  # the pool's processes start here; Ctrl-C is the parent's
                futures = [pool.submit(_chunk_job, task) for task in tasks]
            try:
                for future in as_completed(futures):
                    i, recs = future.result()
                    by_chunk[i] = recs
                    bar.update(len(recs))
            except BaseException:
                stop_workers(pool, futures)
                raise
