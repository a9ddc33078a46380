"""State + seat -> the float32 observation vector of Thirty-One, and :func:`decode` for rule agents.

The layout is the same for every seat, player count (2..9) and option set: seats are *relative*
(``r`` = how many places to the observer's left, ``r = 0`` is the observer), and seats a table does
not have are zero with ``present = 0``. ``OBS_SIZE = 1130``:

====================  =====  ===================================================================
offset                size   content (cards are one-hot over the 52 card ids of ``cards.py``)
====================  =====  ===================================================================
0                     52     own hand (3 cards, 4 between draw and discard; zeros while the
                             first player makes the throw-down choice before looking)
52                    52     top card of the discard pile
104                   52     card taken from the discard pile this turn (may not be discarded)
156 + 52 r, r=0..8    9x52   cards in the discard pile, last discarded by seat r (the turned-up
                             card counts as the dealer's; cleared when the pile is reshuffled)
624 + 52 (r-1), r=1..8 8x52  cards seat r is known to hold (taken from the discard pile and not
                             discarded since)
1040 + 8 r, r=0..8    9x8    per seat: present, out (eliminated), lives / lives option,
                             on the county, knocked, dealer, points / target score (capped at
                             1), to act
1112                  3      phase one-hot: throw-down choice, draw, discard
1115                  1      stock size / 52
1116                  1      discard pile size / 52
1117                  1      somebody has knocked this round
1118                  1      turns this round / 100 (capped at 1)
1119                  1      laps this round (turns / players in the round) / 10 (capped at 1)
1120                  1      rounds played in this game / 30 (capped at 1)
1121                  1      players still in / 9
1122                  1      players at the table / 9
1123                  1      own hand value / 32 (between draw and discard: best after a legal
                             discard)
1124                  1      min_knock_score / 31 (0 when there is none)
1125                  1      32-card deck
1126                  1      points game
1127                  1      round episodes
1128                  1      three_of_a_kind / 31 (0 when not counted)
1129                  1      three_aces counted as 32
====================  =====  ===================================================================

Nothing hidden is encoded: other hands appear only as far as their cards were seen (taken from the
discard pile), the stock not at all.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.thirtyone.cards import NUM_CARDS
from envs.thirtyone.rules import DISCARD, OVER, THROW, ThirtyOneGame, ThirtyOneState

MAX_SEATS = 9
NUM_PLANES = 3 + MAX_SEATS + (MAX_SEATS - 1)
HAND, TOP, LOCKED, PILE_BY, HELD_BY = 0, 52, 104, 156, 624
SEATS = NUM_PLANES * NUM_CARDS  # 1040
SEAT_FEATURES = 8
PRESENT, OUT, LIVES, COUNTY, KNOCKED, DEALER, SCORE, TO_ACT = range(SEAT_FEATURES)
GLOBAL = SEATS + MAX_SEATS * SEAT_FEATURES  # 1112
(PHASE, STOCK, PILE, ANY_KNOCK, TURN, LAP, ROUND, ACTIVE, PLAYERS, VALUE, MIN_KNOCK, DECK32, POINTS,
 ROUND_EP, THREE_KIND, THREE_ACES) = (GLOBAL + i for i in (0, *range(3, 18)))  # fmt: skip
OBS_SIZE = GLOBAL + 18  # 1130
OBSERVATION_VERSION = 1  # bump when the layout changes: checkpoints record it


class ObservationEncoder:
    """Encodes states of one game (fixed options).

    Copies a per-seat template cached for the round (no cards, the seat block, the constant global
    features) and writes only the few one-hot cards and the changing scalars by index.
    """

    def __init__(self, game: ThirtyOneGame) -> None:
        o = game.options
        self.n = game.num_players
        self.valuer = game.valuer
        self._lives = float(o.lives)
        self._target = float(o.target_score)
        self._points = o.scoring == "points"
        self._tail = (
            (o.min_knock_score or 0) / 31.0,
            float(o.deck == 32),
            float(self._points),
            float(o.episode == "round"),
            (o.three_of_a_kind or 0) / 31.0,
            float(o.three_aces is not None),
        )
        self._cache_state: ThirtyOneState | None = None
        self._cache_version = -1
        self._templates: list[np.ndarray | None] = [None] * self.n
        n = self.n
        self._pile_off = [[PILE_BY + 52 * ((s - seat) % n) for s in range(n)] for seat in range(n)]
        self._held_off = [[HELD_BY + 52 * ((s - seat) % n - 1) for s in range(n)] for seat in range(n)]
        self._pad = np.zeros(SEAT_FEATURES * (MAX_SEATS - self.n), np.float32)
        self._no_cards = np.zeros(SEATS, np.float32)
        self._rows: list[np.ndarray] = []
        self._constant = np.zeros(OBS_SIZE - GLOBAL, np.float32)
        self._lap_scale = 0.1

    def encode(self, state: ThirtyOneState, seat: int) -> np.ndarray:
        n = self.n
        ph = state.phase
        cp = state.current_player
        if state is not self._cache_state or state.pub_version != self._cache_version:
            self._new_round(state)
        template = self._templates[seat]
        if template is None:
            template = self._templates[seat] = self._template(seat)
        out = template.copy()
        hidden = ph == THROW and seat == cp
        if not hidden:
            for c in state.hands[seat]:
                out[c] = 1.0
        pile = state.pile
        if pile:
            out[TOP + pile[-1]] = 1.0
            owner = state.owner
            off = self._pile_off[seat]
            for c in pile:
                out[off[owner[c]] + c] = 1.0
        if state.locked >= 0:
            out[LOCKED + state.locked] = 1.0
        held_off = self._held_off[seat]
        for s, m in enumerate(state.known):
            if m and s != seat:
                base = held_off[s]
                while m:
                    low = m & -m
                    m ^= low
                    out[base + low.bit_length() - 1] = 1.0
        if cp >= 0:
            out[SEATS + ((cp - seat) % n) * SEAT_FEATURES + TO_ACT] = 1.0
        if state.knocker >= 0:
            out[SEATS + ((state.knocker - seat) % n) * SEAT_FEATURES + KNOCKED] = 1.0
            out[ANY_KNOCK] = 1.0
        if ph != OVER:
            out[PHASE + ph] = 1.0  # THROW, DRAW, DISCARD are 0, 1, 2
        out[STOCK] = len(state.stock) / 52.0
        out[PILE] = len(pile) / 52.0
        turn = state.turn_no
        if turn:
            out[TURN] = turn / 100.0 if turn < 100 else 1.0
            lap = turn * self._lap_scale
            out[LAP] = lap if lap < 1.0 else 1.0
        if not hidden:
            if ph == DISCARD and seat == cp:
                out[VALUE] = self.valuer.best_after_discard(state.hand_mask[seat], state.locked) / 32.0
            else:
                out[VALUE] = self.valuer.value(state.hand_mask[seat]) / 32.0
        return out

    def _template(self, seat: int) -> np.ndarray:
        """What is fixed for the round: no cards, the seat rows rotated to the observer, and the
        constant global features."""
        rows = self._rows
        return np.concatenate([self._no_cards, *rows[seat:], *rows[:seat], self._pad, self._constant])

    def _new_round(self, state: ThirtyOneState) -> None:
        """Per-seat rows (absolute seats) and global features that change only between rounds."""
        self._cache_state, self._cache_version = state, state.pub_version
        self._templates = [None] * self.n
        self._rows = [
            np.array(
                [
                    1.0,
                    not state.alive[s],
                    state.lives(s) / self._lives,
                    state.on_county(s),
                    0.0,  # knocked: set per call
                    s == state.dealer,
                    min(state.scores[s] / self._target, 1.0) if self._points else 0.0,
                    0.0,  # to act: set per call
                ],
                np.float32,
            )
            for s in range(self.n)
        ]
        active = len(state.seats)
        self._lap_scale = 1.0 / (10.0 * active)
        self._constant = np.array(
            [0.0] * (ROUND - PHASE) + [min(state.round_no / 30.0, 1.0), active / 9.0, self.n / 9.0, 0.0, *self._tail],
            np.float32,
        )


PHASES = ("throw_down", "draw", "discard", "over")


def decode(observation: dict[str, np.ndarray] | np.ndarray) -> dict[str, Any]:
    """The readable content of an observation (what a rule-based agent needs); relative seats.

    Keys: ``hand``, ``top``, ``locked`` (card ids, -1 for none), ``pile_by`` (9 lists of card ids),
    ``held_by`` (9 lists, index 0 empty), ``phase`` (a name in ``PHASES``), ``stock``,
    ``pile_size``, ``knocked`` (any), ``knocker`` / ``dealer`` / ``to_act`` (relative seat or -1),
    ``present``, ``out``, ``lives`` (fraction of the lives option), ``on_county``, ``scores``
    (fraction of the target) (per relative seat), ``turn``, ``lap``, ``round``, ``active``,
    ``players``, ``value``, ``min_knock_score``, ``deck``, ``points_game``, ``round_episode``,
    ``three_of_a_kind``, ``three_aces`` (the option values, None when off).
    """
    v = np.asarray(observation["observation"] if isinstance(observation, dict) else observation)
    if v.shape != (OBS_SIZE,):
        raise ValueError(f"not a Thirty-One observation: shape {v.shape}, expected ({OBS_SIZE},)")
    planes = v[:SEATS].reshape(NUM_PLANES, NUM_CARDS) > 0.5

    def ids(row: np.ndarray) -> list[int]:
        return [int(c) for c in np.flatnonzero(row)]

    seats = v[SEATS:GLOBAL].reshape(MAX_SEATS, SEAT_FEATURES)

    def who(feature: int) -> int:
        hits = np.flatnonzero(seats[:, feature] > 0.5)
        return int(hits[0]) if hits.size else -1

    g = v[GLOBAL:]
    phase = int(np.argmax(g[:3])) if g[:3].any() else 3
    top, locked = ids(planes[1]), ids(planes[2])
    return {
        "hand": ids(planes[0]),
        "top": top[0] if top else -1,
        "locked": locked[0] if locked else -1,
        "pile_by": [ids(planes[3 + r]) for r in range(MAX_SEATS)],
        "held_by": [[]] + [ids(planes[12 + r]) for r in range(MAX_SEATS - 1)],
        "phase": PHASES[phase],
        "stock": round(float(v[STOCK]) * 52),
        "pile_size": round(float(v[PILE]) * 52),
        "knocked": bool(v[ANY_KNOCK] > 0.5),
        "knocker": who(KNOCKED),
        "dealer": who(DEALER),
        "to_act": who(TO_ACT),
        "present": [bool(x) for x in seats[:, PRESENT] > 0.5],
        "out": [bool(x) for x in seats[:, OUT] > 0.5],
        "lives": [float(x) for x in seats[:, LIVES]],
        "on_county": [bool(x) for x in seats[:, COUNTY] > 0.5],
        "scores": [float(x) for x in seats[:, SCORE]],
        "turn": round(float(v[TURN]) * 100),
        "lap": float(v[LAP]) * 10,
        "round": round(float(v[ROUND]) * 30),
        "active": round(float(v[ACTIVE]) * 9),
        "players": round(float(v[PLAYERS]) * 9),
        "value": round(float(v[VALUE]) * 64) / 2,
        "min_knock_score": round(float(v[MIN_KNOCK]) * 62) / 2,
        "deck": 32 if v[DECK32] > 0.5 else 52,
        "points_game": bool(v[POINTS] > 0.5),
        "round_episode": bool(v[ROUND_EP] > 0.5),
        "three_of_a_kind": round(float(v[THREE_KIND]) * 62) / 2 or None,
        "three_aces": 32 if v[THREE_ACES] > 0.5 else None,
    }


def hand_of(observation: dict[str, np.ndarray] | np.ndarray) -> list[int]:
    """Just the own hand (card ids) of an observation."""
    v = observation["observation"] if isinstance(observation, dict) else observation
    return [int(c) for c in np.flatnonzero(np.asarray(v[:NUM_CARDS]) > 0.5)]
