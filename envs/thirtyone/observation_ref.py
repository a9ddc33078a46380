"""The reference Thirty-One observation: built from the state alone, entry by entry (slow, simple).

The layout is documented in ``observation.py``; its offsets live in ``layout.py``.

It is also the first 1130 entries of the table layout (``observation_table``), which adds the table
cards and overwrites the few entries it documents.

:class:`envs.thirtyone.observation.ObservationEncoder` keeps the vectors incrementally for speed;
tests check that it always equals :func:`encode_reference` bit for bit. The float formulas here
(``turn * (1 / (10 * active))``, ``min(score / target, 1)``, ...) are the ones the shipped
checkpoints were trained on: change them only together with ``OBSERVATION_VERSION``.
"""

from __future__ import annotations

import numpy as np

from envs.thirtyone import layout as L
from envs.thirtyone.rules import DISCARD, OVER, THROW, ThirtyOneState


def encode_reference(state: ThirtyOneState, seat: int) -> np.ndarray:
    """The observation vector of ``seat`` (see the layout in ``observation.py``)."""
    o, n, s = state.opts, state.n, state
    out = np.zeros(L.OBS_SIZE, np.float32)
    ph, cp = s.phase, s.current_player
    hidden = ph == THROW and seat == cp
    if not hidden:
        for c in s.hands[seat]:
            out[L.HAND + c] = 1.0
    if s.pile:
        out[L.TOP + s.pile[-1]] = 1.0
    for c in s.pile:
        out[L.PILE_BY + 52 * ((s.owner[c] - seat) % n) + c] = 1.0
    if s.locked >= 0:
        out[L.LOCKED + s.locked] = 1.0
    for t in range(n):
        if t != seat:
            for c in range(52):
                if s.known[t] >> c & 1:
                    out[L.HELD_BY + 52 * ((t - seat) % n - 1) + c] = 1.0
    points = o.scoring == "points"
    for t in range(n):
        base = L.SEATS + ((t - seat) % n) * L.SEAT_FEATURES
        out[base + L.PRESENT] = 1.0
        out[base + L.OUT] = not s.alive[t]
        out[base + L.LIVES] = min(s.lives(t) / float(o.lives), 1.0)  # the pot game: tokens may grow
        out[base + L.COUNTY] = s.on_county(t)
        out[base + L.KNOCKED] = t == s.knocker
        out[base + L.DEALER] = t == s.dealer
        out[base + L.SCORE] = min(s.scores[t] / float(o.target_score), 1.0) if points else 0.0
        out[base + L.TO_ACT] = t == cp
    if ph < OVER:  # the classic phases (the table layout encodes its own)
        out[L.PHASE + ph] = 1.0
    out[L.STOCK] = len(s.stock) / 52.0
    out[L.PILE] = len(s.pile) / 52.0
    out[L.ANY_KNOCK] = s.knocker >= 0
    active = len(s.seats)
    out[L.TURN] = s.turn_no / 100.0 if s.turn_no < 100 else 1.0
    out[L.LAP] = min(s.turn_no * (1.0 / (10.0 * active)), 1.0)
    out[L.ROUND] = min(s.round_no / 30.0, 1.0)
    out[L.ACTIVE] = active / 9.0
    out[L.PLAYERS] = n / 9.0
    if not hidden:
        if ph == DISCARD and seat == cp:
            out[L.VALUE] = s.valuer.best_after_discard(s.hand_mask[seat], s.locked) / 32.0
        else:
            out[L.VALUE] = s.valuer.value(s.hand_mask[seat]) / 32.0
    out[L.MIN_KNOCK] = (o.min_knock_score or 0) / 31.0
    out[L.DECK32] = o.deck == 32
    out[L.POINTS] = points
    out[L.ROUND_EP] = o.episode == "round"
    out[L.THREE_KIND] = (o.three_of_a_kind or 0) / 31.0
    out[L.THREE_ACES] = o.three_aces is not None
    return out
