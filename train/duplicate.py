"""The match engine: Skat duplicate deals and Thirty-One seat-rotated blocks, over a process pool.

A *unit* is what card luck is cancelled over:

* Skat: one deal (three hands and the skat, drawn from ``(seed, deal)``), replayed with the same
  dealer in every *seating* of the agents: all 6 permutations of 3 distinct agents; for 2 agents
  every assignment in which both sit (AAB ABA ABB BAA BAB BBA); for 1 agent the agent against
  itself; for more agents than seats every ordered choice of 3 of them.
* Thirty-One: one block of games started from the same env seed (same first deck and dealer, the
  same shuffle stream), one game per seating, with the same seating rule over the table's seats.

A *matchup* is a set of agents that meet in every unit: the whole field (``schedule="table"``)
or every pair (``schedule="pairs"``, optionally only the pairs that involve the ``focus`` agents).

Work is split into chunks of units; each chunk is played by a worker process that builds its
own agents from the spec strings (nothing is pickled but strings and results). Every random
number comes from ``(seed, unit)`` (deals) or ``(seed, chunk, agent, slot, seat)`` (agents), so a
run is reproduced exactly from its seed and chunk size, whatever the number of workers. Inside a
chunk, ``window`` games run in lockstep so that stateless (``shareable``) agents such as neural
policies decide for many games in one ``act_batch`` call.
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
from envs import aec_env
from envs.skat.cards import CARD_NAMES, GRAND, NUM_CARDS, cards_of
from envs.skat.rules import deal_from_deck

GAMES = ("skat", "thirtyone")
SKAT_DEALER = 2  # fixed dealer of every duplicate deal: player_i then sits at position i
SKAT_FIELDS = ("games", "points", "declared", "declarer_won", "suit", "grand", "null", "passed_in",
               "defended", "defence_won")
THIRTYONE_FIELDS = ("games", "points", "wins", "place")


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


def skat_deal(seed: int, unit: int) -> dict[str, Any]:
    """Deal ``unit`` of a run: ``{"hands": [3 hands by position], "skat": ...}`` in card notation."""
    perm = np.random.default_rng([seed, unit, 1]).permutation(NUM_CARDS).tolist()
    hands, skat = deal_from_deck(perm)
    fmt = lambda mask: " ".join(CARD_NAMES[c] for c in cards_of(mask))  # noqa: E731
    return {"hands": [fmt(h) for h in hands], "skat": fmt(skat)}


def unit_seed(seed: int, unit: int) -> int:
    """The env seed of Thirty-One block ``unit``."""
    return int(np.random.default_rng([seed, unit, 2]).integers(2**31))


# ------------------------------------------------------------------------------------ records
@dataclass
class GameRecord:
    """One game: who sat where and what happened (seats are the env's ``player_i``)."""

    unit: int
    matchup: int
    seating: tuple[int, ...]  # agent index by seat
    returns: tuple[float, ...]  # by seat: Skat points in the env's scoring; Thirty-One env reward
    declarer: int = -1  # Skat: declarer's seat, -1 when passed in (or Ramsch)
    game_type: int = -1  # Skat: 0-3 suit (clubs..diamonds), 4 grand, 5 null; -1 none
    won: bool = False  # Skat: the declarer won
    passed_in: bool = False  # Skat: everybody passed
    places: tuple[float, ...] = ()  # Thirty-One: final place by seat (1 = winner; shared places averaged)


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

    def unit_arrays(self) -> np.ndarray:
        """Totals per ``(unit, matchup, agent, field)``; fields: SKAT_FIELDS / THIRTYONE_FIELDS."""
        fields = SKAT_FIELDS if self.config.game == "skat" else THIRTYONE_FIELDS
        out = np.zeros((self.config.units, len(self.matchups), len(self.labels), len(fields)))
        for r in self.records:
            cell = out[r.unit, r.matchup]
            for seat, a in enumerate(r.seating):
                row = cell[a]
                row[0] += 1
                row[1] += r.returns[seat]
                if self.config.game == "thirtyone":
                    row[2] += r.places[seat] == 1.0
                    row[3] += r.places[seat]
                    continue
                row[7] += r.passed_in
                if r.declarer == seat:
                    row[2] += 1
                    row[3] += r.won
                    row[4 if r.game_type < GRAND else 5 if r.game_type == GRAND else 6] += 1
                elif r.declarer >= 0:
                    row[8] += 1
                    row[9] += not r.won
        return out


# ------------------------------------------------------------------------------------ playing
def num_seats(game: str, env_options: dict[str, Any]) -> int:
    return 3 if game == "skat" else int(env_options.get("num_players", 4))


def make_env(game: str, env_options: dict[str, Any]) -> Any:
    opts = dict(env_options)
    if game == "skat":
        opts["dealer"] = SKAT_DEALER
    elif opts.get("episode", "game") == "game":
        opts["reward_scheme"] = "placement"  # final places from the rewards; agents do not see the scheme
    return aec_env(game, **opts)


def _record(env: Any, game: str, unit: int, matchup: int, seating: tuple[int, ...]) -> GameRecord:
    if game == "skat":
        st = env.state
        seat_of = [env.possible_agents.index(env.agent_at(p)) for p in range(3)]
        returns = [0.0] * 3
        for pos in range(3):
            returns[seat_of[pos]] = float(st.scores[pos])
        declarer = seat_of[st.declarer] if st.declarer >= 0 else -1
        game_type = st.contract.game if st.contract is not None else -1
        won = bool(st.outcome.won) if st.outcome is not None and declarer >= 0 else False
        return GameRecord(unit, matchup, seating, tuple(returns), declarer, game_type, won, bool(st.passed_in))
    r = list(env.state.payoff)
    places = tuple(1 + sum(y > x for y in r) + (r.count(x) - 1) / 2 for x in r)
    return GameRecord(unit, matchup, seating, tuple(r), places=places)


def _agent_seed(seed: int, *keys: int) -> int:
    return int(np.random.SeedSequence([seed, *[k + 1 for k in keys]]).generate_state(1)[0])


def play_chunk(cfg: MatchConfig, chunk: int, start: int, stop: int) -> list[GameRecord]:
    """Play units ``start..stop-1`` (every matchup, every seating) with freshly built agents."""
    seats = num_seats(cfg.game, cfg.env_options)
    games = [(u, m, tuple(mu[i] for i in s)) for u in range(start, stop)
             for m, mu in enumerate(matchups(len(cfg.specs), cfg.schedule, cfg.focus))
             for s in seatings(len(mu), seats)]
    shared: dict[int, Any] = {}
    private: dict[tuple[int, int, int], Any] = {}

    def actor(slot: int, seat: int, a: int) -> tuple[Any, bool]:
        if a in shared:
            return shared[a], False
        key = (slot, seat, a)
        if key not in private:
            made = make_agent(cfg.specs[a], cfg.game, _agent_seed(cfg.seed, chunk, a, slot, seat), cfg.greedy)
            if getattr(made, "shareable", False):
                shared[a] = made
                return made, False
            private[key] = made
        return private[key], True

    envs = [make_env(cfg.game, cfg.env_options) for _ in range(min(cfg.window, len(games)))]
    seat_index = {agent: i for i, agent in enumerate(envs[0].possible_agents)} if envs else {}
    records: list[GameRecord | None] = [None] * len(games)
    current: list[int] = [-1] * len(envs)
    actors: list[list[Any]] = [[] for _ in envs]
    pending = iter(range(len(games)))

    def begin(slot: int) -> bool:
        g = next(pending, None)
        if g is None:
            return False
        unit, _, seating = games[g]
        if cfg.game == "skat":
            envs[slot].reset(options={"deal": skat_deal(cfg.seed, unit), "dealer": SKAT_DEALER})
        else:
            envs[slot].reset(seed=unit_seed(cfg.seed, unit))
        current[slot] = g
        actors[slot] = []
        for seat, a in enumerate(seating):
            agent, own = actor(slot, seat, a)
            if own and hasattr(agent, "reset"):
                agent.reset()
            actors[slot].append(agent)
        return True

    def advance(slot: int) -> tuple[Any, int, dict[str, np.ndarray]] | None:
        env = envs[slot]
        while True:
            while env.agents:
                name = env.agent_selection
                if env.terminations[name] or env.truncations[name]:
                    env.step(None)
                    continue
                seat = seat_index[name]
                return actors[slot][seat], seat, env.observe(name)
            unit, m, seating = games[current[slot]]
            records[current[slot]] = _record(env, cfg.game, unit, m, seating)
            if not begin(slot):
                return None

    active = [slot for slot in range(len(envs)) if begin(slot)]
    while active:
        groups: dict[int, tuple[Any, list[tuple[int, int, dict[str, np.ndarray]]]]] = {}
        for slot in active:
            decision = advance(slot)
            if decision is not None:
                agent, seat, obs = decision
                groups.setdefault(id(agent), (agent, []))[1].append((slot, seat, obs))
        active = []
        for agent, requests in groups.values():
            observations = [obs for _, _, obs in requests]
            if hasattr(agent, "act_batch"):
                chosen = agent.act_batch(observations)
            else:
                chosen = [agent.act(obs) for obs in observations]
            for (slot, seat, _), action in zip(requests, chosen, strict=True):
                try:
                    envs[slot].step(int(action))
                except ValueError as e:
                    spec = cfg.specs[games[current[slot]][2][seat]]
                    raise ValueError(f"agent {spec!r} in seat {seat} chose an illegal action: {e}") from e
                active.append(slot)
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
    if cfg.game not in GAMES:
        raise ValueError(f"unknown game {cfg.game!r}; expected one of {GAMES}")
    if not cfg.specs:
        raise ValueError("no agents to evaluate")
    make_env(cfg.game, cfg.env_options)  # unknown or bad env options fail here
    for spec in cfg.specs:
        make_agent(spec, cfg.game, 0, cfg.greedy)


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
    with bar:
        if workers <= 1 or len(tasks) == 1:
            for task in tasks:
                i, recs = _chunk_job(task)
                by_chunk[i] = recs
                bar.update(len(recs))
        else:
            # spawn, not fork: a parent that has used torch threads must not be forked
            ctx = mp.get_context("spawn")
            with ProcessPoolExecutor(min(workers, len(tasks)), mp_context=ctx, initializer=_worker_init) as pool:
                futures = [pool.submit(_chunk_job, task) for task in tasks]
                try:
                    for future in as_completed(futures):
                        i, recs = future.result()
                        by_chunk[i] = recs
                        bar.update(len(recs))
                except BaseException:
                    for f in futures:
                        f.cancel()
                    raise
    records = [r for i in sorted(by_chunk) for r in by_chunk[i]]
    mus = matchups(len(cfg.specs), cfg.schedule, cfg.focus)
    return MatchResult(cfg, labels_for(cfg.specs), mus, num_seats(cfg.game, cfg.env_options), records)
