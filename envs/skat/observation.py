"""Observation of one seat: everything that player may know about the deal, nothing more.

A float32 vector of :data:`OBSERVATION_SIZE`. Seats other than the observer are *relative*:
index 0 is the observer, 1 the player to its left (who plays after it), 2 the one after that.

Card planes (10 x 32, one entry per card id 0..31, see ``envs.skat.cards``)::

    0    own hand
    1    the skat as this player knows it: the two cards it put away (declarer after pickup)
    2    the skat it picked up (declarer after pickup)
    3-5  cards played so far by relative seat 0, 1, 2
    6-8  the card each relative seat has in the current trick
    9    the declarer's hand, open in ouvert games (zero otherwise)

Scalars (71), starting at offset 320::

    320  own position one-hot: forehand, middlehand, rearhand (3)
    323  phase one-hot: auction, skat, discard, declare, kontra, re, play, done (8)
    331  highest bid so far / 264 (1)
    332  highest call (bid or hold) of each relative seat / 264 (3)
    335  passed in the auction, per relative seat (3)
    338  made or held a call, per relative seat (3)
    341  the current caller (bidder), relative one-hot (3)
    344  the current listener, relative one-hot (3)
    347  declarer, relative one-hot (3)
    350  game type one-hot: clubs, spades, hearts, diamonds, grand, null (6)
    356  ramsch (1)
    357  hand, schneider announced, schwarz announced, ouvert (4)
    361  kontra, re (2)
    363  card points taken per relative seat / 120 (3)
    366  tricks taken per relative seat / 10 (3)
    369  tricks completed / 10 (1)
    370  leader of the current trick, relative one-hot (3)
    373  table options: ramsch on, kontra on, tournament scoring (3)
    376  shown void (failed to follow), per relative seat x effective suit C S H D trump (15)
"""

from __future__ import annotations

import numpy as np

from envs.skat.actions import MAX_BID
from envs.skat.rules import AUCTION, DONE, PLAY, SkatState

OBSERVATION_VERSION = 2
NUM_PLANES = 10
SCALAR_OFFSET = NUM_PLANES * 32
NUM_SCALARS = 71
OBSERVATION_SIZE = SCALAR_OFFSET + NUM_SCALARS

_INV_BID = 1.0 / MAX_BID
_REL = ((0, 1, 2), (2, 0, 1), (1, 2, 0))  # _REL[observer][position] = relative index
_POS = ((0, 1, 2), (1, 2, 0), (2, 0, 1))  # _POS[observer][relative] = position


def observe(state: SkatState, p: int) -> np.ndarray:
    """The observation vector of position ``p`` (0 forehand, 1 middlehand, 2 rearhand)."""
    pos = _POS[p]
    rel = _REL[p]
    contract = state.contract
    declarer = state.declarer
    planes = [state.hands[p], 0, 0, state.played[pos[0]], state.played[pos[1]], state.played[pos[2]], 0, 0, 0, 0]
    if declarer == p and state.skat_taken:
        planes[1] = state.skat
        planes[2] = state.original_skat
    trick = state.trick
    if trick:
        leader = state.leader
        for i, c in enumerate(trick):
            planes[6 + rel[(leader + i) % 3]] = 1 << c
    if contract is not None and contract.ouvert and state.phase >= PLAY:
        planes[9] = state.hands[declarer]
    out = np.empty(OBSERVATION_SIZE, dtype=np.float32)
    out[:SCALAR_OFFSET] = np.unpackbits(np.array(planes, dtype="<u4").view(np.uint8), bitorder="little")

    s = [0.0] * NUM_SCALARS
    s[p] = 1.0
    phase = state.phase
    s[3 + phase] = 1.0
    s[11] = state.bid * _INV_BID
    max_call, passed, called = state.max_call, state.passed, state.called
    for r in range(3):
        q = pos[r]
        s[12 + r] = max_call[q] * _INV_BID
        s[15 + r] = float(passed[q])
        s[18 + r] = float(called[q])
    if phase == AUCTION:
        s[21 + rel[state.bidder]] = 1.0
        s[24 + rel[state.listener]] = 1.0
    if declarer >= 0:
        s[27 + rel[declarer]] = 1.0
    if contract is not None:
        s[30 + contract.game] = 1.0
        s[37] = float(contract.hand)
        s[38] = float(contract.schneider)
        s[39] = float(contract.schwarz)
        s[40] = float(contract.ouvert)
    elif phase >= PLAY and state.rules.ramsch:
        s[36] = 1.0
    if state.doubling > 1:
        s[41] = 1.0
        s[42] = float(state.doubling > 2)
    points, tricks = state.points, state.tricks_won
    for r in range(3):
        q = pos[r]
        s[43 + r] = points[q] / 120.0
        s[46 + r] = tricks[q] / 10.0
    s[49] = state.trick_count / 10.0
    if phase == PLAY:
        s[50 + rel[state.leader]] = 1.0
    rules = state.rules
    s[53] = float(rules.ramsch)
    s[54] = float(rules.kontra)
    s[55] = float(rules.scoring == "tournament")
    voids = state.voids
    for r in range(3):
        v = voids[pos[r]]
        while v:
            low = v & -v
            s[56 + 5 * r + low.bit_length() - 1] = 1.0
            v ^= low
    out[SCALAR_OFFSET:] = s
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
        base = SCALAR_OFFSET
        bid = state.bid * _INV_BID
        call = state.max_call[p] * _INV_BID
        passed = float(state.passed[p])
        called = float(state.called[p])
        for q in range(3):
            row = v[q]
            rel = _REL[q]
            r = rel[p]
            row[base + 11] = bid
            row[base + 12 + r] = call
            row[base + 15 + r] = passed
            row[base + 18 + r] = called
            row[base + 21: base + 27] = 0.0
            row[base + 21 + rel[state.bidder]] = 1.0
            row[base + 24 + rel[state.listener]] = 1.0

    def after_play(self, state: SkatState, p: int, card: int) -> None:
        """Update after position ``p`` played ``card`` (the state is already advanced)."""
        v = self.vectors
        v[p, card] = 0.0  # left the hand
        shown = state.voids[p]
        if shown:  # a void shown by this card (rare): set it in every row
            for q in range(3):
                base = SCALAR_OFFSET + 56 + 5 * _REL[q][p]
                for e in range(5):
                    if shown >> e & 1:
                        v[q, base + e] = 1.0
        ouvert = state.contract is not None and state.contract.ouvert
        for q in range(3):
            r = _REL[q][p]
            v[q, (3 + r) * 32 + card] = 1.0
            if ouvert and p == state.declarer:
                v[q, 9 * 32 + card] = 0.0
        if state.trick:  # the trick goes on: the card lies in it
            for q in range(3):
                v[q, (6 + _REL[q][p]) * 32 + card] = 1.0
            return
        # The trick is complete: clear it and refresh the counters that changed.
        for q in range(3):
            row = v[q]
            row[6 * 32: 9 * 32] = 0.0
        if state.phase == DONE:
            self.refresh(state)
            return
        points, tricks = state.points, state.tricks_won
        tc = state.trick_count / 10.0
        for q in range(3):
            row = v[q]
            pos = _POS[q]
            base = SCALAR_OFFSET
            row[base + 43] = points[pos[0]] / 120.0
            row[base + 44] = points[pos[1]] / 120.0
            row[base + 45] = points[pos[2]] / 120.0
            row[base + 46] = tricks[pos[0]] / 10.0
            row[base + 47] = tricks[pos[1]] / 10.0
            row[base + 48] = tricks[pos[2]] / 10.0
            row[base + 49] = tc
            row[base + 50: base + 53] = 0.0
            row[base + 50 + _REL[q][state.leader]] = 1.0


