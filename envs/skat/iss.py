"""Import International Skat Server (ISS) game records and replay them through the rules core.

``parse(line)`` reads one record ``(;GM[Skat]...ID[..]...MV[...]R[...] ;)`` into an :class:`IssRecord`
(the record format lives in ``envs.skat.iss_record``; its names are re-exported here);
``replay(line)`` plays it through :mod:`envs.skat.rules`, checking every move, and returns an
:class:`IssGame`. For games played to the end, the replay's value, win/loss, matadors, card points
and tricks must agree with the server's ``R[]`` fields. A record with ``RE`` (resign) or ``SC`` (the
declarer shows cards) is replayed on the table with ``concede=True``, the end of the game as the rules
core's concede / claim actions (see :func:`replay`); when the core's result then agrees with the
server's the game is ``complete`` with ``reason`` "resigned" or "shown cards". Games that ended early
otherwise (timeout, a player left, or an RE/SC the core cannot reproduce: then ``kept`` says why) or
were passed in come back with ``complete=False`` and a ``reason``; their value/won/points/tricks are
the server's. A move the server recorded as ``??`` (unknown: seen
in records where a player then left) ends the replay there; the record then needs its reason too.
Malformed records, illegal moves and disagreements raise :class:`IssError` naming the record id and
the move (index into ``moves`` and text).
``python -m envs.skat.iss FILE...`` replays files (plain, ``.gz`` or ``.bz2``) and prints counts; its
exit status is 1 when any record is an error, 2 when a file cannot be read. :data:`SAMPLE` is a small
file of real records that ships with the package.
"""

from __future__ import annotations

import argparse
import bz2
import gzip
import re
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from envs.skat import actions as A
from envs.skat.cards import CARD_NAMES, NULL, card, format_cards, mask_of
from envs.skat.iss_record import CARD as _CARD
from envs.skat.iss_record import Fail as _Fail
from envs.skat.iss_record import IssError, IssRecord, contract_label, parse
from envs.skat.iss_record import cards as _cards
from envs.skat.rules import ANSWER, DISCARD, DONE, PHASE_NAMES, PLAY, SKAT, SkatGame, SkatState
from envs.skat.rules.extras import CONCEDED
from envs.skat.scoring import matadors as count_matadors
from envs.skat.scoring import null_value

REASONS = ("passed in", "resigned", "shown cards", "timeout", "left")
SAMPLE = Path(__file__).parent / "data" / "iss_sample.txt"  # real ISS records (published in open-source clients)
UNKNOWN_MOVE = "??"
ERROR_MODES = ("raise", "skip")

_CONTRACT = re.compile(r"([GCSHDN])([HSZO]*)((?:\.[^.]+)*)")
_CARD_LIST = re.compile(r"[^.]+(?:\.[^.]+)+")
_GAME = SkatGame(scoring="classic")  # ISS charges classic scores: +value won, -2 x value lost
# Records with RE / SC: the same table with conceding and claiming (every other record keeps the ISkO table).
_CONCEDE_GAME = SkatGame(scoring="classic", concede=True)
RESIGN, SHOW_CARDS = "RE", "SC"

__all__ = ["ERROR_MODES", "REASONS", "SAMPLE", "IssError", "IssGame", "IssRecord", "contract_label", "iter_records",
           "main", "parse", "parse_file", "replay", "summarize"]


@dataclass(frozen=True)
class IssGame:
    """A replayed record. ``value`` is the signed score charged (+value won, -2 x value lost)."""

    id: str
    declarer: int | None
    contract: str | None  # as written, e.g. "D", "GH", "NO" (without discards)
    value: int
    won: bool
    declarer_points: int
    declarer_tricks: int
    matadors: int  # +n with, -n without, 0 for null or no contract
    complete: bool  # played until the rules core ended it (ten tricks, or null lost by a trick)
    reason: str | None  # None, or one of REASONS
    bid: int
    state: SkatState = field(repr=False, compare=False)
    record: IssRecord = field(repr=False, compare=False)
    kept: str | None = None  # an RE/SC record whose result the rules core does not reproduce: why (else None)


