"""The observation of the games with cards on the table (and the other options the classic layout lacks).

The classic layout (``observation.py``, 1130 floats, ``OBSERVATION_VERSION`` 1) is what the shipped
checkpoints know; it has no place for table cards. A game that uses any option it does not describe
(``exchange`` widow / pool / switch, ``scoring="pot"``, ``ranking="brag"``, ``straight_flush``,
``max_rounds``: see ``options.CLASSIC_ONLY``) gets this layout instead: ``TABLE_OBS_SIZE = 1538``
floats, ``TABLE_OBSERVATION_VERSION`` 1, and the ``Discrete(73)`` action table of ``actions.py``.

Entries 0..1129 are the classic layout, built by ``observation_ref.encode_reference``, with these
meanings widened (and written here):

* planes "cards in the discard pile, last discarded by seat r" (156..623): also the face-up table
  cards, by the seat that put them there (the dealer for cards dealt face up);
* plane "card taken from the discard pile this turn" (104..155): every card taken from the discard
  pile or the table this turn (none of them may be put down again this turn);
* planes "cards seat r is known to hold" (624..1039): also face-up table cards a seat took, and at a
  Switch restart offer every hand (they are shown at the showdown);
* phase one-hot (1112..1114): the table phases TURN, MORE, RENEWED count as "draw", PLACE as "discard";
* own hand value (1123): ``value / 32``, or with ``ranking="brag"`` the brag value / ``BRAG_MAX``;
* lives (per seat): capped at 1 (in the pot game the lives option is the starting tokens).

Then, from 1130:

====================  =====  ===================================================================
offset                size   content
====================  =====  ===================================================================
1130 + 54 j, j=0..5   6x54   table slot j+1: 52 card one-hot (a face-up card, or a face-down card
                             the observer may see: the Switch dealer's second hand while choosing),
                             face down, occupied (widow / pool: slots 1..3; Switch: hand 1 = 1..3,
                             hand 2 = 4..6)
1454                  52     cards out of play seen face up (Switch: renewed table hands)
1506 + r, r=0..8      9      per relative seat: tokens / all tokens at the table (pot game)
1515                  1      pot / all tokens at the table
1516                  6      table phase one-hot: turn, place, choose, more, renewed, restart
1522                  3      exchange one-hot: widow, pool, switch
1525                  1      brag rankings
1526                  1      straight_flush / 31 (0 when not counted)
1527                  1      rounds played / max_rounds (0 when there is no cap)
1528                  1      switch_restart option
1529                  1      this round is a Switch restart
1530                  1      pot game
1531                  1      ante / starting tokens
1532 + j, j=0..5      6      slot j+1 already exchanged this turn (a widow exchange goes on)
====================  =====  ===================================================================

Nothing hidden is encoded: a face-down table card shows only "face down" (to the Switch dealer while
choosing, its second hand too), the stock not at all.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.thirtyone import layout as L
from envs.thirtyone.brag import BRAG_MAX
from envs.thirtyone.cards import NUM_CARDS, cards_of
from envs.thirtyone.observation_ref import encode_reference
from envs.thirtyone.phases import DISCARD, MORE, PLACE, RENEWED, THROW, TURN

TABLE_OBSERVATION_VERSION = 1
SLOT_SIZE = NUM_CARDS + 2
SLOTS = L.OBS_SIZE  # 1130
FACE_DOWN, OCCUPIED = NUM_CARDS, NUM_CARDS + 1
DEAD = SLOTS + 6 * SLOT_SIZE  # 1454
SEAT_TOKENS = DEAD + NUM_CARDS  # 1506
TG = SEAT_TOKENS + L.MAX_SEATS  # 1515
POT, TABLE_PHASE, EXCHANGE, BRAG, STRAIGHT, ROUNDS_CAP, RESTART_OPT, RESTARTED, POT_GAME, ANTE, EXCHANGED = (
    TG, TG + 1, TG + 7, TG + 10, TG + 11, TG + 12, TG + 13, TG + 14, TG + 15, TG + 16, TG + 17)
TABLE_OBS_SIZE = EXCHANGED + 6  # 1538
TABLE_PHASES = ("turn", "place", "choose", "more", "renewed", "restart")
EXCHANGE_NAMES = ("stock", "widow", "pool", "switch")


def encode_table(s: Any, seat: int) -> np.ndarray:
    """The table-layout observation of ``seat`` (a new float32 array)."""
    o, n = s.opts, s.n
    out = np.zeros(TABLE_OBS_SIZE, np.float32)
    out[: L.OBS_SIZE] = encode_reference(s, seat)
    owner = s.owner
    for j, c in enumerate(s.table):
        out[EXCHANGED + j] = s.exchanged >> j & 1
        if c < 0:
            continue
        base = SLOTS + SLOT_SIZE * j
        out[base + OCCUPIED] = 1.0
        if s.face_up[j]:
            out[base + c] = 1.0
            out[L.PILE_BY + 52 * ((owner[c] - seat) % n) + c] = 1.0
        else:
            out[base + FACE_DOWN] = 1.0
            if s.peek == seat and j < 3:
                out[base + c] = 1.0
    for c in cards_of(s.taken):
        out[L.LOCKED + c] = 1.0
    ph, cp = s.phase, s.current_player
    if ph in (TURN, MORE, RENEWED):
        out[L.PHASE + 1] = 1.0
    elif ph == PLACE:
        out[L.PHASE + 2] = 1.0
    if ph >= TURN:
        out[TABLE_PHASE + ph - TURN] = 1.0
    out[L.VALUE] = 0.0 if ph == THROW and seat == cp else _value(s, seat) / (BRAG_MAX if o.ranking == "brag" else 32.0)
    for c in cards_of(s.dead):
        out[DEAD + c] = 1.0
    if o.scoring == "pot":
        total = float(s.game.start_tokens * n)
        for t in range(n):
            out[SEAT_TOKENS + (t - seat) % n] = s.tokens[t] / total
        out[POT] = s.pot / total
        out[POT_GAME] = 1.0
        out[ANTE] = o.ante / s.game.start_tokens
    if s.tk:
        out[EXCHANGE + s.tk - 1] = 1.0
    out[BRAG] = o.ranking == "brag"
    out[STRAIGHT] = (o.straight_flush or 0) / 31.0
    out[ROUNDS_CAP] = min(s.round_no / o.max_rounds, 1.0) if o.max_rounds else 0.0
    out[RESTART_OPT] = o.switch_restart
    out[RESTARTED] = s.restarted
    return out


def _value(s: Any, seat: int) -> float:
    """The own hand's value; to act with four cards: the best after a legal discard or placement."""
    mask = s.hand_mask[seat]
    if seat == s.current_player and s.phase in (DISCARD, PLACE):
        barred = s.taken | (1 << s.locked if s.locked >= 0 else 0)
        return max(s.valuer.value(mask ^ (1 << c)) for c in s.hands[seat] if not barred >> c & 1)
    return s.valuer.value(mask)