class SkatView:
    """What a seat knows, decoded from its observation vector (for rule-based agents and tools).

    Card sets are bit sets; seats are relative (0 = the observer, 1 = next, 2 = the one after)."""

    __slots__ = ("hand", "skat_put", "skat_taken", "played", "trick", "open_hand", "position", "phase", "bid",
                 "max_call", "passed", "called", "declarer", "game", "ramsch", "hand_game", "schneider",
                 "schwarz", "ouvert", "kontra", "re", "points", "tricks", "trick_count", "leader", "trick_order",
                 "options", "voids")

    def __init__(self, vector: np.ndarray) -> None:
        bits = (np.asarray(vector[:SCALAR_OFFSET]) > 0.5).astype(np.uint8)
        words = np.packbits(bits, bitorder="little").view("<u4").tolist()
        self.hand, self.skat_put, self.skat_taken = words[0], words[1], words[2]
        self.played = words[3:6]
        self.trick = words[6:9]  # the card (as a bit set) each relative seat has in the current trick
        self.open_hand = words[9]
        s = np.asarray(vector[SCALAR_OFFSET:], dtype=np.float64)
        self.position = int(np.argmax(s[0:3]))
        self.phase = int(np.argmax(s[3:11]))
        self.bid = int(round(s[11] * MAX_BID))
        self.max_call = [int(round(x * MAX_BID)) for x in s[12:15]]
        self.passed = [bool(x) for x in s[15:18]]
        self.called = [bool(x) for x in s[18:21]]
        self.declarer = int(np.argmax(s[27:30])) if s[27:30].any() else -1
        self.game = int(np.argmax(s[30:36])) if s[30:36].any() else -1
        self.ramsch = bool(s[36])
        self.hand_game, self.schneider, self.schwarz, self.ouvert = (bool(x) for x in s[37:41])
        self.kontra, self.re = bool(s[41]), bool(s[42])
        self.points = [int(round(x * 120)) for x in s[43:46]]
        self.tricks = [int(round(x * 10)) for x in s[46:49]]
        self.trick_count = int(round(s[49] * 10))
        self.leader = int(np.argmax(s[50:53])) if s[50:53].any() else -1
        self.options = {"ramsch": bool(s[53]), "kontra": bool(s[54]), "tournament": bool(s[55])}
        # per relative seat: bit set of effective suits (0-3 C S H D, 4 trump) it has shown void in
        self.voids = [sum(1 << e for e in range(5) if s[56 + 5 * r + e] > 0.5) for r in range(3)]
        # Cards in the current trick in play order (the leader first).
        order = []
        if self.leader >= 0:
            for i in range(3):
                w = self.trick[(self.leader + i) % 3]
                if w:
                    order.append(w.bit_length() - 1)
        self.trick_order = order


def decode(vector: np.ndarray) -> SkatView:
    return SkatView(vector)