class _Replay:
    def __init__(self, record: IssRecord) -> None:
        self.rec, self.fail = record, _Fail(record.id)
        self.concede = any(tok == RESIGN or tok.startswith(SHOW_CARDS) for _, tok in record.moves)
        self.state = (_CONCEDE_GAME if self.concede else _GAME).state_from_deal(list(record.hands), record.skat)
        self.contract: str | None = None  # as written
        self.label: str | None = None
        self.pending = False  # declared after the pickup; the discards come in the next move
        self.expect_skat = False
        self.reason: str | None = None
        self.unknown: str | None = None  # the first move recorded as '??', as "seat ??"
        self.resigned: set[int] = set()  # defenders who said RE (ISS ends the game when both have)
        self.gave_up: str | None = None  # "declarer" or "defenders": the RE that ended the game on ISS
        self.gave_up_at: str | None = None  # that move, as "seat RE"
        self.played_on = False  # a move of the game followed that RE
        self.kept: str | None = None  # why the core cannot settle this RE/SC record (the server's result kept)

    def act(self, action: int) -> None:
        try:
            self.state.apply_action(action)
        except ValueError as e:
            self.fail(str(e))

    def run(self) -> None:
        for i, (who, tok) in enumerate(self.rec.moves):
            self.fail.index, self.fail.move = i, f"{who} {tok}"
            if who == "w":
                self.world(tok)
            else:
                self.move(int(who), tok)

    def end(self, reason: str) -> None:
        self.reason = self.reason or reason

    def world(self, tok: str) -> None:
        if tok[:3] in ("TI.", "LE."):
            if tok[3:] not in ("0", "1", "2"):
                self.fail(f"{tok[:2]} names no seat 0-2")
            self.end("timeout" if tok[:2] == "TI" else "left")
            return
        skat = _cards(tok.split("."), self.fail, "the skat shown")
        if not self.expect_skat:
            self.fail("a world move with cards is only expected right after the pickup 's'")
        if mask_of(skat) != self.state.original_skat:
            self.fail(f"the skat shown is {tok}, but the deal put {format_cards(self.state.original_skat)} there")
        self.expect_skat = False

    def move(self, seat: int, tok: str) -> None:
        st = self.state
        self.expect_skat = False
        if tok == UNKNOWN_MOVE:
            self.unknown = self.unknown or f"{seat} {tok}"
            return
        if self.unknown is not None and tok != RESIGN and tok != SHOW_CARDS and not tok.startswith("SC."):
            self.fail(f"a move after the unknown move {self.unknown!r} cannot be replayed")
        if tok == RESIGN:
            self.resign(seat)
            return
        if tok == SHOW_CARDS or tok.startswith("SC."):
            if seat != st.declarer:
                self.fail(f"seat {seat} is not the declarer and cannot show cards")
            self.end("shown cards")  # the cards are open from here; the defenders' RE then ends the game
            return
        if self.gave_up is not None:
            self.played_on = True
        if st.phase == DONE:
            self.fail("a move after the game is over")
        if seat != st.current_player:
            self.fail(f"seat {seat} moved, but it is seat {st.current_player}'s turn (phase {PHASE_NAMES[st.phase]})")
        if tok == "y":
            self.act(A.HOLD)
        elif tok == "p":
            self.act(A.PASS)
        elif tok.isascii() and tok.isdigit():
            if int(tok) not in A.BID_INDEX:
                self.fail(f"{tok} is not a Skat bid value")
            self.act(A.BID_INDEX[int(tok)])
        elif tok == "s":
            self.act(A.PICKUP)
            self.expect_skat = True
        elif _CARD.fullmatch(tok):
            self.act(A.PLAY + card(tok))
        elif m := _CONTRACT.fullmatch(tok):
            self.declare(m.group(1), m.group(2), _cards(m.group(3).split(".")[1:], self.fail, "the declaration"))
        elif _CARD_LIST.fullmatch(tok):
            self.card_list(_cards(tok.split("."), self.fail, "the card list"))
        else:
            self.fail("not an ISS move (bid, y, p, s, contract, card, SC, RE)")

    def resign(self, seat: int) -> None:
        """ISS's RE: the declarer gives up (the game ends, lost); a defender's counts once the other
        defender has said RE as well (the declarer then takes the remaining tricks). The core's action
        is taken at the end of the record (:meth:`settle`), where the game stopped."""
        st = self.state
        if st.phase == DONE:
            return  # after the last trick: nothing left to give up
        self.end("resigned")
        if self.gave_up is not None:
            return
        if seat == st.declarer:
            self.gave_up = "declarer"
        else:
            self.resigned.add(seat)
            if len(self.resigned) < 2:
                return
            self.gave_up = "defenders"
        self.gave_up_at = f"{seat} {RESIGN}"

    def settle(self) -> None:
        """Replay the RE that ended the game through the core's concede / claim actions, or say why not."""
        st = self.state
        if self.unknown is not None:
            self.kept = f"the replay stopped at the unknown move {self.unknown!r}"
        elif self.gave_up is None:
            self.kept = ("the declarer showed cards, but the defenders did not both resign" if self.reason ==
                         "shown cards" else "only one defender resigned")
        elif self.played_on:
            self.kept = f"the game went on after {self.gave_up_at!r}"
        elif st.phase != PLAY:
            self.kept = f"{self.gave_up_at!r} came in phase {PHASE_NAMES[st.phase]}, not during the card play"
        elif self.gave_up == "declarer":
            if st.current_player != st.declarer:
                self.kept = (f"the declarer resigned ({self.gave_up_at!r}) while seat {st.current_player} was on "
                             "turn: the rules core takes a concession only from the player on turn")
                return
            self.act(A.CONCEDE)  # holding nine cards or more it ends the game; later one defender approves
            if st.phase == ANSWER:
                self.act(A.ACCEPT)
        elif st.current_player == st.declarer:
            self.act(A.CLAIM)  # the declarer on turn claims the rest (shown cards or not); both defenders accept
            while st.phase == ANSWER:
                self.act(A.ACCEPT)
        else:
            self.act(A.CONCEDE)  # the defender on turn concedes the rest; the declarer accepts
            self.act(A.ACCEPT)

    def declare(self, kind: str, mods: str, cards: list[int]) -> None:
        st = self.state
        try:
            label = contract_label(kind, mods)
        except ValueError as e:
            self.fail(str(e))
        if self.contract is not None:
            self.fail(f"a second declaration (already {self.contract})")
        hand = A.CONTRACTS[A.CONTRACT_BY_LABEL[label]].hand
        if st.phase == SKAT:
            if not hand:
                self.fail(f"{kind + mods} is not a hand game, but the declarer did not pick up the skat ('s')")
            self.act(A.HAND)
        elif st.phase == DISCARD and hand:
            self.fail(f"{kind + mods} is a hand game, but the declarer picked up the skat")
        self.contract, self.label = kind + mods, label
        if st.phase == DISCARD:
            if not cards:
                self.pending = True  # the newer form: declaration, then the discards as their own move
                return
            if len(cards) < 2:
                self.fail("a declaration after the pickup names two discards or none")
            for c in cards[:2]:
                self.act(A.DISCARD + c)
            cards = cards[2:]
        self.finish_declare(cards)

    def finish_declare(self, shown: list[int]) -> None:
        st, label = self.state, self.label
        assert label is not None
        if shown and ("O" not in label or mask_of(shown) != st.hands[st.declarer]):
            self.fail(f"cards {'.'.join(CARD_NAMES[c] for c in shown)} after the declaration are neither "
                      "discards nor the open hand of an ouvert game")
        contract = A.CONTRACTS[A.CONTRACT_BY_LABEL[label]]
        if contract.game == NULL and null_value(contract) < st.bid:
            self.fail(f"null game {label} is worth {null_value(contract)}, below the bid {st.bid}: the server "
                      "accepted it, but the rules core does not allow declaring a null game below the bid")
        self.act(A.DECLARE + A.CONTRACT_BY_LABEL[label])

    def card_list(self, cards: list[int]) -> None:
        st = self.state
        if st.phase == DISCARD and len(cards) == 2:  # discards as their own move (before or after declaring)
            for c in cards:
                self.act(A.DISCARD + c)
            if self.pending:
                self.pending = False
                self.finish_declare([])
        elif not (self.label and "O" in self.label and st.declarer >= 0 and mask_of(cards) == st.hands[st.declarer]):
            self.fail("a list of cards that is neither the two discards nor an ouvert declarer's hand")

    def result_int(self, key: str, default: int) -> int:
        raw = self.rec.result.get(key)
        if raw is None:
            return default
        try:
            return int(raw)
        except ValueError:
            self.fail.index = self.fail.move = None
            self.fail(f"result field {key}:{raw} is not an integer")


