"""The session core shared by the terminal and the web table: one table, one person, the agents.

A :class:`Table` holds an env (``raw_env``, so an illegal move raises instead of ending the deal),
the agents in the other seats and the person's seat. It is the only place that knows who acts
when: :meth:`Table.advance` lets the agents play until the person must decide or the deal is
over (a "deal" is what the game's adapter calls one: a Skat deal, a whole Thirty-One game);
:meth:`Table.play` checks the person's move against the env's legal actions and applies it.
Everything game-specific (views, labels, results, records, the questions asked after a deal)
lives in the game's adapter (a :class:`GameAdapter`, registered in ``play.adapters``); front ends
only show the generic view it builds (see :class:`GameAdapter` for its keys).

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
PRIVATE = ("note", "action")  # the keys of a move event only the seat that moved sees


def agent_seed(table_seed: int, seat: int) -> int:
    """The seed of the agent in ``seat`` at a table seeded with ``table_seed``."""
    return table_seed * 16 + seat


@dataclass(frozen=True)
class Move:
    """One legal move offered to the person: the env action, a readable label, the short key
    typed in the terminal (``CJ``, ``18``, ``p``) and the card token it plays, discards or picks,
    if any: a card name, or ``#...`` for a card the person cannot see (drawn as a card back)."""

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


@dataclass(frozen=True)
class Flag:
    """A terminal option of a game (``--kontra``): the table option it sets and argparse's keywords.
    Two games may share a flag (``--players``) for options of different names."""

    flag: str
    option: str
    kwargs: dict[str, Any] = field(default_factory=dict)


class GameAdapter(Protocol):
    """What the core and the front ends need from a game (``play.skat``, ``play.thirtyone``).

    The view of a seat (:meth:`view`) is the generic table every front end draws: ``phase`` (text),
    ``headline`` (one line), ``seats`` (per seat: ``seat, name, tags, meta, cards, open``: the
    open cards or None), ``extra_seats`` (hands without a seat: a dummy), ``center`` (piles:
    ``label``, ``cards``, ``captions``, ``faded``), ``info`` (lines; card names in them are drawn
    as cards), ``rows`` (the person's own cards: ``label``, ``cards``) and ``last`` (lines for the
    terminal's ``last`` command, or None). Cards are tokens: a name (``CJ``), ``#k`` a card the
    person cannot see but may choose, ``##`` a card back. A result (:meth:`finish`) has ``summary``,
    ``steps`` (pairs), ``scores`` (by seat, or None), ``winner`` (a seat or None), ``showdown``
    (or None: ``title``, ``rows`` of ``seat, name, hand, value, result``, ``notes``); events have
    ``kind`` (``move``, ``trick``, ``round_end``, ``deal_end``), ``seat`` where one acted, ``text``
    (what everybody sees) and ``note`` (what only the acting seat sees: the card it drew)."""

    game: str
    title: str
    deal_word: str  # what one table "deal" is called: "deal", "game"
    option_names: tuple[str, ...]  # the table options a person may set
    flags: tuple[Flag, ...]  # the terminal's own options of this game
    keys_help: str  # the terminal's help line for this game's keys
    aliases: dict[str, str]  # words the terminal takes for a move key ("pass" -> "p")

    def make_env(self, options: dict[str, Any]) -> Any: ...
    def coerce(self, name: str, value: Any) -> Any: ...
    def setup(self) -> dict[str, Any]: ...
    def agent_unfit(self, name: str, env: Any) -> str | None: ...
    def agent_label(self, name: str) -> str: ...
    def start(self, table: Table) -> None: ...
    def to_act(self, table: Table) -> int | None: ...
    def over(self, table: Table) -> bool: ...
    def moves(self, table: Table, seat: int) -> list[Move]: ...
    def after_step(self, table: Table, seat: int, action: int) -> list[dict[str, Any]]: ...
    def finish(self, table: Table) -> dict[str, Any]: ...
    def new_score(self, table: Table) -> dict[str, Any]: ...
    def view(self, table: Table, seat: int) -> dict[str, Any]: ...
    def downloads(self, table: Table, deal: Deal) -> list[str]: ...
    def record(self, table: Table, deal: Deal, fmt: str) -> str: ...
    def question(self, table: Table, deal: Deal) -> str | None: ...
    def analyse(self, table: Table, deal: Deal) -> dict[str, Any]: ...


