"""Observation of one seat: everything that player may know about the deal, nothing more.

A float32 vector of :data:`OBSERVATION_SIZE`. Seats other than the observer are *relative*:
index 0 is the observer, 1 the player to its left (who plays after it), 2 the one after that.
Card sets are planes of 32 entries, one per card id 0..31 (see ``envs.skat.cards``); counts are
scaled to 0..1; one-hots are all zero when there is nothing to say (no declarer yet, ...).

The layout is the table :data:`LAYOUT` (a test checks this copy of it)::

    offset size  field        content
    0      32    hand         own hand
    32     32    skat_put     the skat as this player knows it: the cards it put away (declarer after pickup)
    64     32    skat_taken   the skat it picked up (declarer after pickup)
    96     96    played       cards played so far, per relative seat 0, 1, 2 (32 each)
    192    96    trick        the card each relative seat has in the current trick (32 each)
    288    32    open_hand    the declarer's hand, open in ouvert games (zero otherwise)
    320    3     position     own position one-hot: forehand, middlehand, rearhand
    323    8     phase        phase one-hot: auction, skat, discard, declare, kontra, re, play, done
    331    1     bid          highest bid so far / 264
    332    3     max_call     highest call (bid or hold) per relative seat / 264
    335    3     passed       passed in the auction, per relative seat
    338    3     called       made or held a call, per relative seat
    341    3     bidder       the current caller (bidder), relative one-hot (auction only)
    344    3     listener     the current listener, relative one-hot (auction only)
    347    3     declarer     declarer, relative one-hot
    350    6     game_type    game type one-hot: clubs, spades, hearts, diamonds, grand, null
    356    1     ramsch       a Ramsch is played (from the play phase on)
    357    1     hand_game    hand game
    358    1     schneider    schneider announced
    359    1     schwarz      schwarz announced
    360    1     ouvert       ouvert
    361    1     kontra       kontra said
    362    1     re           re said
    363    3     card_points  card points taken per relative seat / 120
    366    3     tricks_won   tricks taken per relative seat / 10
    369    1     trick_count  tricks completed / 10
    370    3     leader       leader of the current trick, relative one-hot (play only)
    373    1     ramsch_on    table option: Ramsch when all pass
    374    1     kontra_on    table option: Kontra and Re
    375    1     tournament   table option: tournament (Seeger-Fabian) scoring
    376    15    voids        shown void (failed to follow) per relative seat (5 each): effective suit C S H D, trump

:func:`observe` builds a vector from the state, :class:`ObservationEncoder` keeps the three
seats' vectors current incrementally (what the env serves), :func:`decode` reads one back into
named fields (what the rule agent and tools use); ``envs.skat.observation_ref`` is the slow
entry-by-entry reference the tests hold both encoders to.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from envs.skat.actions import MAX_BID
from envs.skat.cards import CARD_NAMES, GAME_NAMES, NUM_CARDS, TOTAL_POINTS, format_cards
from envs.skat.rules import AUCTION, DONE, PHASE_NAMES, PLAY, POSITION_NAMES, SkatState
from envs.skat.tables import HAND_SIZE

OBSERVATION_VERSION = 2  # bump when the layout or a scaling changes: checkpoints record it
TRICKS_PER_DEAL = HAND_SIZE
NUM_EFFECTIVE_SUITS = 5  # C S H D and trump, as in ``envs.skat.cards.EFF_SUIT``


class Field(NamedTuple):
    name: str
    offset: int
    size: int
    content: str


_FIELDS: tuple[tuple[str, int, str], ...] = (
    ("hand", NUM_CARDS, "own hand"),
    ("skat_put", NUM_CARDS, "the skat as this player knows it: the cards it put away (declarer after pickup)"),
    ("skat_taken", NUM_CARDS, "the skat it picked up (declarer after pickup)"),
    ("played", 3 * NUM_CARDS, "cards played so far, per relative seat 0, 1, 2 (32 each)"),
    ("trick", 3 * NUM_CARDS, "the card each relative seat has in the current trick (32 each)"),
    ("open_hand", NUM_CARDS, "the declarer's hand, open in ouvert games (zero otherwise)"),
    ("position", len(POSITION_NAMES), "own position one-hot: " + ", ".join(POSITION_NAMES)),
    ("phase", len(PHASE_NAMES), "phase one-hot: " + ", ".join(PHASE_NAMES)),
    ("bid", 1, f"highest bid so far / {MAX_BID}"),
    ("max_call", 3, f"highest call (bid or hold) per relative seat / {MAX_BID}"),
    ("passed", 3, "passed in the auction, per relative seat"),
    ("called", 3, "made or held a call, per relative seat"),
    ("bidder", 3, "the current caller (bidder), relative one-hot (auction only)"),
    ("listener", 3, "the current listener, relative one-hot (auction only)"),
    ("declarer", 3, "declarer, relative one-hot"),
    ("game_type", len(GAME_NAMES), "game type one-hot: " + ", ".join(GAME_NAMES)),
    ("ramsch", 1, "a Ramsch is played (from the play phase on)"),
    ("hand_game", 1, "hand game"),
    ("schneider", 1, "schneider announced"),
    ("schwarz", 1, "schwarz announced"),
    ("ouvert", 1, "ouvert"),
    ("kontra", 1, "kontra said"),
    ("re", 1, "re said"),
    ("card_points", 3, f"card points taken per relative seat / {TOTAL_POINTS}"),
    ("tricks_won", 3, f"tricks taken per relative seat / {TRICKS_PER_DEAL}"),
    ("trick_count", 1, f"tricks completed / {TRICKS_PER_DEAL}"),
    ("leader", 3, "leader of the current trick, relative one-hot (play only)"),
    ("ramsch_on", 1, "table option: Ramsch when all pass"),
    ("kontra_on", 1, "table option: Kontra and Re"),
    ("tournament", 1, "table option: tournament (Seeger-Fabian) scoring"),
    ("voids", 3 * NUM_EFFECTIVE_SUITS,
     "shown void (failed to follow) per relative seat (5 each): effective suit C S H D, trump"),
)


def _layout() -> dict[str, Field]:
    out, offset = {}, 0
    for name, size, content in _FIELDS:
        out[name] = Field(name, offset, size, content)
        offset += size
    return out


LAYOUT: dict[str, Field] = _layout()
"""Every field of the vector, in order: name -> (name, offset, size, content)."""

# The offsets by name, for the encoders and the decoder (a test checks each against LAYOUT).
(HAND, SKAT_PUT, SKAT_TAKEN, PLAYED, TRICK, OPEN_HAND, POSITION, PHASE, BID, MAX_CALL, PASSED, CALLED, BIDDER,
 LISTENER, DECLARER, GAME_TYPE, RAMSCH, HAND_GAME, SCHNEIDER, SCHWARZ, OUVERT, KONTRA, RE, CARD_POINTS, TRICKS_WON,
 TRICK_COUNT, LEADER, RAMSCH_ON, KONTRA_ON, TOURNAMENT, VOIDS) = (f.offset for f in LAYOUT.values())
OBSERVATION_SIZE = sum(f.size for f in LAYOUT.values())
SCALAR_OFFSET = POSITION  # the card planes come first, the scalars after them
NUM_PLANES = SCALAR_OFFSET // NUM_CARDS
NUM_SCALARS = OBSERVATION_SIZE - SCALAR_OFFSET


def layout_table() -> str:
    """The layout as the text table of the module docstring."""
    rows = ["offset size  field        content"]
    rows += [f"{f.offset:<6} {f.size:<5} {f.name:<12} {f.content}" for f in LAYOUT.values()]
    return "\n".join(rows)


_INV_BID = 1.0 / MAX_BID
_REL = ((0, 1, 2), (2, 0, 1), (1, 2, 0))  # _REL[observer][position] = relative index
_POS = ((0, 1, 2), (1, 2, 0), (2, 0, 1))  # _POS[observer][relative] = position
_SKAT_PUT_P, _SKAT_TAKEN_P = SKAT_PUT // NUM_CARDS, SKAT_TAKEN // NUM_CARDS  # plane indices
_PLAYED_P, _TRICK_P, _OPEN_HAND_P = PLAYED // NUM_CARDS, TRICK // NUM_CARDS, OPEN_HAND // NUM_CARDS
# The scalars that are not 0/1 flags, in the order observe() writes them.
_COUNTS = np.array([BID, *range(MAX_CALL, MAX_CALL + 3), *range(CARD_POINTS, CARD_POINTS + 3),
                    *range(TRICKS_WON, TRICKS_WON + 3), TRICK_COUNT])


def observe(state: SkatState, p: int) -> np.ndarray:
    """The observation vector of position ``p`` (0 forehand, 1 middlehand, 2 rearhand)."""
    pos = _POS[p]
    rel = _REL[p]
    contract = state.contract
    declarer = state.declarer
    phase = state.phase
    planes = [0] * NUM_PLANES
    planes[HAND // NUM_CARDS] = state.hands[p]
    if declarer == p and state.skat_taken:
        planes[_SKAT_PUT_P] = state.skat
        planes[_SKAT_TAKEN_P] = state.original_skat
    played = state.played
    for r in range(3):
        planes[_PLAYED_P + r] = played[pos[r]]
    trick = state.trick
    if trick:
        leader = state.leader
        for i, c in enumerate(trick):
            planes[_TRICK_P + rel[(leader + i) % 3]] = 1 << c
    if contract is not None and contract.ouvert and phase >= PLAY:
        planes[_OPEN_HAND_P] = state.hands[declarer]
    out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    out[:SCALAR_OFFSET] = np.unpackbits(np.array(planes, dtype="<u4").view(np.uint8), bitorder="little")

    # The 0/1 flags set, as one list of offsets; then the counts.
    ones = [POSITION + p, PHASE + phase]
    passed, called = state.passed, state.called
    for r in range(3):
        q = pos[r]
        if passed[q]:
            ones.append(PASSED + r)
        if called[q]:
            ones.append(CALLED + r)
    if phase == AUCTION:
        ones.append(BIDDER + rel[state.bidder])
        ones.append(LISTENER + rel[state.listener])
    if declarer >= 0:
        ones.append(DECLARER + rel[declarer])
    if contract is not None:
        ones.append(GAME_TYPE + contract.game)
        for flag, offset in ((contract.hand, HAND_GAME), (contract.schneider, SCHNEIDER),
                             (contract.schwarz, SCHWARZ), (contract.ouvert, OUVERT)):
            if flag:
                ones.append(offset)
    elif phase >= PLAY and state.rules.ramsch:
        ones.append(RAMSCH)
    if state.doubling > 1:
        ones.append(KONTRA)
        if state.doubling > 2:
            ones.append(RE)
    if phase == PLAY:
        ones.append(LEADER + rel[state.leader])
    rules = state.rules
    if rules.ramsch:
        ones.append(RAMSCH_ON)
    if rules.kontra:
        ones.append(KONTRA_ON)
    if rules.scoring == "tournament":
        ones.append(TOURNAMENT)
    voids = state.voids
    for r in range(3):
        v = voids[pos[r]]
        while v:
            low = v & -v
            ones.append(VOIDS + NUM_EFFECTIVE_SUITS * r + low.bit_length() - 1)
            v ^= low
    out[ones] = 1.0
    max_call, points, tricks = state.max_call, state.points, state.tricks_won
    out[_COUNTS] = (
        state.bid * _INV_BID, max_call[pos[0]] * _INV_BID, max_call[pos[1]] * _INV_BID, max_call[pos[2]] * _INV_BID,
        points[pos[0]] / TOTAL_POINTS, points[pos[1]] / TOTAL_POINTS, points[pos[2]] / TOTAL_POINTS,
        tricks[pos[0]] / TRICKS_PER_DEAL, tricks[pos[1]] / TRICKS_PER_DEAL, tricks[pos[2]] / TRICKS_PER_DEAL,
        state.trick_count / TRICKS_PER_DEAL,
    )
    return out


class ObservationEncoder:
    """Keeps the three seats' observation vectors current as a deal advances.

    Card play (three quarters of all decisions) touches a handful of entries, so it is applied
    incrementally; the rare other actions rebuild with :func:`observe`. ``tests`` check that both
    paths always agree.
    """

    __slots__ = ("vectors",)

    def __init__(self) -> None:
        self.vectors = np.zeros((3, OBSERVATION_SIZE), dtype=np.float32)

    def refresh(self, state: SkatState) -> None:
        for p in range(3):
            self.vectors[p] = observe(state, p)

    def after_auction(self, state: SkatState, p: int) -> None:
        """Update after position ``p`` bid, held or passed; a change of phase rebuilds everything."""
        if state.phase != AUCTION:
            self.refresh(state)
            return
        v = self.vectors
        bid = state.bid * _INV_BID
        call = state.max_call[p] * _INV_BID
        passed = float(state.passed[p])
        called = float(state.called[p])
        for q in range(3):
            row = v[q]
            rel = _REL[q]
            r = rel[p]
            row[BID] = bid
            row[MAX_CALL + r] = call
            row[PASSED + r] = passed
            row[CALLED + r] = called
            row[BIDDER:BIDDER + 3] = 0.0
            row[LISTENER:LISTENER + 3] = 0.0
            row[BIDDER + rel[state.bidder]] = 1.0
            row[LISTENER + rel[state.listener]] = 1.0

    def after_play(self, state: SkatState, p: int, card: int) -> None:
        """Update after position ``p`` played ``card`` (the state is already advanced)."""
        v = self.vectors
        v[p, HAND + card] = 0.0  # left the hand
        shown = state.voids[p]
        if shown:  # a void shown by this card (rare): set it in every row
            for q in range(3):
                base = VOIDS + NUM_EFFECTIVE_SUITS * _REL[q][p]
                for e in range(NUM_EFFECTIVE_SUITS):
                    if shown >> e & 1:
                        v[q, base + e] = 1.0
        ouvert = state.contract is not None and state.contract.ouvert
        for q in range(3):
            v[q, PLAYED + NUM_CARDS * _REL[q][p] + card] = 1.0
            if ouvert and p == state.declarer:
                v[q, OPEN_HAND + card] = 0.0
        if state.trick:  # the trick goes on: the card lies in it
            for q in range(3):
                v[q, TRICK + NUM_CARDS * _REL[q][p] + card] = 1.0
            return
        # The trick is complete: clear it and refresh the counters that changed.
        v[:, TRICK:TRICK + 3 * NUM_CARDS] = 0.0
        if state.phase == DONE:
            self.refresh(state)
            return
        points = [x / TOTAL_POINTS for x in state.points]
        tricks = [x / TRICKS_PER_DEAL for x in state.tricks_won]
        tc = state.trick_count / TRICKS_PER_DEAL
        for q in range(3):
            row = v[q]
            a, b, c = _POS[q]
            row[CARD_POINTS], row[CARD_POINTS + 1], row[CARD_POINTS + 2] = points[a], points[b], points[c]
            row[TRICKS_WON], row[TRICKS_WON + 1], row[TRICKS_WON + 2] = tricks[a], tricks[b], tricks[c]
            row[TRICK_COUNT] = tc
            row[LEADER:LEADER + 3] = 0.0
            row[LEADER + _REL[q][state.leader]] = 1.0


# --- decoding ---------------------------------------------------------------------------------
_S = SCALAR_OFFSET  # a view keeps the scalars as a list starting here


def _one_hot(s: list[float], offset: int, size: int) -> int:
    """The index set in a one-hot field, -1 when none is."""
    block = s[offset - _S: offset - _S + size]
    return block.index(1.0) if 1.0 in block else -1


def _planes(offset: int, n: int = 1) -> property:  # a card plane as a bit set, or a list of n of them
    i = offset // NUM_CARDS
    return property(lambda v: v.words[i]) if n == 1 else property(lambda v: v.words[i:i + n])


def _one_hot_field(offset: int, size: int) -> property:  # the index set, -1 if none
    return property(lambda v: _one_hot(v.s, offset, size))


def _flag(offset: int) -> property:
    return property(lambda v: v.s[offset - _S] > 0.5)


def _flags(offset: int) -> property:  # one flag per relative seat
    return property(lambda v: [x > 0.5 for x in v.s[offset - _S:offset - _S + 3]])


def _count(offset: int, scale: int) -> property:
    return property(lambda v: round(v.s[offset - _S] * scale))


def _counts(offset: int, scale: int) -> property:  # one count per relative seat
    return property(lambda v: [round(x * scale) for x in v.s[offset - _S:offset - _S + 3]])


class SkatView:
    """What a seat knows, decoded from its observation vector (the rule agent's and tools' view).

    Card sets are bit sets (ints); seats are relative (0 = the observer, 1 = next, 2 = the one
    after); one-hot fields read as the index set, -1 when none is (``declarer`` and ``game_type``
    before the declaration and in Ramsch, ``leader`` outside card play). Decoding costs two numpy
    calls; each field is read from them on access, so a player pays only for the fields it reads.
    """

    __slots__ = ("words", "s")

    def __init__(self, vector: np.ndarray) -> None:
        v = np.asarray(vector)
        self.words: list[int] = np.packbits(v[:SCALAR_OFFSET] > 0.5, bitorder="little").view("<u4").tolist()
        self.s: list[float] = v[SCALAR_OFFSET:].tolist()

    hand = _planes(HAND)
    skat_put = _planes(SKAT_PUT)
    skat_taken = _planes(SKAT_TAKEN)
    played = _planes(PLAYED, 3)
    trick = _planes(TRICK, 3)  # the card (as a bit set, 0 if none) each relative seat has in the trick
    open_hand = _planes(OPEN_HAND)
    position = _one_hot_field(POSITION, len(POSITION_NAMES))
    phase = _one_hot_field(PHASE, len(PHASE_NAMES))
    bid = _count(BID, MAX_BID)
    max_call = _counts(MAX_CALL, MAX_BID)
    passed = _flags(PASSED)
    called = _flags(CALLED)
    bidder = _one_hot_field(BIDDER, 3)
    listener = _one_hot_field(LISTENER, 3)
    declarer = _one_hot_field(DECLARER, 3)
    game_type = _one_hot_field(GAME_TYPE, len(GAME_NAMES))
    ramsch = _flag(RAMSCH)
    hand_game = _flag(HAND_GAME)
    schneider = _flag(SCHNEIDER)
    schwarz = _flag(SCHWARZ)
    ouvert = _flag(OUVERT)
    kontra = _flag(KONTRA)
    re = _flag(RE)
    card_points = _counts(CARD_POINTS, TOTAL_POINTS)
    tricks_won = _counts(TRICKS_WON, TRICKS_PER_DEAL)
    trick_count = _count(TRICK_COUNT, TRICKS_PER_DEAL)
    leader = _one_hot_field(LEADER, 3)

    @property
    def trick_order(self) -> list[int]:
        """The cards of the current trick in play order (the leader's first)."""
        leader = self.leader
        if leader < 0:
            return []
        out = []
        for i in range(3):
            x = self.words[_TRICK_P + (leader + i) % 3]
            if x:
                out.append(x.bit_length() - 1)
        return out

    @property
    def voids(self) -> list[int]:
        """Per relative seat: bit set of the effective suits (0-3 C S H D, 4 trump) it has shown void in."""
        block = self.s[VOIDS - _S:VOIDS - _S + 3 * NUM_EFFECTIVE_SUITS]
        out = [0, 0, 0]
        if 1.0 in block:
            for i, x in enumerate(block):
                if x > 0.5:
                    out[i // NUM_EFFECTIVE_SUITS] |= 1 << i % NUM_EFFECTIVE_SUITS
        return out

    @property
    def options(self) -> dict[str, bool]:
        """The table options: ramsch, kontra, tournament scoring."""
        s = self.s
        return {"ramsch": s[RAMSCH_ON - _S] > 0.5, "kontra": s[KONTRA_ON - _S] > 0.5,
                "tournament": s[TOURNAMENT - _S] > 0.5}

    def as_dict(self) -> dict:
        """Every field by name."""
        return {k: getattr(self, k) for k, v in vars(SkatView).items() if isinstance(v, property)}

    def __repr__(self) -> str:  # card sets in card notation
        def show(k: str, v: object) -> str:
            if k in ("hand", "skat_put", "skat_taken", "open_hand"):
                return repr(format_cards(v))
            if k in ("played", "trick"):
                return repr([format_cards(x) for x in v])
            if k == "trick_order":
                return repr([CARD_NAMES[c] for c in v])
            return repr(v)

        return "SkatView(" + ", ".join(f"{k}={show(k, v)}" for k, v in self.as_dict().items()) + ")"


def decode(vector: np.ndarray) -> SkatView:
    """The named fields of an observation vector (see :class:`SkatView`)."""
    return SkatView(vector)