def replay(line: str | IssRecord) -> IssGame:
    """Replay one record through the rules core, checking every move and, for complete games, the result.

    ISS's ``RE`` (resign) and ``SC`` (the declarer shows cards) are replayed with ``concede=True``: the
    declarer's RE is the declarer's ``concede`` (ending the game while holding nine cards or more, else
    approved by a defender); the defenders' RE ends the game once both have said it (ISS's rule; play may
    go on in between, and SC only opens the declarer's cards until then): the remaining tricks go to the
    declarer through the defender on turn's ``concede`` that the declarer accepts or, with the declarer on
    turn, the declarer's ``claim`` that both defenders accept (the core takes offers from the player on
    turn only). The core's result must then match ``R[]``; where it cannot be had (a declarer resigning
    off turn, one defender's RE only, a different score) the server's result is kept and ``kept`` says why."""
    rec = line if isinstance(line, IssRecord) else parse(line)
    r = _Replay(rec)
    r.run()
    st, res = r.state, rec.result
    r.fail.index = r.fail.move = None
    settled = r.concede and st.phase != DONE and not st.passed_in
    if settled:
        r.settle()
    declarer = st.declarer if st.declarer >= 0 else None
    if st.passed_in:
        return IssGame(rec.id, None, None, 0, False, 0, 0, 0, False, "passed in", 0, st, rec)
    if st.phase == DONE and r.kept is None:
        o = st.outcome
        assert o is not None and declarer is not None
        ours = {"d": declarer, "v": o.declarer_score, "m": o.matadors, "p": o.declarer_points, "t": o.declarer_tricks}
        x = st.x
        if x is not None and x.ending == CONCEDED and x.ended_by == declarer and st.trick_count < st.tricks_total:
            del ours["p"], ours["t"]  # conceded simply (holding nine cards): the rules count no points or tricks
        wrong = [f"{key}: the server says {res[key]}, the replay gives {val}" for key, val in ours.items()
                 if r.result_int(key, val) != val]
        if ("win" in res or "loss" in res) and ("win" in res) != o.won:
            wrong.append(f"win/loss: the server says {'win' if 'win' in res else 'loss'}, "
                         f"the replay gives {'win' if o.won else 'loss'}")
        if wrong and not settled:
            r.fail(f"result field {wrong[0]}")
        if wrong:
            r.kept = f"the server scores it differently (result field {wrong[0]})"
        else:
            return IssGame(rec.id, declarer, r.contract, o.declarer_score, o.won, o.declarer_points,
                           o.declarer_tricks, o.matadors, True, r.reason if settled else None, st.bid, st, rec)
    reason = r.reason
    if reason is None:
        if r.result_int("to", -1) >= 0:
            reason = "timeout"
        elif r.result_int("l", -1) >= 0:
            reason = "left"
        elif r.result_int("r", 0) == 1:
            reason = "resigned"
        else:
            stop = f"stops at the unknown move {r.unknown!r}" if r.unknown else "stops"
            r.fail(f"the record {stop} in phase {PHASE_NAMES[st.phase]} before the game is over and gives no "
                   "reason (no RE, SC, TI or LE)")
    mat = 0
    if r.label is not None and declarer is not None and r.label[0] != "N":
        mat = count_matadors("CSHDG".index(r.label[0]), st.dealt[declarer] | st.original_skat)
    return IssGame(rec.id, declarer, r.contract, r.result_int("v", 0), "win" in res, r.result_int("p", 0),
                   r.result_int("t", 0), mat, False, reason, st.bid, st, rec, r.kept if r.concede else None)


