"""The terminal table: the person types short keys, the agents answer, the table is printed.

Input at a decision: the number of a listed move, a card (``CJ``, ``c10``, ``♣J``), a bid value, a
move's key (``p`` pass, ``y`` hold, ``s`` pick up the skat, ``h`` hand, contract letters such as
``G`` or ``CH``, ``k`` kontra / knock, ``r`` re, ``d`` draw, ``t`` take, ``x`` throw down, ``l`` look) or
its full name (``bid 18``, ``play CJ``). Commands: ``?`` help, ``!`` hint (with ``--hint``), ``last``
the last trick, ``score`` the session table, ``q`` quit. Anything else is answered with the legal
moves; a person never sees a traceback.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from play.core import IllegalMove, Move, Table
from play.hints import hint as agent_hint

SUITS = {"C": "♣", "S": "♠", "H": "♥", "D": "♦"}
RED, BOLD, DIM, RESET = "\x1b[31m", "\x1b[1m", "\x1b[2m", "\x1b[0m"
COMMANDS = ("?", "help", "!", "hint", "last", "score", "q", "quit")
HELP = """Type the number of a move, a card (CJ, HT or H10), a bid value, or a key:
  Skat: p pass, y hold, s pick up the skat, h play hand, contract letters (C S H D G N, then H hand,
        S schneider, Z schwarz, O ouvert, e.g. GH, NO), k kontra, r re
  Thirty-One: d draw, t take the discard, k knock, x throw down, l look, a card to discard
