"""The one play loop: many AEC envs in lockstep, each decision batched with the others of its actor.

:func:`play` drives a list of envs ("tables"). Every tick each table advances to its next
decision; the decisions are grouped by who makes them and each group is decided in one call, so a
neural policy decides for all tables in one forward pass. ``start(table)`` says what the next deal
of a table is (a :class:`Deal`: how to reset the env and who sits in each seat) or ``None`` when the
table is done; the loop returns when every table is done.

An actor is any agent (``act_batch(observations)``, else ``act(observation)``) or an *arena actor*
that also wants to know where its decisions happen (the trainer's learner, which records them):

* ``decide(requests)``: decide a list of :class:`Request` (table, seat, observation) at once;
* ``deferred = True``: decide only when no other actor can move any more (the learner: its one
  forward pass then covers every table);
* ``begin(table, seat)``: a deal starts with the actor in that seat;
* ``credit(table, seat, reward)``: the seat received a reward.

Each tick visits the tables in index order and every agent decides for its tables in that order, so
a run's random streams, and so its results, do not depend on which agents happen to be shared
(one instance for many seats) and which are built per seat.

Rewards follow PettingZoo's ``last()`` semantics: what a seat received since its previous action is
read when the seat is next selected (to act, or once more after the deal is over); the loop sums
them per seat and passes each to the seat's actor's ``credit``. Actors that keep per-deal state
(``shareable`` false) get ``reset()`` at the start of each deal they sit in. A player that reads only
the legal actions (``needs_observation = False``) may act at once, without batching
(``inline_mask_only``): the env then builds no observation for it.

An action must be an integer that the env accepts; anything else, and any exception inside an
agent, is an :class:`AgentError` that names the agent and the seat (with the agent's own error as
its cause).
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Observation = dict[str, np.ndarray]


class AgentError(ValueError):
    """An agent failed: it raised, or chose an action the env refused. Names the agent and seat.

    ``details`` holds the agent's own traceback (kept as text, so it survives worker processes)."""

    def __init__(self, message: str, details: str = "") -> None:
        super().__init__(message, details)
        self.message, self.details = message, details

    def __str__(self) -> str:
        return self.message


@dataclass
class Deal:
    """The next deal of a table: how the env is reset and who plays each seat."""

    actors: Sequence[Any]  # one per seat, in the env's ``possible_agents`` order
    labels: Sequence[str]  # who plays each seat, for records and error messages
    seed: int | None = None  # env.reset(seed=..., options=...)
    options: dict[str, Any] | None = None
    info: Any = None  # the caller's own data (unit, seating, ...), handed back in ``finished``


@dataclass
class Request:
    """One decision to make: a seat at a table, and what it observes."""

    table: int
    seat: int
    observation: Observation


@dataclass
class Finished:
    """A deal that has ended."""

    table: int
    env: Any  # the env, still holding the final state
    deal: Deal
    returns: list[float]  # per seat: everything the seat received during the deal
    length: int  # decisions taken, all seats
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Episode:
    """One finished deal of one env, as training and evaluation log it."""

    returns: list[float]  # raw (unscaled) return of every seat
    players: list[str]  # who played each seat: "learner", "random", "rule", "self", "snapshot", a path
    length: int  # decisions taken (all seats)
    stats: dict[str, float] = field(default_factory=dict)  # env.unwrapped.episode_stats(), if offered
    seed: int = -1  # the env seed the deal was reset with: with the seating, it names the deal


def episode_of(done: Finished) -> Episode:
    """The :class:`Episode` of a finished deal (with the env's ``episode_stats()``, if it offers them)."""
    env = done.env.unwrapped
    stats = env.episode_stats() if hasattr(env, "episode_stats") else {}
    seed = done.deal.seed if done.deal.seed is not None else -1
    return Episode(done.returns, list(done.deal.labels), done.length, dict(stats), seed)


