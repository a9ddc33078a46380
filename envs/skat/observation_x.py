"""The observations of the extended tables: one named layout per table kind, each with a version.

The ISkO table keeps its frozen vector (``envs.skat.observation``, layout ``skat3`` version 2).
Every other table observes one of these float32 vectors (:data:`LAYOUTS`), all built by one
builder so the field names mean the same everywhere:

* ``skat3x`` (three-handed, 3 seat slots): relative seats 0 = the observer, 1 = the next player
  to its left, 2 = the one after;
* ``skat4`` (four-handed, 4 seat slots): relative seats 0..3 round the table; the dealer sits the
  deal out (its slot shows no cards; ``position`` says "sitting out" when the observer deals);
* ``skat2`` (two-handed, 3 slots): 0 = the observer, 1 = the opponent, 2 = the dummy hand
  (Strohmann, Oma, dummy; empty in Officers' Skat).

Card planes have 36 entries (card ids of ``envs.skat.pack``: the 32 cards, then the sixes of
Sechserskat). Counts are scaled to 0..1; one-hots are all zero when there is nothing to say. The
table's options are flags of the vector, so one policy can tell tables apart. What a seat sees of
the hands and the skat is ``envs.skat.rules.views`` (the leak tests check every table). A list's
progress and scores are the last fields (zero in single-deal episodes).

The fields of ``skat3x`` (``skat2`` is the same vector; ``skat4`` has the same fields with four slots
each: ``LAYOUTS["skat4"].table_text()``; a test checks this copy)::

    offset size  field          content
    0      36    hand           own hand as this seat sees it (Idiotenskat: empty; Officers: face-up cards)
    36     36    skat_put       the cards this seat put into the skat
    72     36    skat_taken     the skat cards this seat picked up
    108    36    skat_shown     skat cards shown to this seat (Tournee's turned cards)
    144    108   played         cards played so far, per relative seat 0 me, 1 left, 2 right
    252    108   trick          the card each slot has in the current trick (relative seat 0 me, 1 left, 2 right)
    360    108   open           other hands' cards seen (ouvert, Strohmann, Idiotenskat, Officers, Revolution)
    468    4     position       own position one-hot: forehand, middlehand, rearhand, sitting out
    472    3     dealer         the dealer, one-hot by slot
    475    3     to_act         the slot whose decision this is (a dummy played by the observer: the dummy's slot)
    478    15    phase          phase one-hot (rules.ALL_PHASE_NAMES: auction ... exchange)
    493    1     bid            highest bid so far / 264
    494    3     max_call       highest call per slot / 264
    497    3     passed         passed in the auction, per slot
    500    3     called         made or held a call, per slot
    503    3     bidder         the current caller, one-hot (auction only)
    506    3     listener       the current listener, one-hot (auction only)
    509    3     declarer       declarer, one-hot
    512    6     game_type      game type one-hot: clubs, spades, hearts, diamonds, grand, null
    518    1     ramsch         a Ramsch is played
    519    1     hand_game      hand game (North American: solo)
    520    1     schneider      schneider announced
    521    1     schwarz        schwarz announced
    522    1     ouvert         ouvert
    523    1     revolution     a Revolution is played
    524    4     doubling       kontra, re, supra, resupra said
    528    4     mode           North American mode: tournee, passt mir nicht, guckser, solo
    532    3     pushed         Schieberamsch: pushed the skat on untouched, per slot
    535    3     took_skat      Schieberamsch: took the skat, per slot
    538    2     offer          a pending concession or claim: concede, claim
    540    3     offerer        who offered it, one-hot
    543    6     fixed_game     Raeuberskat: this deal's contract, one-hot
    549    3     card_points    card points taken per slot / 120
    552    3     tricks_won     tricks taken per slot / tricks of a deal
    555    1     trick_count    tricks completed / tricks of a deal
    556    3     leader         leader of the current trick, one-hot (play only)
    559    3     hand_count     cards held per slot / (hand size + skat size)
    562    3     hidden_count   Officers' Skat: face-down cards per slot / 8
    565    15    voids          shown void (failed to follow) per slot (5 each): C S H D, trump
    580    26    options        table options (OPTION_FLAGS: ramsch_on ... rewards_at_end)
    606    1     exchange_limit Revolution: cards the defenders may exchange / 10
    607    1     list_progress  deals of the list played / deals of the list
    608    3     total_plus     list total per slot, positive part / 1000 (capped at 1)
    611    3     total_minus    list total per slot, negative part / 1000 (capped at 1)
    614    3     recorded       Bierskat: points recorded against each slot / the target (capped at 1)
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from envs.skat.actions import ALL_BID_VALUES, CONCEDE
from envs.skat.cards import GAME_NAMES, TOTAL_POINTS
from envs.skat.rules import views
from envs.skat.rules.state import ALL_PHASE_NAMES, ANSWER, AUCTION, DONE, PLAY, SkatState
from envs.skat.rules.table import SITTING_OUT

NUM_PLANE_CARDS = 36
MAX_BID = ALL_BID_VALUES[-1]
SCORE_SCALE = 1000.0  # list totals: positive and negative parts / 1000, capped at 1
OPTION_FLAGS = (
    ("ramsch_on", "Ramsch when all pass"), ("kontra_on", "Kontra and Re"), ("tournament", "Seeger-Fabian scoring"),
    ("supra_on", "Supra and Resupra"), ("concede_on", "conceding and claiming"), ("revolution_on", "Revolution"),
    ("ramsch_only", "every deal a Ramsch"), ("schieberamsch", "Schieberamsch"), ("ramsch_all", "Ramsch: all lose"),
    ("ramsch_fixed", "Ramsch: fixed 15/20"), ("gewinner", "Gewinner-Ramsch"), ("jungfrau", "Jungfrau doubles"),
    ("durchmarsch", "Durchmarsch wins"), ("tens_low", "Ramsch tens below Q, K"), ("tens_one", "Ramsch tens count 1"),
    ("tournee_rules", "North American skat"), ("pack36", "36 cards"), ("idiot", "Idiotenskat"),
    ("dummy_unused", "dummy hand unused"), ("dummy_open", "Strohmann"), ("dummy_stack", "Oma"),
    ("officers", "Officers' Skat"), ("sequence", "Raeuberskat"), ("list", "a list of deals"), ("bierskat", "Bierskat"),
    ("rewards_at_end", "list rewards at the end"),
)


class Field(NamedTuple):
    name: str
    offset: int
    size: int
    content: str


class Layout:
    """One table kind's vector: fields by name (:class:`Field`), its name, version and seat slots."""

    def __init__(self, name: str, version: int, slots: int, seats_text: str) -> None:
        self.name, self.version, self.slots = name, version, slots
        R, N = slots, NUM_PLANE_CARDS
        spec = [
            ("hand", N, "own hand as this seat sees it (Idiotenskat: empty; Officers: face-up cards)"),
            ("skat_put", N, "the cards this seat put into the skat"),
            ("skat_taken", N, "the skat cards this seat picked up"),
            ("skat_shown", N, "skat cards shown to this seat (Tournee's turned cards)"),
            ("played", R * N, f"cards played so far, per {seats_text}"),
            ("trick", R * N, f"the card each slot has in the current trick ({seats_text})"),
            ("open", R * N, "other hands' cards seen (ouvert, Strohmann, Idiotenskat, Officers, Revolution)"),
            ("position", 4, "own position one-hot: forehand, middlehand, rearhand, sitting out"),
            ("dealer", R, "the dealer, one-hot by slot"),
            ("to_act", R, "the slot whose decision this is (a dummy played by the observer: the dummy's slot)"),
            ("phase", len(ALL_PHASE_NAMES), "phase one-hot (rules.ALL_PHASE_NAMES: auction ... exchange)"),
            ("bid", 1, f"highest bid so far / {MAX_BID}"),
            ("max_call", R, f"highest call per slot / {MAX_BID}"),
            ("passed", R, "passed in the auction, per slot"),
            ("called", R, "made or held a call, per slot"),
            ("bidder", R, "the current caller, one-hot (auction only)"),
            ("listener", R, "the current listener, one-hot (auction only)"),
            ("declarer", R, "declarer, one-hot"),
            ("game_type", len(GAME_NAMES), "game type one-hot: " + ", ".join(GAME_NAMES)),
            ("ramsch", 1, "a Ramsch is played"),
            ("hand_game", 1, "hand game (North American: solo)"),
            ("schneider", 1, "schneider announced"),
            ("schwarz", 1, "schwarz announced"),
            ("ouvert", 1, "ouvert"),
            ("revolution", 1, "a Revolution is played"),
            ("doubling", 4, "kontra, re, supra, resupra said"),
            ("mode", 4, "North American mode: tournee, passt mir nicht, guckser, solo"),
            ("pushed", R, "Schieberamsch: pushed the skat on untouched, per slot"),
            ("took_skat", R, "Schieberamsch: took the skat, per slot"),
            ("offer", 2, "a pending concession or claim: concede, claim"),
            ("offerer", R, "who offered it, one-hot"),
            ("fixed_game", len(GAME_NAMES), "Raeuberskat: this deal's contract, one-hot"),
            ("card_points", R, f"card points taken per slot / {TOTAL_POINTS}"),
            ("tricks_won", R, "tricks taken per slot / tricks of a deal"),
            ("trick_count", 1, "tricks completed / tricks of a deal"),
            ("leader", R, "leader of the current trick, one-hot (play only)"),
            ("hand_count", R, "cards held per slot / (hand size + skat size)"),
            ("hidden_count", R, "Officers' Skat: face-down cards per slot / 8"),
            ("voids", 5 * R, "shown void (failed to follow) per slot (5 each): C S H D, trump"),
            ("options", len(OPTION_FLAGS), "table options (OPTION_FLAGS: ramsch_on ... rewards_at_end)"),
            ("exchange_limit", 1, "Revolution: cards the defenders may exchange / 10"),
            ("list_progress", 1, "deals of the list played / deals of the list"),
            ("total_plus", R, f"list total per slot, positive part / {SCORE_SCALE:.0f} (capped at 1)"),
            ("total_minus", R, f"list total per slot, negative part / {SCORE_SCALE:.0f} (capped at 1)"),
            ("recorded", R, "Bierskat: points recorded against each slot / the target (capped at 1)"),
        ]
        self.fields: dict[str, Field] = {}
        offset = 0
        for fname, size, content in spec:
            self.fields[fname] = Field(fname, offset, size, content)
            offset += size
        self.size = offset
        self.planes = self.fields["position"].offset // N

    def table_text(self) -> str:
        rows = ["offset size  field          content"]
        rows += [f"{f.offset:<6} {f.size:<5} {f.name:<14} {f.content}" for f in self.fields.values()]
        return "\n".join(rows)

    def __repr__(self) -> str:
        return f"Layout({self.name!r} v{self.version}, {self.size} entries)"