Commands: ! hint (with --hint), last (the last trick), score (the session table), q quit."""


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


def parse_move(text: str, moves: Sequence[Move], menu: Sequence[Move], auction: bool = False) -> Move | None:
    """The move ``text`` names, or None. Numbers: a bid value in the auction (values start at 18,
    above any menu number there), else the menu number."""
    t = " ".join(text.strip().split())
    if not t:
        return None
    if t.isdigit():
        if auction:
            for m in moves:
                if m.key == t:
                    return m
        n = int(t)
        return menu[n - 1] if 1 <= n <= len(menu) else None
    low, card = t.lower(), normalize_card(t)
    for m in moves:
        if low in (m.key.lower(), m.label.lower()) or (m.card is not None and card == m.card):
            return m
    words = low.split(" ", 1)
    if len(words) == 2 and words[0] in ("play", "discard", "bid", "declare"):
        return parse_move(words[1], moves, (), auction=words[0] == "bid")
    aliases = {"pass": "p", "hold": "y", "yes": "y", "pickup": "s", "skat": "s", "hand": "h", "draw": "d",
               "take": "t", "knock": "k", "kontra": "k", "re": "r", "throw": "x", "look": "l"}
    if low in aliases:
        return parse_move(aliases[low], moves, (), auction)
    return None


class Terminal:
    """Drives one :class:`Table` through a text stream pair (a terminal, or a test's StringIO)."""

    def __init__(self, table: Table, inp: TextIO = sys.stdin, out: TextIO = sys.stdout, color: bool = False,
                 hint_agent: Any = None, hint_name: str = "") -> None:
        self.table, self.inp, self.out, self.color = table, inp, out, color
        self.hint_agent, self.hint_name = hint_agent, hint_name
        self.skat = table.game == "skat"

    # --- output -------------------------------------------------------------------------------
    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def card(self, name: str) -> str:
        if not self.color:
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
        return " ".join(self.card(w) if len(w) == 2 and w[0] in SUITS and w[1] in "23456789TJQKA" else w
                        for w in label.split(" "))

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
                answer = self.ask("[Enter] next deal, q quit: ")
                if answer is None or answer.lower() in ("q", "quit"):
                    break
        except KeyboardInterrupt:
            self.say()
        self.say("Session over.")
        self.show_score()
        return 0

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
        auction = self.skat and t.view()["phase"] == "auction"
        while True:
            text = self.ask("> ")
            if text is None:
                return None
            low = text.lower()
            if low in ("q", "quit"):
                return None
            move = parse_move(text, moves, menu, auction)
            if move is not None:
                return move
            if low in ("?", "help"):
                self.say(HELP)
            elif low in ("!", "hint"):
                self.show_hint(moves)
            elif low == "last" and self.skat:
                self.show_last_trick()
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
            if kind == "move" and e["seat"] != t.human_seat:
                self.say(f"  {self.name(e['seat'])}: {self.colour_label(e['label'])}")
            elif kind == "move" and e.get("drawn"):
                self.say(f"  You draw {self.card(e['drawn'])}")
            elif kind == "trick":
                cards = " ".join(self.card(c["card"]) for c in e["cards"])
                self.say(f"  Trick {e['number']}: {cards} -> {self.name(e['winner'])}")
            elif kind == "round_end":
                self.show_showdown(e["showdown"])

    def show_table(self) -> None:
        if self.skat:
            self.show_skat()
        else:
            self.show_thirtyone()

    def show_skat(self) -> None:
        v = self.table.view()
        me = v["seats"][self.table.human_seat]
        self.say(self.bold(f"--- Skat, deal {v['deal']}: you are {me['position']}, phase {v['phase']} ---"))
        for s in v["seats"]:
            tags = [s["position"]] + (["declarer"] if s["declarer"] else []) + (["dealer"] if s["dealer"] else [])
            line = f"  {self.name(s['seat']):<12} {', '.join(tags):<22} {s['cards']:>2} cards"
            if v["phase"] in ("play", "done"):
                line += f", {s['tricks']} tricks, {s['points']} points"
            if s["hand"] is not None and s["seat"] != self.table.human_seat:
                line += f"  open: {self.cards(s['hand'])}"
            self.say(line)
        if v["auction"]:
            self.say("  Auction: " + ", ".join(f"{self.name(c['seat'])} {c['call']}" for c in v["auction"]))
        if v["contract"]:
            c = v["contract"]
            extra = {2: ", kontra", 4: ", kontra and re"}.get(c["doubling"], "")
            who = f" by {self.name(v['declarer'])}" if v["declarer"] is not None else ""
            self.say(f"  Game: {c['text']}{who}, bid {v['bid']}{extra}")
        if v["skat"] is not None:
            self.say(f"  Skat: {self.cards(v['skat'])}")
        if v["trick"]:
            led = self.name(v["trick"][0]["seat"])
            self.say(f"  Trick: {self.cards([c['card'] for c in v['trick']])} ({led} led)")
        self.say(f"  Your hand: {self.cards(v['hand'])}")

    def show_last_trick(self) -> None:
        last = self.table.view()["last_trick"]
        if not last:
            self.say("No trick has been taken yet.")
            return
        cards = ", ".join(f"{self.name(c['seat'])} {self.card(c['card'])}" for c in last["cards"])
        self.say(f"Last trick: {cards} -> {self.name(last['winner'])}")

    def show_thirtyone(self) -> None:
        v = self.table.view()
        self.say(self.bold(f"--- Thirty-One, game {v['deal']}, round {v['round']}, phase {v['phase']} ---"))
        for s in v["seats"]:
            if not s["alive"]:
                standing = "out"
            elif v["scoring"] == "points":
                standing = f"{s['score']} points"
            else:
                standing = "on the county" if s["on_county"] else f"{s['lives']} lives"
            tags = (["dealer"] if s["dealer"] else []) + (["KNOCKED"] if s["knocked"] else [])
            self.say(f"  {self.name(s['seat']):<12} {standing:<14} {' '.join(tags)}")
        self.say(f"  Discard: {self.card(v['top']) if v['top'] else '-'}   stock: {v['stock']} cards")
        value = f" (worth {v['hand_value']:g})" if v["hand_value"] is not None and len(v["hand"]) == 3 else ""
        self.say(f"  Your hand: {self.cards(v['hand'])}{value}")

    def show_showdown(self, sd: dict[str, Any]) -> None:
        knock = f", {self.name(sd['knocker'])} knocked" if sd["knocker"] is not None else ""
        self.say(self.bold(f"  Round {sd['round']} ends: {sd['kind']}{knock}" + (" (void)" if sd["void"] else "")))
        key = sd["key"]
        for r in sd["rows"]:
            lost = f"loses {r[key]} {'life' if r[key] == 1 else 'lives'}" if key == "lives_lost" else f"+{r[key]}"
            lost = lost if r[key] else ("-" if key == "lives_lost" else "+0")
            self.say(f"    {self.name(r['seat']):<12} {self.cards(r['hand']):<14} {r['value']:>5g}  {lost}")
        for s in sd["eliminated"]:
            self.say(f"    {self.name(s)} is out")

    def show_result(self) -> None:
        r = self.table.deal.result
        self.say(self.bold(f"=== {r['summary']} ==="))
        for name, value in r.get("steps", []):
            self.say(f"  {name:<22} {value}")
        if self.skat:
            self.say("  Scores: " + ", ".join(f"{self.name(s)} {x:+d}" for s, x in enumerate(r["scores"])))
        self.show_score()

    def show_score(self) -> None:
        sc = self.table.score
        cols = sc["columns"]
        what = "deals" if self.skat else "games"
        self.say(f"Session ({sc['deals']} {what}):  " + "  ".join(f"{c:>10}" for c in cols))
        for seat, row in enumerate(sc["rows"]):
            self.say(f"  {self.name(seat):<12} " + "  ".join(f"{x:>10}" for x in row))