# --- files ----------------------------------------------------------------------------------
def _open(path: str | Path) -> IO[str]:
    opener = {".bz2": bz2.open, ".gz": gzip.open}.get(Path(path).suffix, open)
    return opener(path, "rt", encoding="utf-8", errors="replace")


def iter_records(path: str | Path, errors: str = "raise", error_log: list[IssError] | None = None) -> Iterator[IssGame]:
    """Replay a file of one record per line (blank lines skipped; ``.gz``/``.bz2`` read directly).

    ``errors="raise"`` stops at the first bad record; ``"skip"`` leaves it out and, when given,
    appends the IssError (its ``location`` set to ``file:line``) to ``error_log``."""
    if errors not in ERROR_MODES:
        raise ValueError(f"errors must be one of {ERROR_MODES}, got {errors!r}")
    with _open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                yield replay(line)
            except IssError as e:
                e.location = f"{path}:{n}"
                if errors == "raise":
                    raise
                if error_log is not None:
                    error_log.append(e)


def parse_file(path: str | Path, errors: str = "raise", error_log: list[IssError] | None = None) -> list[IssGame]:
    """All replays of a file as a list (see :func:`iter_records`)."""
    return list(iter_records(path, errors, error_log))


def summarize(games: Iterable[IssGame]) -> Counter[str]:
    """Counts: ``complete``, ``incomplete``, one per reason of the incomplete games, ``conceded`` (complete
    games whose RE / SC the core settled) and ``kept`` (RE / SC records whose result is the server's)."""
    counts: Counter[str] = Counter()
    for g in games:
        counts["complete" if g.complete else "incomplete"] += 1
        if g.reason:
            counts["conceded" if g.complete else g.reason] += 1
        if g.kept:
            counts["kept"] += 1
    return counts