LAYOUTS: dict[str, Layout] = {
    "skat3x": Layout("skat3x", 1, 3, "relative seat 0 me, 1 left, 2 right"),
    "skat4": Layout("skat4", 1, 4, "relative seat 0 me, 1 left, 2 opposite, 3 right"),
    "skat2": Layout("skat2", 1, 3, "slot 0 me, 1 the opponent, 2 the dummy hand"),
}


def layout_for(table: Any) -> Layout:
    """The layout of an extended table (``envs.skat.rules.Table``)."""
    if table.seats == 4:
        return LAYOUTS["skat4"]
    if table.seats == 2:
        return LAYOUTS["skat2"]
    return LAYOUTS["skat3x"]


class ListInfo(NamedTuple):
    """A list's state by table seat, for the observation (``envs.skat.series``)."""

    progress: float
    totals: list[float]
    recorded: list[float]  # Bierskat, as a fraction of the target


def slots_of(s: SkatState, viewer_seat: int, dealer: int) -> tuple[list[int], int]:
    """(slot of each position 0..2 and 3 (the four-player dealer), the viewer's position)."""
    t = s.table
    viewer = t.position_of(viewer_seat, dealer)
    if t.seats == 3:
        return [(q - viewer) % 3 for q in range(3)] + [-1], viewer
    out = []
    for q in range(4):
        if q == t.dummy:
            out.append(2)
        elif q == SITTING_OUT and t.seats != 4:
            out.append(-1)
        else:
            out.append((t.seat_of(q, dealer) - viewer_seat) % t.seats)
    return out, viewer