def option_fields(names: Sequence[str], defaults: dict[str, Any], choices: dict[str, Sequence[Any]],
                  numbers: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """The web page's description of a game's options: a bool, a choice among ``choices``, a number
    (``numbers``; None: every other option) or free text; tuples shown as lists."""
    fields_ = []
    for name in names:
        default = defaults[name]
        if isinstance(default, bool):
            kind, values = "bool", [False, True]
        elif name in choices:
            kind, values = "choice", list(choices[name])
        elif numbers is None or name in numbers:
            kind, values = "number", None
        else:
            kind, values = "text", None
        fields_.append({"name": name, "kind": kind, "choices": values,
                        "default": list(default) if isinstance(default, tuple) else default})
    return fields_


class BaseAdapter:
    """Defaults for the optional parts of an adapter: no flags, every agent fits, JSON records only,
    no question after a deal."""

    flags: tuple[Flag, ...] = ()
    keys_help = ""
    aliases: dict[str, str] = {}

    def coerce(self, name: str, value: Any) -> Any:
        return value

    def agent_unfit(self, name: str, env: Any) -> str | None:
        """Why the game's own agent ``name`` (``describe(game).agent_specs``) cannot sit at ``env``, or None."""
        return None

    def agent_label(self, name: str) -> str:
        return name

    def downloads(self, table: Table, deal: Deal) -> list[str]:
        return ["json"]

    def record(self, table: Table, deal: Deal, fmt: str) -> str:
        raise ValueError(f"{self.title} deals download as json only, not {fmt!r}")  # type: ignore[attr-defined]

    def question(self, table: Table, deal: Deal) -> str | None:
        """The question the adapter can answer about a finished deal (e.g. the solver's), or None."""
        return None

    def analyse(self, table: Table, deal: Deal) -> dict[str, Any]:
        raise ValueError("there is no question to ask about this deal")

    def check_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """Known option names only (their values are the env's to check), coerced where a person
        writes them as text (``--set``)."""
        names = self.option_names  # type: ignore[attr-defined]
        unknown = sorted(set(options) - set(names))
        if unknown:
            raise ValueError(f"unknown {self.title} table option(s) {unknown}; valid: {list(names)}")  # type: ignore
        return {k: self.coerce(k, v) for k, v in options.items()}


def seats(adapter: GameAdapter, options: dict[str, Any]) -> int:
    """How many players the table of these options seats (from the env: ``possible_agents``)."""
    return len(adapter.make_env(options).possible_agents)


@dataclass
class Deal:
    """One deal as the table plays it: the moves and events, then the result."""

    number: int
    seed: int | None
    start: dict[str, Any]  # what rebuilds it (Skat: dealer and hands; exported in the JSON record)
    moves: list[tuple[int, int]] = field(default_factory=list)  # (seat, action)
    events: list[dict[str, Any]] = field(default_factory=list)
    frames: list[dict[str, Any]] = field(default_factory=list)  # replay snapshots, all hands open
    result: dict[str, Any] | None = None
    notes: dict[str, Any] = field(default_factory=dict)  # the adapter's own (rules states...), not exported


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
            raise ValueError(f"{adapter.title} with these options seats {n} players; got {len(agents)} agents")
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

    @property
    def seats(self) -> int:
        return len(self.env.possible_agents)

    # --- the flow ---------------------------------------------------------------------------
    def new_deal(self) -> list[dict[str, Any]]:
        """Start the next deal and let the agents play up to the person."""
        with self.lock:
            if self.deal is not None and self.deal.result is None:
                raise IllegalMove(f"the current {self.adapter.deal_word} is not over yet")
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
        return None if self.over else self.adapter.to_act(self)

    def human_to_act(self) -> bool:
        return self.to_act() == self.human_seat

    def legal_moves(self) -> list[Move]:
        """The person's legal moves now (empty when it is not their turn)."""
        return self.adapter.moves(self, self.human_seat) if self.human_to_act() else []

    def play(self, action: int) -> list[dict[str, Any]]:
        """Apply the person's move, checked against the env, then let the agents play on."""
        with self.lock:
            if self.over:
                raise IllegalMove(f"the {self.adapter.deal_word} is over: start the next one")
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
        if self.adapter.over(self):
            deal.result = result = self.adapter.finish(self)
            result["downloads"] = self.adapter.downloads(self, deal)
            result["question"] = self.adapter.question(self, deal)
            deal.events.append({"kind": "deal_end", "deal": deal.number, "result": result,
                                "text": result["summary"]})
            self.deals_played += 1
            self.finished.append(deal)
            del self.finished[:-MAX_KEPT_DEALS]

    # --- what front ends read ----------------------------------------------------------------
    def view(self, seat: int | None = None) -> dict[str, Any]:
        """What ``seat`` (default: the person) may see now, as plain JSON-able data."""
        with self.lock:
            seat = self.human_seat if seat is None else seat
            v = self.adapter.view(self, seat)
            v.update(game=self.game, title=self.adapter.title, deal_word=self.adapter.deal_word, seed=self.seed,
                     names=self.names, human_seat=self.human_seat, deal=self.deal.number if self.deal else 0,
                     over=self.over, to_act=self.to_act(),
                     legal=[m.as_dict() for m in self.legal_moves()] if seat == self.human_seat else [],
                     score=self.score, result=self.deal.result if self.deal else None)
            return v

    def public_events(self, events: Sequence[dict[str, Any]], seat: int | None = None) -> list[dict[str, Any]]:
        """Events as ``seat`` may see them: another seat's move keeps only its public ``text`` (its
        ``note`` and action, which may name a card put away or drawn, stay with the one who moved)."""
        seat = self.human_seat if seat is None else seat
        return [e if e.get("seat", seat) == seat else {k: v for k, v in e.items() if k not in PRIVATE}
                for e in events]

    def finished_deal(self, number: int) -> Deal:
        for d in self.finished:
            if d.number == number:
                return d
        raise KeyError(f"no finished deal {number} at this table (kept: {[d.number for d in self.finished]})")
