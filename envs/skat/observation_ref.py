"""The reference Skat observation: built from the state alone, entry by entry (slow, simple).

:func:`envs.skat.observation.observe` (a whole vector at once) and its ``ObservationEncoder``
(kept up to date move by move, what the env serves) are the fast ones; tests check that both
always equal :func:`encode_reference` bit for bit. The scalings here (``bid / 264``,
``points / 120``, ...) are the ones the shipped checkpoints were trained on: change them only
together with ``OBSERVATION_VERSION``.
"""

from __future__ import annotations

import numpy as np

from envs.skat import observation as L
from envs.skat.actions import MAX_BID
from envs.skat.cards import NUM_CARDS, TOTAL_POINTS, cards_of
from envs.skat.rules import AUCTION, PLAY, SkatState


def encode_reference(state: SkatState, p: int) -> np.ndarray:
    """The observation vector of position ``p`` (see the layout in ``observation.py``)."""
    out = np.zeros(L.OBSERVATION_SIZE, np.float32)

    def cards(offset: int, mask: int) -> None:
        for c in cards_of(mask):
            out[offset + c] = 1.0

    def relative(q: int) -> int:  # how many places position q sits to the left of p
        return (q - p) % 3

    s = state
    cards(L.HAND, s.hands[p])
    if s.declarer == p and s.skat_taken:
        cards(L.SKAT_PUT, s.skat)
        cards(L.SKAT_TAKEN, s.original_skat)
    for q in range(3):
        cards(L.PLAYED + NUM_CARDS * relative(q), s.played[q])
    for i, c in enumerate(s.trick):
        out[L.TRICK + NUM_CARDS * relative((s.leader + i) % 3) + c] = 1.0
    if s.contract is not None and s.contract.ouvert and s.phase >= PLAY:
        cards(L.OPEN_HAND, s.hands[s.declarer])

    out[L.POSITION + p] = 1.0
    out[L.PHASE + s.phase] = 1.0
    inv_bid = 1.0 / MAX_BID  # bids are scaled by multiplying with the inverse, as trained
    out[L.BID] = s.bid * inv_bid
    for q in range(3):
        r = relative(q)
        out[L.MAX_CALL + r] = s.max_call[q] * inv_bid
        out[L.PASSED + r] = s.passed[q]
        out[L.CALLED + r] = s.called[q]
        out[L.CARD_POINTS + r] = s.points[q] / TOTAL_POINTS
        out[L.TRICKS_WON + r] = s.tricks_won[q] / L.TRICKS_PER_DEAL
        for e in range(L.NUM_EFFECTIVE_SUITS):
            out[L.VOIDS + L.NUM_EFFECTIVE_SUITS * r + e] = s.voids[q] >> e & 1
    if s.phase == AUCTION:
        out[L.BIDDER + relative(s.bidder)] = 1.0
        out[L.LISTENER + relative(s.listener)] = 1.0
    if s.declarer >= 0:
        out[L.DECLARER + relative(s.declarer)] = 1.0
    if s.contract is not None:
        out[L.GAME_TYPE + s.contract.game] = 1.0
        out[L.HAND_GAME] = s.contract.hand
        out[L.SCHNEIDER] = s.contract.schneider
        out[L.SCHWARZ] = s.contract.schwarz
        out[L.OUVERT] = s.contract.ouvert
    out[L.RAMSCH] = s.contract is None and s.phase >= PLAY and s.rules.ramsch
    out[L.KONTRA] = s.doubling > 1  # 2 after Kontra, 4 after Re
    out[L.RE] = s.doubling > 2
    out[L.TRICK_COUNT] = s.trick_count / L.TRICKS_PER_DEAL
    if s.phase == PLAY:
        out[L.LEADER + relative(s.leader)] = 1.0
    out[L.RAMSCH_ON] = s.rules.ramsch
    out[L.KONTRA_ON] = s.rules.kontra
    out[L.TOURNAMENT] = s.rules.scoring == "tournament"
    return out