def observe(s: SkatState, viewer_seat: int, dealer: int, info: ListInfo | None = None) -> np.ndarray:
    """The observation vector of table seat ``viewer_seat`` when seat ``dealer`` deals."""
    t, x, o = s.table, s.x, s.options
    L = layout_for(t)
    F = L.fields
    N = NUM_PLANE_CARDS
    slot, viewer = slots_of(s, viewer_seat, dealer)
    out = np.zeros(L.size, dtype=np.float32)
    planes = [0] * L.planes
    seen = views.open_hands(s, viewer)
    if viewer < 3:
        planes[0] = seen[viewer]
    planes[1], planes[2], planes[3] = views.skat_known(s, viewer)
    p_played, p_trick, p_open = F["played"].offset // N, F["trick"].offset // N, F["open"].offset // N
    for q in range(3):
        r = slot[q]
        if r < 0:
            continue
        planes[p_played + r] = s.played[q]
        if q != viewer:
            planes[p_open + r] = seen[q]
    for i, c in enumerate(s.trick):
        planes[p_trick + slot[(s.leader + i) % s.trick_size]] |= 1 << c
    bits = np.array(planes, dtype="<u8").view(np.uint8).reshape(-1, 8)[:, :5]
    out[:L.planes * N] = np.unpackbits(bits, axis=1, bitorder="little")[:, :N].reshape(-1)

    ones = [F["position"].offset + viewer, F["phase"].offset + s.phase]
    ones.append(F["dealer"].offset + (dealer - viewer_seat) % t.seats)
    cp = s.current_player
    if 0 <= cp < 3:
        ones.append(F["to_act"].offset + slot[cp])
    for q in range(3):
        r = slot[q]
        if r < 0:
            continue
        if s.passed[q]:
            ones.append(F["passed"].offset + r)
        if s.called[q]:
            ones.append(F["called"].offset + r)
        for e in range(5):
            if s.voids[q] >> e & 1:
                ones.append(F["voids"].offset + 5 * r + e)
        out[F["max_call"].offset + r] = s.max_call[q] / MAX_BID
        out[F["card_points"].offset + r] = s.points[q] / TOTAL_POINTS
        out[F["tricks_won"].offset + r] = s.tricks_won[q] / t.tricks
        out[F["hand_count"].offset + r] = s.hands[q].bit_count() / (t.hand_size + t.skat_size)
        if t.officers:
            out[F["hidden_count"].offset + r] = x.hidden[q].bit_count() / 8
        if x.schiebe_taken >> q & 1:
            ones.append(F["took_skat"].offset + r)
    if s.phase == AUCTION:
        ones += [F["bidder"].offset + slot[s.bidder], F["listener"].offset + slot[s.listener]]
    if s.declarer >= 0:
        ones.append(F["declarer"].offset + slot[s.declarer])
    c = s.contract
    if c is not None:
        ones.append(F["game_type"].offset + c.game)
        for flag, name in ((c.hand, "hand_game"), (c.schneider, "schneider"), (c.schwarz, "schwarz"),
                           (c.ouvert, "ouvert"), (c.revolution, "revolution")):
            if flag:
                ones.append(F[name].offset)
    elif s.phase in (PLAY, DONE) and not s.passed_in:
        ones.append(F["ramsch"].offset)
    for k, level in enumerate((2, 4, 8, 16)):
        if s.doubling >= level:
            ones.append(F["doubling"].offset + k)
    if x.mode:
        ones.append(F["mode"].offset + x.mode - 1)
    _pushes(s, slot, F, ones)
    if x.offer is not None and s.phase == ANSWER:
        kind, offerer, _ = x.offer
        ones += [F["offer"].offset + (0 if kind == CONCEDE else 1), F["offerer"].offset + slot[offerer]]
    if x.fixed_game >= 0:
        ones.append(F["fixed_game"].offset + x.fixed_game)
    if s.phase in (PLAY, ANSWER):
        ones.append(F["leader"].offset + slot[s.leader])
    ones += [F["options"].offset + i for i, on in enumerate(_option_flags(o, t)) if on]
    out[ones] = 1.0
    out[F["bid"].offset] = s.bid / MAX_BID
    out[F["trick_count"].offset] = s.trick_count / t.tricks
    out[F["exchange_limit"].offset] = o.revolution_exchange / 10 if o.revolution else 0.0
    if info is not None:
        out[F["list_progress"].offset] = info.progress
        for seat in range(t.seats):
            r = (seat - viewer_seat) % t.seats
            total = info.totals[seat]
            out[F["total_plus"].offset + r] = min(max(total, 0.0) / SCORE_SCALE, 1.0)
            out[F["total_minus"].offset + r] = min(max(-total, 0.0) / SCORE_SCALE, 1.0)
            out[F["recorded"].offset + r] = min(info.recorded[seat], 1.0)
    return out


