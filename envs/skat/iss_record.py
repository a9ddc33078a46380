"""The ISS record format: one game per line, ``(;GM[Skat]...ID[..]...MV[...]R[...] ;)``.

:func:`parse` reads a record into an :class:`IssRecord` without replaying it (``envs.skat.iss``
replays); :func:`contract_label` turns ISS contract letters into the action table's labels. Anything
malformed raises :class:`IssError` naming the record id and, where there is one, the move.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NoReturn

from envs.skat.cards import card, mask_of

CARD = re.compile(r"[CSHD][789TJQKA]")
_PROPERTY = re.compile(r"([A-Z][A-Z0-9]*)\[([^\]]*)\]")
_ID = re.compile(r"(?<![A-Z])ID\[([^\]]*)\]")


class IssError(ValueError):
    """A malformed record, an illegal move or a disagreement with the server's result."""

    def __init__(self, record_id: str | None, problem: str, move_index: int | None = None,
                 move: str | None = None) -> None:
        self.record_id, self.problem, self.move_index, self.move = record_id, problem, move_index, move
        self.location = ""  # "file:line", filled in by iter_records
        super().__init__(record_id, problem, move_index, move)  # all four, so it pickles

    def __str__(self) -> str:
        where = f"ISS record {self.record_id if self.record_id is not None else '?'}"
        if self.move_index is not None:
            where += f", move {self.move_index} {self.move!r}"
        return f"{self.location + ': ' if self.location else ''}{where}: {self.problem}"


@dataclass(frozen=True)
class IssRecord:
    """One record as written. ``moves`` are the (actor, token) pairs after the deal; the actor is
    ``"0"``, ``"1"``, ``"2"`` (seat 0 is forehand) or ``"w"`` (the server). ``deal`` is the 32 card ids
    in record order: seat 0 gets 1-10, seat 1 11-20, seat 2 21-30, the skat 31-32. ``result`` holds
    the ``R[]`` fields: ``"v:-54"`` becomes ``{"v": "-54"}``, a bare flag ``"loss"`` ``{"loss": ""}``."""

    id: str
    players: tuple[str, str, str]
    date: str
    deal: tuple[int, ...]
    moves: tuple[tuple[str, str], ...]
    result: dict[str, str]
    properties: dict[str, str] = field(repr=False)

    @property
    def hands(self) -> tuple[int, int, int]:
        return mask_of(self.deal[0:10]), mask_of(self.deal[10:20]), mask_of(self.deal[20:30])

    @property
    def skat(self) -> int:
        return mask_of(self.deal[30:32])


def cards(tokens: Iterable[str], fail: Fail, what: str) -> list[int]:
    """Card tokens of a record (``what`` names them in errors) -> ids; each card at most once."""
    out = []
    for t in tokens:
        if not CARD.fullmatch(t):
            fail(f"{what}: {t!r} is not a card (hidden or unknown cards cannot be replayed)")
        out.append(card(t))
    if len(set(out)) != len(out):
        fail(f"{what}: a card appears twice")
    return out


class Fail:
    """Raises the IssError of one record, at the move being read (``index``, ``move``) if any."""

    def __init__(self, record_id: str | None) -> None:
        self.record_id = record_id
        self.index: int | None = None
        self.move: str | None = None

    def __call__(self, problem: str) -> NoReturn:
        raise IssError(self.record_id, problem, self.index, self.move)


def parse(line: str) -> IssRecord:
    """Read one ISS record (no replay). Raises IssError for anything malformed."""
    text = line.strip()
    m = _ID.search(text)
    fail = Fail(m.group(1) if m else None)
    if not (text.startswith("(;") and text.endswith(";)")):
        fail("not an ISS record: expected '(;GM[Skat]...MV[...]R[...] ;)'")
    body, props, pos = text[2:-2], {}, 0
    for pm in _PROPERTY.finditer(body):
        if body[pos:pm.start()].strip():
            fail(f"unexpected text {body[pos:pm.start()].strip()[:30]!r} between properties")
        if pm.group(1) in props:
            fail(f"property {pm.group(1)} given twice")
        props[pm.group(1)] = pm.group(2)
        pos = pm.end()
    if body[pos:].strip():
        fail(f"unexpected text {body[pos:].strip()[:30]!r} after the properties")
    if props.get("GM", "Skat") != "Skat":
        fail(f"GM[{props['GM']}] is not a Skat record")
    for key in ("ID", "MV"):
        if key not in props:
            fail(f"missing property {key}[...]")
    tokens = props["MV"].split()
    if len(tokens) % 2:
        fail(f"MV holds {len(tokens)} tokens; expected (actor, move) pairs")
    pairs = list(zip(tokens[::2], tokens[1::2], strict=True))
    for i, (who, tok) in enumerate(pairs):
        if who not in ("w", "0", "1", "2"):
            fail.index, fail.move = (i - 1 if i else None), f"{who} {tok}"
            fail(f"actor {who!r} is not a seat (0, 1, 2) or 'w'")
    if not pairs or pairs[0][0] != "w":
        fail("MV must start with the deal 'w <32 cards>'")
    deal = cards(pairs[0][1].split("."), fail, "the deal")
    if len(deal) != 32:
        fail(f"the deal has {len(deal)} cards, expected 32")
    result: dict[str, str] = {}
    for item in props.get("R", "").split():
        key, _, val = item.partition(":")
        result[key] = val
    players = (props.get("P0", ""), props.get("P1", ""), props.get("P2", ""))
    return IssRecord(props["ID"], players, props.get("DT", ""), tuple(deal), tuple(pairs[1:]), result, props)


def contract_label(kind: str, mods: str) -> str:
    """ISS contract letters (mods in any order) -> our contract label: ``"GZSH"`` -> ``"GHZ"``,
    ``"GO"`` -> ``"GHO"`` (suit/grand ouvert implies hand and schwarz), ``"NHO"`` -> ``"NOH"``."""
    if kind not in "GCSHDN" or len(kind) != 1:
        raise ValueError(f"unknown game type {kind!r}; expected one of G C S H D N")
    if len(set(mods)) != len(mods) or set(mods) - set("HSZO"):
        raise ValueError(f"bad modifiers {mods!r}; expected each of H S Z O at most once")
    if kind == "N":
        if set(mods) & set("SZ"):
            raise ValueError("a null game cannot announce schneider or schwarz")
        return "N" + ("O" if "O" in mods else "") + ("H" if "H" in mods else "")
    ouvert = "O" in mods
    hand, schwarz = "H" in mods or ouvert, "Z" in mods or ouvert
    if ("S" in mods or schwarz) and not hand:
        raise ValueError("schneider/schwarz can only be announced in a hand game")
    label = kind + ("H" if hand else "") + ("S" if "S" in mods and not schwarz else "")
    return label + ("Z" if schwarz and not ouvert else "") + ("O" if ouvert else "")
