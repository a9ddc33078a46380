"""The terminal table: the person types short keys, the agents answer, the table is printed.

Input at a decision: the number of a listed move, a card (``CJ``, ``c10``, ``♣J``), a move's key
(the game's adapter lists them: ``p`` pass, ``18`` a bid, ``d`` draw, ``p1`` pick a table card ...)
or its full label (``bid 18``, ``play CJ``). Commands: ``?`` help, ``!`` hint (with ``--hint``),
``last`` the last trick (or round), ``score`` the session table, ``q`` quit; after a deal ``a`` asks
the adapter's question (Skat: could the declarer have won?). Anything else is answered with the
legal moves; a person never sees a traceback. Everything shown comes from the table's generic view
(``play.core.GameAdapter``): this module knows no game.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from play.core import IllegalMove, Move, Table
from play.hints import hint as agent_hint

SUITS = {"C": "♣", "S": "♠", "H": "♥", "D": "♦"}
RANKS = "23456789TJQKA"
RED, BOLD, DIM, RESET = "\x1b[31m", "\x1b[1m", "\x1b[2m", "\x1b[0m"
COMMANDS = ("?", "help", "!", "hint", "last", "score", "q", "quit")
HELP = """Type the number of a move, a card (CJ, HT or H10), a bid value, or a key:
{keys}
Commands: ! hint (with --hint), last (the last trick or round), score (the session table), q quit."""


def use_color(mode: str, stream: TextIO) -> bool:
    """``auto``: symbols and colour on a terminal (and not with NO_COLOR); plain letters otherwise."""
    if mode == "always":
        return True
    if mode == "never":
        return False
    return bool(getattr(stream, "isatty", lambda: False)()) and "NO_COLOR" not in os.environ


def normalize_card(text: str) -> str:
    """``♣J`` / ``c10`` / ``CJ`` -> ``CJ`` (other text unchanged but upper-cased)."""
    t = text.strip().upper()
    for letter, symbol in SUITS.items():
        t = t.replace(symbol, letter)
    if len(t) == 3 and t[1:] == "10":
        t = t[0] + "T"
    return t


def is_card(word: str) -> bool:
    return len(word) == 2 and word[0] in SUITS and word[1] in RANKS


def parse_move(text: str, moves: Sequence[Move], menu: Sequence[Move], aliases: dict[str, str] | None = None
               ) -> Move | None:
    """The move ``text`` names, or None: a move's key (a bid's value first: bids start above any menu
    number), its label, its card, a word the game takes for a key, else the number in the menu."""
    t = " ".join(text.strip().split())
    if not t:
        return None
    low, card = t.lower(), normalize_card(t)
    for m in moves:
        if low in (m.key.lower(), m.label.lower()) or (m.card is not None and card == m.card):
            return m
    if t.isdigit():
        n = int(t)
        return menu[n - 1] if 1 <= n <= len(menu) else None
    words = low.split(" ", 1)
    if len(words) == 2 and words[0] in ("play", "discard", "bid", "declare", "pick", "give"):
        return parse_move(words[1], moves, ())
    aliases = aliases or {}
    if low in aliases:
        return parse_move(aliases[low], moves, ())
    return None


class Terminal:
    """Drives one :class:`Table` through a text stream pair (a terminal, or a test's StringIO)."""

    def __init__(self, table: Table, inp: TextIO = sys.stdin, out: TextIO = sys.stdout, color: bool = False,
                 hint_agent: Any = None, hint_name: str = "") -> None:
        self.table, self.inp, self.out, self.color = table, inp, out, color
        self.hint_agent, self.hint_name = hint_agent, hint_name
        self.adapter = table.adapter

    # --- output -------------------------------------------------------------------------------
    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def card(self, name: str) -> str:
        if name.startswith("#"):
            return "[?]" if name == "##" else f"[{name}]"
        if not self.color or not is_card(name):
            return name
        rank = "10" if name[1] == "T" else name[1]
        text = SUITS[name[0]] + rank
        return f"{RED}{text}{RESET}" if name[0] in "HD" else text

    def cards(self, names: Sequence[str] | None) -> str:
        return " ".join(self.card(c) for c in names) if names else "-"

    def bold(self, text: str) -> str:
        return f"{BOLD}{text}{RESET}" if self.color else text

    def move_text(self, m: Move) -> str:
        return self.colour_label(m.label)

    def colour_label(self, label: str) -> str:
        """Every card name in a label drawn as a card (``take DJ`` -> ``take ♦J``)."""
        return " ".join(self.card(w) if is_card(w) else w for w in label.split(" "))

    # --- input --------------------------------------------------------------------------------
    def ask(self, prompt: str) -> str | None:
        self.out.write(prompt)
        self.out.flush()
        try:
            line = self.inp.readline()
        except KeyboardInterrupt:
            return None
        if not line:  # end of input: leave the table
            self.say()
            return None
        return line.strip()

    # --- the session --------------------------------------------------------------------------
    def run(self) -> int:
        try:
            while True:
                self.show_events(self.table.new_deal())
                if not self.play_deal():
                    break
                self.show_result()
                if not self.after_deal():
                    break
        except KeyboardInterrupt:
            self.say()
        self.say("Session over.")
        self.show_score()
        return 0

    def after_deal(self) -> bool:
        """Next deal (True), or quit (False); the adapter's question on ``a``."""
        deal = self.table.deal
        question = deal.result.get("question")
        prompt = f"[Enter] next {self.adapter.deal_word}, " + (f"a: {question[:1].lower()}{question[1:]}, "
                                                              if question else "") + "q quit: "
        while True:
            answer = self.ask(prompt)
            if answer is None or answer.lower() in ("q", "quit"):
                return False
            if answer.lower() in ("a", "?") and question:
                self.show_analysis(self.adapter.analyse(self.table, deal))
                continue
            return True

    def show_analysis(self, answer: dict[str, Any]) -> None:
        self.say(self.bold(answer["text"]))
        for line in answer.get("line_text") or []:
            self.say("  " + self.colour_label(line))

    def play_deal(self) -> bool:
        """Play until the deal is over; False when the person quits."""
        t = self.table
        while not t.over:
            if not t.human_to_act():  # cannot happen: advance() stops at the person; kept as a guard
                self.show_events(t.advance())
                continue
            self.show_table()
            move = self.read_move()
            if move is None:
                return False
            try:
                events = t.play(move.action)
            except IllegalMove as e:  # the env refused it (not expected after parsing): say what is legal
                self.say(f"{e}")
                continue
            self.show_events(events)
        return True

    def read_move(self) -> Move | None:
        t = self.table
        moves = t.legal_moves()
        menu = self.menu(moves)
        self.say("Legal: " + "  ".join(f"{i}) {self.move_text(m)}" for i, m in enumerate(menu, 1))
                 + self.more_bids(moves))
        while True:
            text = self.ask("> ")
            if text is None:
                return None
            low = text.lower()
            if low in ("q", "quit"):
                return None
            move = parse_move(text, moves, menu, self.adapter.aliases)
            if move is not None:
                return move
            if low in ("?", "help"):
                self.say(HELP.format(keys="  " + self.adapter.keys_help))
            elif low in ("!", "hint"):
                self.show_hint(moves)
            elif low == "last":
                last = t.view()["last"]
                for line in last or ["Nothing to show yet."]:
                    self.say(self.colour_label(line))
            elif low == "score":
                self.show_score()
            else:
                shown = ", ".join(f"{i}) {m.key}" for i, m in enumerate(menu, 1))
                self.say(f"'{text}' is not a legal move here. Legal: {shown}{self.more_bids(moves)} (? for help)")

    @staticmethod
    def menu(moves: Sequence[Move]) -> list[Move]:
        """The numbered list: every move, but of the bids only the next few (the rest by value)."""
        bids = [m for m in moves if m.label.startswith("bid ")]
        return bids[:5] + [m for m in moves if not m.label.startswith("bid ")]

    @staticmethod
    def more_bids(moves: Sequence[Move]) -> str:
        bids = [m for m in moves if m.label.startswith("bid ")]
        return f"  (or any bid up to {bids[-1].key}: type the value)" if len(bids) > 5 else ""

    def show_hint(self, moves: Sequence[Move]) -> None:
        if self.hint_agent is None:
            self.say("No hint agent: start with --hint SPEC (e.g. --hint rule or --hint checkpoints/skat_ppo.pt).")
            return
        t = self.table
        obs = t.env.observe(t.env.possible_agents[t.human_seat])
        ranked = agent_hint(self.hint_agent, obs, moves)
        text = ", ".join(f"{self.move_text(m)} {p:.0%}" for m, p in ranked)
        self.say(f"{self.hint_name} would play: {text}")

    # --- showing the table ----------------------------------------------------------------------
    def name(self, seat: int) -> str:
        return "You" if seat == self.table.human_seat else self.table.names[seat]

    def show_events(self, events: Sequence[dict[str, Any]]) -> None:
        t = self.table
        for e in t.public_events(events):
            kind = e["kind"]
            if kind == "move":
                if e.get("seat") != t.human_seat:
                    self.say(f"  {self.colour_label(e['text'])}")
                elif e.get("note"):
                    self.say(f"  {self.colour_label(e['note'])}")
            elif kind == "trick":
                self.say(f"  {self.colour_label(e['text'])}")
            elif kind == "round_end":
                self.show_showdown(e["showdown"])

    def show_table(self) -> None:
        v = self.table.view()
        self.say(self.bold(f"--- {v['title']}, {v['deal_word']} {v['deal']}: {v['headline']} ---"))
        for s in v["seats"] + v["extra_seats"]:
            if s["seat"] == self.table.human_seat:
                continue
            who = self.name(s["seat"]) if s["seat"] is not None else s["name"]
            width = max(12, *(len(n) for n in self.table.names))
            line = f"  {who:<{width}} {', '.join(s['tags']):<24} {s['cards']:>2} card{'s' if s['cards'] != 1 else ''}"
            line = self.colour_label(line + (f", {s['meta']}" if s["meta"] else ""))
            if s["open"] is not None:
                line += f"  open: {self.cards(s['open'])}"
            self.say(line)
        for pile in v["center"]:
            captions = pile.get("captions")
            if captions:
                cards = ", ".join(f"{w} {self.card(c)}" for c, w in zip(pile["cards"], captions, strict=True))
            else:
                cards = self.cards(pile["cards"])
            self.say(f"  {pile['label'][:1].upper() + pile['label'][1:]}: {cards}")
        for line in v["info"]:
            self.say("  " + self.colour_label(line))
        for row in v["rows"]:
            self.say(f"  {row['label']}: {self.cards(row['cards'])}")

    def show_showdown(self, sd: dict[str, Any]) -> None:
        self.say(self.bold(f"  {sd['title']}" + (" (void)" if sd.get("void") else "")))
        for r in sd["rows"]:
            self.say(f"    {self.name(r['seat']):<12} {self.cards(r['hand']):<14} {r['value']:>5}  {r['result']}")
        for note in sd.get("notes", []):
            self.say(f"    {note}")

    def show_result(self) -> None:
        r = self.table.deal.result
        self.say(self.bold(f"=== {r['summary']} ==="))
        for name, value in r.get("steps", []):
            self.say(f"  {name:<22} {value}")
        if r.get("scores") is not None:
            self.say("  Scores: " + ", ".join(f"{self.name(s)} {x:+d}" for s, x in enumerate(r["scores"])))
        self.show_score()

    def show_score(self) -> None:
        sc = self.table.score
        cols = sc["columns"]
        self.say(f"Session ({sc['deals']} {self.adapter.deal_word}s):  " + "  ".join(f"{c:>10}" for c in cols))
        for seat, row in enumerate(sc["rows"]):
            self.say(f"  {self.name(seat):<12} " + "  ".join(f"{x:>10}" for x in row))