def _pushes(s: SkatState, slot: list[int], F: dict[str, Field], ones: list[int]) -> None:
    """Schieberamsch: the positions that pushed the skat on untouched (decided, and did not take it)."""
    x = s.x
    if not s.options.schieberamsch or (x.schiebe_pos < 0 and not x.pushes):
        return
    decided = range(x.schiebe_pos) if x.schiebe_pos >= 0 else range(3)
    for q in decided:
        if not x.schiebe_taken >> q & 1:
            ones.append(F["pushed"].offset + slot[q])


def _option_flags(o: Any, t: Any) -> tuple[bool, ...]:
    return (o.ramsch, o.kontra, o.scoring == "tournament", o.supra, o.concede, o.revolution, o.ramsch_only,
            o.schieberamsch, o.ramsch_scoring == "all", o.ramsch_scoring == "fixed", o.ramsch_scoring == "gewinner",
            o.jungfrau, o.durchmarsch, o.ramsch_tens != "high", o.ramsch_tens == "one", o.tournee, o.pack == 36,
            o.idiot, o.dummy == "unused", o.dummy == "open", o.dummy == "stack", o.officers, o.sequence is not None,
            o.episode == "list", o.bierskat, o.list_rewards == "end")



# --- decoding ---------------------------------------------------------------------------------------
class TableView:
    """The fields of an extended table's observation vector, read back by name (tools and the rule agent).

    Card planes come back as bit sets (card ids as in ``envs.skat.pack``), one-hots as the index set
    (-1 when none is), per-slot fields as lists by slot."""

    __slots__ = ("layout", "words", "values")

    def __init__(self, vector: np.ndarray, layout: Layout | None = None) -> None:
        v = np.asarray(vector, dtype=np.float32)
        self.layout = layout if layout is not None else layout_of_vector(v)
        n = self.layout.planes * NUM_PLANE_CARDS
        bits = (v[:n] > 0.5).reshape(-1, NUM_PLANE_CARDS)
        packed = np.packbits(np.pad(bits, ((0, 0), (0, 64 - NUM_PLANE_CARDS))), axis=1, bitorder="little")
        self.words: list[int] = packed.view("<u8").reshape(-1).tolist()
        self.values: list[float] = v.tolist()

    def plane(self, name: str, slot: int = 0) -> int:
        return self.words[self.layout.fields[name].offset // NUM_PLANE_CARDS + slot]

    def planes(self, name: str) -> list[int]:
        return [self.plane(name, r) for r in range(self.layout.slots)]

    def raw(self, name: str) -> list[float]:
        f = self.layout.fields[name]
        return self.values[f.offset:f.offset + f.size]

    def one_hot(self, name: str) -> int:
        block = self.raw(name)
        return block.index(1.0) if 1.0 in block else -1

    def flag(self, name: str, i: int = 0) -> bool:
        return self.raw(name)[i] > 0.5

    def flags(self, name: str) -> list[bool]:
        return [x > 0.5 for x in self.raw(name)]

    def counts(self, name: str, scale: float) -> list[int]:
        return [round(x * scale) for x in self.raw(name)]

    @property
    def options(self) -> dict[str, bool]:
        return {n: on for (n, _), on in zip(OPTION_FLAGS, self.flags("options"), strict=True)}

    def __repr__(self) -> str:
        return f"TableView({self.layout.name}, phase={ALL_PHASE_NAMES[self.one_hot('phase')]})"


def layout_of_vector(vector: np.ndarray) -> Layout:
    """The layout an observation vector was made with (its length; the two-handed and three-handed
    vectors have one shape and differ in their table flags)."""
    n = len(vector)
    if n == LAYOUTS["skat4"].size:
        return LAYOUTS["skat4"]
    if n != LAYOUTS["skat3x"].size:
        raise ValueError(f"not an extended Skat observation: {n} entries (skat3x/skat2 {LAYOUTS['skat3x'].size}, "
                         f"skat4 {LAYOUTS['skat4'].size})")
    f = LAYOUTS["skat2"].fields["options"]
    names = [n for n, _ in OPTION_FLAGS]
    two = any(vector[f.offset + names.index(k)] > 0.5 for k in ("dummy_unused", "dummy_open", "dummy_stack",
                                                                  "officers"))
    return LAYOUTS["skat2"] if two else LAYOUTS["skat3x"]


def decode(vector: np.ndarray) -> TableView:
    return TableView(vector)