def _progress(it: Iterator[IssGame], desc: str) -> Iterator[IssGame]:
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency, but optional here
        return it
    return iter(tqdm(it, desc=desc, unit=" rec", file=sys.stderr, disable=None))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m envs.skat.iss",
                                 description="Replay ISS game records, print counts. Exit status 1 when any record "
                                             "is an error, 2 when a file cannot be read.")
    ap.add_argument("files", nargs="+", help="files of one ISS record per line (plain, .gz or .bz2)")
    ap.add_argument("--show-errors", type=int, default=5, metavar="N", help="print the first N errors (default 5)")
    args = ap.parse_args(argv)
    counts: Counter[str] = Counter()
    errors: list[IssError] = []
    for path in args.files:
        try:
            counts += summarize(_progress(iter_records(path, "skip", errors), str(path)))
        except OSError as e:
            print(f"cannot read {path}: {e}", file=sys.stderr)
            return 2
    total = counts["complete"] + counts["incomplete"] + len(errors)
    print(f"records     {total}")
    print(f"complete    {counts['complete']}")
    if counts["conceded"]:
        print(f"  {'conceded:':<14}{counts['conceded']}  (RE / SC replayed as the rules core's concede / claim)")
    print(f"incomplete  {counts['incomplete']}")
    for reason in REASONS:
        if counts[reason]:
            print(f"  {reason + ':':<14}{counts[reason]}")
    print(f"kept        {counts['kept']}  (RE / SC records the rules core does not settle as the server did: "
          "the server's result kept)")
    print(f"errors      {len(errors)}")
    for e in errors[: args.show_errors]:
        print(f"  {e}")
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
