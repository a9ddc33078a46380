"""The session core shared by the terminal and the web table: one table, one person, the agents.

A :class:`Table` holds an env (``raw_env``, so an illegal move raises instead of ending the deal),
the agents in the other seats and the person's seat. It is the only place that knows who acts
when: :meth:`Table.advance` lets the agents play until the person must decide or the deal (Skat)
or the game (Thirty-One) is over; :meth:`Table.play` checks the person's move against the env's
legal actions and applies it. Everything game-specific (views, labels, results, records) lives in
a :class:`GameAdapter` (``play.skat``, ``play.thirtyone``); front ends only show what they get.

Reproducibility: a table with seed ``S`` resets the env with ``S`` once (Skat: the following deals
continue its generator and rotate the dealer; Thirty-One: game ``k`` is reset with ``S + k``) and
builds the agent of seat ``i`` with seed :func:`agent_seed` ``(S, i)``. So a fresh env and agents
made with the same seeds, fed the same moves of the person, replay a session move for move.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

MAX_KEPT_DEALS = 20  # finished deals a table keeps for replay and download


def agent_seed(table_seed: int, seat: int) -> int:
    """The seed of the agent in ``seat`` at a table seeded with ``table_seed``."""
    return table_seed * 16 + seat


@dataclass(frozen=True)
class Move:
    """One legal move offered to the person: the env action, a readable label, the short key
    typed in the terminal (``CJ``, ``18``, ``p``) and the card it plays or discards, if any."""

    action: int
    label: str
    key: str
    card: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"action": self.action, "label": self.label, "key": self.key, "card": self.card}


class IllegalMove(ValueError):
    """A move the person may not make now; ``legal`` lists what is legal (empty: not their turn)."""

    def __init__(self, message: str, legal: Sequence[Move] = ()) -> None:
        super().__init__(message)
        self.legal = list(legal)


class GameAdapter(Protocol):
    """What the core needs from a game (implemented by ``play.skat`` and ``play.thirtyone``)."""

    game: str

    def make_env(self, options: dict[str, Any]) -> Any: ...
    def start(self, table: Table) -> None: ...
    def to_act(self, env: Any) -> int | None: ...
    def over(self, env: Any) -> bool: ...
    def moves(self, env: Any, seat: int) -> list[Move]: ...
    def after_step(self, table: Table, seat: int, action: int) -> list[dict[str, Any]]: ...
    def finish(self, table: Table) -> dict[str, Any]: ...
    def new_score(self, table: Table) -> dict[str, Any]: ...
    def view(self, table: Table, seat: int) -> dict[str, Any]: ...
    def public_event(self, table: Table, event: dict[str, Any], seat: int) -> dict[str, Any]: ...


@dataclass
class Deal:
    """One deal (Skat) or game (Thirty-One) as it is played: the moves and events, then the result."""

    number: int
    seed: int | None
    start: dict[str, Any]  # what the adapter needs to rebuild it (Skat: dealer and hands)
    moves: list[tuple[int, int]] = field(default_factory=list)  # (seat, action)
    events: list[dict[str, Any]] = field(default_factory=list)
    frames: list[dict[str, Any]] = field(default_factory=list)  # replay snapshots, all hands open
    result: dict[str, Any] | None = None


class Table:
    """One table: ``agents[seat]`` plays each seat except ``human_seat`` (whose entry is None)."""

    def __init__(self, adapter: GameAdapter, options: dict[str, Any], agents: Sequence[Any | None],
                 names: Sequence[str], human_seat: int = 0, seed: int | None = None) -> None:
        self.adapter = adapter
        self.game = adapter.game
        self.options = dict(options)
        self.env = adapter.make_env(self.options)
        n = len(self.env.possible_agents)
        if len(agents) != n or len(names) != n:
            raise ValueError(f"{self.game} with these options seats {n} players; got {len(agents)} agents")
        if agents[human_seat] is not None or sum(a is None for a in agents) != 1:
            raise ValueError("exactly the person's seat must be without an agent")
        self.agents = list(agents)
        self.names = list(names)
        self.human_seat = human_seat
        self.seed = int(seed) if seed is not None else secrets.randbelow(2**31)
        self.deal: Deal | None = None
        self.finished: list[Deal] = []
        self.deals_played = 0
        self.score = adapter.new_score(self)
        self.lock = threading.RLock()  # the web server advances a table in a worker thread

    # --- the flow ---------------------------------------------------------------------------
    def new_deal(self) -> list[dict[str, Any]]:
        """Start the next deal (Skat) or game (Thirty-One) and let the agents play up to the person."""
        with self.lock:
            if self.deal is not None and self.deal.result is None:
                raise IllegalMove("the current deal is not over yet")
            number = self.deals_played + 1
            self.deal = Deal(number, None, {})
            self.adapter.start(self)  # resets the env, fills deal.seed / deal.start / the first frame
            for agent in self.agents:
                if agent is not None:
                    agent.reset()
            return self.advance()

    @property
    def over(self) -> bool:
        return self.deal is None or self.deal.result is not None

    def to_act(self) -> int | None:
        """The seat to act, or None when the deal is over."""
        return None if self.over else self.adapter.to_act(self.env)

    def human_to_act(self) -> bool:
        return self.to_act() == self.human_seat

    def legal_moves(self) -> list[Move]:
        """The person's legal moves now (empty when it is not their turn)."""
        return self.adapter.moves(self.env, self.human_seat) if self.human_to_act() else []

    def play(self, action: int) -> list[dict[str, Any]]:
        """Apply the person's move, checked against the env, then let the agents play on."""
        with self.lock:
            if self.over:
                raise IllegalMove("the deal is over: start the next one")
            if not self.human_to_act():
                raise IllegalMove(f"it is {self.names[self.to_act()]}'s turn, not yours")
            legal = self.legal_moves()
            if isinstance(action, bool) or not isinstance(action, int) or action not in {m.action for m in legal}:
                raise IllegalMove(f"{action!r} is not a legal move now", legal)
            start = len(self.deal.events)
            self._step(self.human_seat, action)
            self.advance()
            return self.deal.events[start:]

    def advance(self, stop: Callable[[], bool] | None = None) -> list[dict[str, Any]]:
        """Let the agents act until the person must decide or the deal is over; the new events."""
        with self.lock:
            deal = self.deal
            start = len(deal.events)
            while not self.over:
                seat = self.to_act()
                if seat == self.human_seat or (stop is not None and stop()):
                    break
                agent_name = self.env.possible_agents[seat]
                action = int(self.agents[seat].act(self.env.observe(agent_name)))
                self._step(seat, action)  # the env raises a ValueError naming an agent's illegal move
            return deal.events[start:]

    def _step(self, seat: int, action: int) -> None:
        deal = self.deal
        deal.moves.append((seat, action))
        events = self.adapter.after_step(self, seat, action)  # steps the env, reports what happened
        deal.events.extend(events)
        if self.adapter.over(self.env):
            deal.result = self.adapter.finish(self)
            deal.events.append({"kind": "deal_end", "deal": deal.number, "result": deal.result})
            self.deals_played += 1
            self.finished.append(deal)
            del self.finished[:-MAX_KEPT_DEALS]

    # --- what front ends read ----------------------------------------------------------------
    def view(self, seat: int | None = None) -> dict[str, Any]:
        """What ``seat`` (default: the person) may see now, as plain JSON-able data."""
        with self.lock:
            seat = self.human_seat if seat is None else seat
            v = self.adapter.view(self, seat)
            v.update(game=self.game, seed=self.seed, names=self.names, human_seat=self.human_seat,
                     deal=self.deal.number if self.deal else 0, over=self.over, to_act=self.to_act(),
                     legal=[m.as_dict() for m in self.legal_moves()] if seat == self.human_seat else [],
                     score=self.score, result=self.deal.result if self.deal else None)
            return v

    def public_events(self, events: Sequence[dict[str, Any]], seat: int | None = None) -> list[dict[str, Any]]:
        """Events as ``seat`` may see them (another player's discards in Skat stay hidden)."""
        seat = self.human_seat if seat is None else seat
        return [self.adapter.public_event(self, e, seat) for e in events]

    def finished_deal(self, number: int) -> Deal:
        for d in self.finished:
            if d.number == number:
                return d
        raise KeyError(f"no finished deal {number} at this table (kept: {[d.number for d in self.finished]})")