def play(envs: Sequence[Any], start: Callable[[int], Deal | None], finished: Callable[[Finished], None] | None = None,
         inline_mask_only: bool = True) -> None:
    """Play deals on every table until ``start(table)`` returns None for each; ``finished`` is called
    with every deal that ends, in the order they end."""
    n = len(envs)
    deals: list[Deal | None] = [None] * n
    seat_of: list[dict[str, int]] = [{} for _ in range(n)]
    returns: list[list[float]] = [[] for _ in range(n)]
    lengths = [0] * n
    credits: list[list[Callable[[int, int, float], None] | None]] = [[] for _ in range(n)]
    mask_of = [getattr(env, "action_mask", None) if inline_mask_only else None for env in envs]

    def begin(t: int) -> bool:
        deal = start(t)
        deals[t] = deal
        if deal is None:
            return False
        env = envs[t]
        env.reset(seed=deal.seed, options=deal.options)
        if len(deal.actors) != len(env.possible_agents):
            raise ValueError(f"a deal needs one actor per seat ({len(env.possible_agents)}), got {len(deal.actors)}")
        seat_of[t] = {agent: seat for seat, agent in enumerate(env.possible_agents)}
        returns[t] = [0.0] * len(deal.actors)
        lengths[t] = 0
        credits[t] = [getattr(actor, "credit", None) for actor in deal.actors]
        for seat, actor in enumerate(deal.actors):
            if hasattr(actor, "begin"):
                actor.begin(t, seat)
            elif not getattr(actor, "shareable", False) and hasattr(actor, "reset"):
                actor.reset()
        return True

    def advance(t: int) -> tuple[Any, Request] | None:
        """Move table t to its next decision: (actor, request); None when it has no deal left."""
        env = envs[t]
        mask_only = mask_of[t]
        while True:
            deal = deals[t]
            seats, got, credit = seat_of[t], returns[t], credits[t]
            while env.agents:
                agent = env.agent_selection
                _, reward, terminated, truncated, _ = env.last(observe=False)
                seat = seats[agent]
                if reward:
                    got[seat] += reward
                    if credit[seat] is not None:
                        credit[seat](t, seat, reward)
                if terminated or truncated:
                    env.step(None)
                    continue
                actor = deal.actors[seat]
                lengths[t] += 1
                if mask_only is not None and not getattr(actor, "needs_observation", True) \
                        and not hasattr(actor, "decide"):
                    # A player that reads only the mask gains nothing from batching: it acts at once.
                    observation = {"action_mask": mask_only(agent)}
                    _step(env, t, seat, deal, _call(actor, "act", observation, deal, seat))
                    continue
                return actor, Request(t, seat, env.observe(agent))
            if finished is not None:
                finished(Finished(t, env, deal, returns[t], lengths[t]))
            if not begin(t):
                return None

    active = [t for t in range(n) if begin(t)]
    while active:
        # Every actor but the deferred ones moves until each table waits for a deferred actor (or is done)...
        deferred: dict[int, tuple[Any, list[Request]]] = {}
        waiting = active
        while waiting:
            groups: dict[int, tuple[Any, list[Request]]] = {}
            for t in waiting:
                decision = advance(t)
                if decision is None:
                    continue
                actor, request = decision
                target = deferred if getattr(actor, "deferred", False) else groups
                target.setdefault(id(actor), (actor, []))[1].append(request)
            waiting = []
            for actor, requests in groups.values():
                _decide(envs, deals, actor, requests)
                waiting.extend(r.table for r in requests)
            waiting.sort()  # table order, whoever decided: results do not depend on which agents are shared
        # ...then the deferred actors decide for all of their tables at once.
        active = []
        for actor, requests in deferred.values():
            _decide(envs, deals, actor, requests)
            active.extend(r.table for r in requests)
        active.sort()


def _decide(envs: Sequence[Any], deals: list[Deal | None], actor: Any, requests: list[Request]) -> None:
    first = requests[0]
    if hasattr(actor, "decide"):
        chosen = _call(actor, "decide", requests, deals[first.table], first.seat)
    elif hasattr(actor, "act_batch"):
        chosen = _call(actor, "act_batch", [r.observation for r in requests], deals[first.table], first.seat)
    else:
        chosen = [_call(actor, "act", r.observation, deals[r.table], r.seat) for r in requests]
    if len(chosen) != len(requests):
        raise AgentError(f"agent {deals[first.table].labels[first.seat]!r} returned {len(chosen)} actions "
                         f"for {len(requests)} observations")
    for request, action in zip(requests, chosen, strict=True):
        _step(envs[request.table], request.table, request.seat, deals[request.table], action)


def _call(actor: Any, method: str, argument: Any, deal: Deal, seat: int) -> Any:
    try:
        return getattr(actor, method)(argument)
    except AgentError:
        raise
    except Exception as e:
        raise AgentError(f"agent {deal.labels[seat]!r} in seat {seat} failed in {method}: "
                         f"{type(e).__name__}: {e}", traceback.format_exc()) from e


def _step(env: Any, table: int, seat: int, deal: Deal, action: Any) -> None:
    if isinstance(action, bool) or not isinstance(action, int | np.integer):
        if not (isinstance(action, np.ndarray) and action.ndim == 0 and np.issubdtype(action.dtype, np.integer)):
            raise AgentError(f"agent {deal.labels[seat]!r} in seat {seat} chose {action!r}, not an integer action")
    try:
        env.step(int(action))
    except ValueError as e:
        raise AgentError(f"agent {deal.labels[seat]!r} in seat {seat} chose an illegal action: {e}") from e