class TableEncoder:
    """The env's encoder for the table layout (built from the state each time: these games are slower
    than the classic one anyway, and the batched engine covers only the classic game)."""

    def __init__(self, game: Any) -> None:
        self.game = game

    def encode(self, state: Any, seat: int) -> np.ndarray:
        return encode_table(state, seat)

    def applied(self, state: Any, seat: int, phase: int, action: int) -> None:
        pass


def decode_table(v: np.ndarray, info: dict[str, Any]) -> dict[str, Any]:
    """Add the table layout's fields to ``info`` (the classic fields of ``observation.decode``)."""
    slots = v[SLOTS:DEAD].reshape(6, SLOT_SIZE)
    table, face_down = [], []
    for row in slots:
        if row[OCCUPIED] < 0.5:
            table.append(-1)
            face_down.append(False)
            continue
        seen = np.flatnonzero(row[:NUM_CARDS] > 0.5)
        table.append(int(seen[0]) if seen.size else -1)
        face_down.append(bool(row[FACE_DOWN] > 0.5))
    phase = v[TABLE_PHASE:TABLE_PHASE + 6]
    exchange = v[EXCHANGE:EXCHANGE + 3]
    brag = bool(v[BRAG] > 0.5)
    info.update({
        "table": table,  # card id per slot (-1: empty or an unseen face-down card)
        "face_down": face_down,
        "occupied": [bool(row[OCCUPIED] > 0.5) for row in slots],
        "exchanged": [bool(x > 0.5) for x in v[EXCHANGED:EXCHANGED + 6]],
        "taken": [int(c) for c in np.flatnonzero(v[L.LOCKED:L.LOCKED + NUM_CARDS] > 0.5)],
        "dead": [int(c) for c in np.flatnonzero(v[DEAD:DEAD + NUM_CARDS] > 0.5)],
        "tokens": [float(x) for x in v[SEAT_TOKENS:SEAT_TOKENS + L.MAX_SEATS]],
        "pot": float(v[POT]),
        "table_phase": TABLE_PHASES[int(np.argmax(phase))] if phase.any() else None,
        "exchange": EXCHANGE_NAMES[1 + int(np.argmax(exchange))] if exchange.any() else "stock",
        "ranking": "brag" if brag else "thirty_one",
        "straight_flush": round(float(v[STRAIGHT]) * 31) or None,
        "rounds_cap": float(v[ROUNDS_CAP]),
        "switch_restart": bool(v[RESTART_OPT] > 0.5),
        "restarted": bool(v[RESTARTED] > 0.5),
        "pot_game": bool(v[POT_GAME] > 0.5),
    })
    if brag:
        info["value"] = round(float(v[L.VALUE]) * BRAG_MAX)
    return info
