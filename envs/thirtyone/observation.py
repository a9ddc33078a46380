"""State + seat -> the float32 observation vector of Thirty-One, and :func:`decode` for rule agents.

The layout is the same for every seat, player count (2..9) and option set of the classic game
(the stock and the discard pile; the variants ``scat``, ``no_elimination`` and ``cut_throat``): seats
are *relative* (``r`` = how many places to the observer's left, ``r = 0`` is the observer), and seats a
table does not have are zero with ``present = 0``. Games with cards on the table use the longer table
layout of ``observation_table.py``, which starts with this one. ``OBS_SIZE = 1130``:

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

from envs.thirtyone import actions as A
from envs.thirtyone.cards import NUM_CARDS, cards_of
from envs.thirtyone.layout import (  # noqa: F401  (re-exported: the layout's constants were always here)
    ACTIVE,
    ANY_KNOCK,
    COUNTY,
    DEALER,
    DECK32,
    GLOBAL,
    HAND,
    HELD_BY,
    KNOCKED,
    LAP,
    LIVES,
    LOCKED,
    MAX_SEATS,
    MIN_KNOCK,
    NUM_PLANES,
    OBS_SIZE,
    OBSERVATION_VERSION,
    OUT,
    PHASE,
    PILE,
    PILE_BY,
    PLAYERS,
    POINTS,
    PRESENT,
    ROUND,
    ROUND_EP,
    SCORE,
    SEAT_FEATURES,
    SEATS,
    STOCK,
    THREE_ACES,
    THREE_KIND,
    TO_ACT,
    TOP,
    TURN,
    VALUE,
)
from envs.thirtyone.rules import DISCARD, OVER, THROW, ThirtyOneGame, ThirtyOneState

_BIT = [1 << c for c in range(NUM_CARDS)]
_ZEROS = memoryview(np.zeros(SEATS, np.float32))  # clears the card planes in one copy
# Seat rows per observer by table state, shared by the encoders of a process (vectorized envs
# warm it once); at most a few KB each, cleared when full.
_BLOCKS: dict[tuple, list[memoryview]] = {}
_BLOCK_CACHE = 4096


class ObservationEncoder:
    """Keeps one observation vector per seat current as a game advances; ``encode`` copies it.

    Rebuilding 1130 floats per decision cost more than the rules themselves, while an action
    moves one card. So the env reports each action (``applied``) and the card planes of every
    seat's vector are patched in place: a draw sets one entry, a discard or take a few per seat.
    ``encode`` then writes the entries that change with every decision (top, locked, to act,
    knocker, phase, counters, hand value) for the one seat, remembering what it wrote, and copies
    the vector. The planes are rebuilt from the state whenever the encoder cannot vouch for them:
    a new round, another state object, or a move it was not told about (``state.moves``). What
    changes only between rounds (the seat rows, the round number) is written once per round.
    Writes go through memoryviews: a float store there costs half a numpy scalar setitem and
    rounds to float32 the same way. ``observation_ref.encode_reference`` is the slow definition;
    tests assert that both agree bit for bit.
    """

    # Slots: the attribute reads in encode skip the instance dict.
    __slots__ = (
        "n", "valuer", "_memo", "_lives", "_target", "_points", "_rows", "_views", "_rotate", "_seat_off",
        "_pile_to", "_held_to", "_block_key", "_state", "_version", "_moves", "_reshuffles", "_known",
        "_lap_scale", "_marks",
    )  # fmt: skip

    def __init__(self, game: ThirtyOneGame) -> None:
        o = game.options
        n = self.n = game.num_players
        self._memo = game.valuer.memo  # every 3-card hand's value (and 4-card ones once seen)
        self.valuer = game.valuer
        self._lives = float(o.lives)
        self._target = float(o.target_score)
        self._points = o.scoring == "points"
        vectors = np.zeros((n, OBS_SIZE), np.float32)
        vectors[:, PLAYERS:] = [n / 9.0, 0.0, (o.min_knock_score or 0) / 31.0, float(o.deck == 32),
                                float(self._points), float(o.episode == "round"),
                                (o.three_of_a_kind or 0) / 31.0, float(o.three_aces is not None)]
        self._rows = list(vectors)  # 1-D views, one per seat: indexing a list beats the 2-D array
        views = self._views = [memoryview(row) for row in self._rows]
        self._rotate = np.array([[(seat + r) % n for r in range(n)] for seat in range(n)])
        rel = [[(s - seat) % n for s in range(n)] for seat in range(n)]  # rel[observer][seat]
        self._seat_off = [[SEATS + SEAT_FEATURES * r for r in row] for row in rel]
        # Where a card of absolute seat s goes in every vector: (view, plane offset) per observer.
        self._pile_to = [[(views[o], PILE_BY + 52 * rel[o][s]) for o in range(n)] for s in range(n)]
        self._held_to = [[(views[o], HELD_BY + 52 * (rel[o][s] - 1)) for o in range(n) if o != s] for s in range(n)]
        self._block_key = (n, o.lives, o.free_ride, o.target_score, self._points)  # what else the rows depend on
        self._state: ThirtyOneState | None = None
        self._version = -1
        self._moves = -1  # state.moves the card planes are up to date with
        self._reshuffles = 0
        self._known: list[set[int]] = [set() for _ in range(n)]  # cards shown as held, per seat
        self._lap_scale = 0.1
        # per observer: what its vector shows as [top card, locked card, player to act, knocker, phase]
        self._marks = [[-1, -1, -1, -2, OVER] for _ in range(n)]

    def encode(self, state: ThirtyOneState, seat: int) -> np.ndarray:
        """The observation of ``seat`` (a new array the caller may keep)."""
        if state is not self._state or state.pub_version != self._version:
            self._new_round(state)
        elif state.moves != self._moves:
            self._rebuild_cards(state)
        v = self._views[seat]
        marks = self._marks[seat]
        # The one-hot moves below are written out, not a helper: a call per mark would cost more
        # than the writes, once per decision.
        top_, locked_, cp_, knocker_, ph_ = marks
        pile = state.pile
        top = pile[-1] if pile else -1
        if top != top_:
            if top_ >= 0:
                v[TOP + top_] = 0.0
            if top >= 0:
                v[TOP + top] = 1.0
            marks[0] = top
        locked = state.locked
        if locked != locked_:
            if locked_ >= 0:
                v[LOCKED + locked_] = 0.0
            if locked >= 0:
                v[LOCKED + locked] = 1.0
            marks[1] = locked
        cp = state.current_player
        if cp != cp_:
            off = self._seat_off[seat]
            if cp_ >= 0:
                v[off[cp_] + TO_ACT] = 0.0
            if cp >= 0:
                v[off[cp] + TO_ACT] = 1.0
            marks[2] = cp
        knocker = state.knocker
        if knocker != knocker_:
            off = self._seat_off[seat]
            if knocker_ >= 0:
                v[off[knocker_] + KNOCKED] = 0.0
            if knocker >= 0:
                v[off[knocker] + KNOCKED] = 1.0
            v[ANY_KNOCK] = 1.0 if knocker >= 0 else 0.0
            marks[3] = knocker
        ph = state.phase
        if ph != ph_:
            if ph_ != OVER:
                v[PHASE + ph_] = 0.0
            if ph != OVER:
                v[PHASE + ph] = 1.0  # THROW, DRAW, DISCARD are 0, 1, 2
            marks[4] = ph
        v[STOCK] = len(state.stock) / 52.0
        v[PILE] = len(pile) / 52.0
        turn = state.turn_no
        v[TURN] = turn / 100.0 if turn < 100 else 1.0
        lap = turn * self._lap_scale
        v[LAP] = lap if lap < 1.0 else 1.0
        if seat != cp:
            mask = state.hand_mask[seat]
            x = self._memo.get(mask)
            v[VALUE] = (x if x is not None else self.valuer.value(mask)) / 32.0
        elif ph == DISCARD:  # the best hand after a legal discard (valuer.best_after_discard)
            mask = state.hand_mask[seat]
            memo = self._memo
            best = 0.0
            for c in state.hands[seat]:
                if c != locked:
                    x = memo[mask ^ _BIT[c]]  # a 3-card hand: always in the memo
                    if x > best:
                        best = x
            v[VALUE] = best / 32.0
        elif ph == THROW:  # the throw-down choice is made before looking
            v[VALUE] = 0.0
        else:
            v[VALUE] = self._memo[state.hand_mask[seat]] / 32.0  # 3 cards: always in the memo
        return self._rows[seat].copy()

    def applied(self, state: ThirtyOneState, seat: int, phase: int, action: int) -> None:
        """Patch the card planes after ``seat`` applied ``action`` in ``phase`` (before it) and the
        round went on. A report the encoder cannot place (another state object, a move missed)
        leaves the planes to be rebuilt; after a round ended they are rebuilt anyway."""
        if state is not self._state or state.moves != self._moves + 1:  # encode rebuilds
            self._moves = -1
            return
        self._moves = state.moves
        if phase == DISCARD:  # action is the card
            self._views[seat][action] = 0.0  # out of the hand (HAND is 0)
            for v, off in self._pile_to[seat]:
                v[off + action] = 1.0
            known = self._known[seat]
            if action in known:
                known.remove(action)
                for v, off in self._held_to[seat]:
                    v[off + action] = 0.0
            if state.stats["reshuffles"] != self._reshuffles:  # the stock ran out: a new pile
                self._rebuild_cards(state)
        elif action == A.DRAW:
            self._views[seat][state.hands[seat][-1]] = 1.0
        elif action == A.TAKE:
            c = state.locked
            self._views[seat][c] = 1.0
            for v, off in self._pile_to[state.owner[c]]:  # the owner of a taken card stays recorded
                v[off + c] = 0.0
            self._known[seat].add(c)
            for v, off in self._held_to[seat]:
                v[off + c] = 1.0
        elif action == A.LOOK:
            v = self._views[seat]
            for c in state.hands[seat]:
                v[c] = 1.0
        elif action == A.KNOCK and state.stats["reshuffles"] != self._reshuffles:
            self._rebuild_cards(state)

    def _rebuild_cards(self, state: ThirtyOneState) -> None:
        """Write every seat's card planes from the state."""
        self._moves = state.moves
        self._reshuffles = state.stats["reshuffles"]
        hidden = state.current_player if state.phase == THROW else -1
        for o, (v, marks) in enumerate(zip(self._views, self._marks, strict=True)):
            v[:SEATS] = _ZEROS
            marks[0] = marks[1] = -1  # top and locked cleared
            if o != hidden:
                for c in state.hands[o]:
                    v[c] = 1.0  # HAND is 0
        owner = state.owner
        for c in state.pile:
            for v, off in self._pile_to[owner[c]]:
                v[off + c] = 1.0
        self._known = [set(cards_of(m)) if m else set() for m in state.known]
        for s, cards in enumerate(self._known):
            for c in cards:
                for v, off in self._held_to[s]:
                    v[off + c] = 1.0

    def _new_round(self, state: ThirtyOneState) -> None:
        """Write what changes only between rounds into every vector: the seat rows (rotated to each
        observer; cached by the table's state) and the round number and players in the round."""
        self._state, self._version = state, state.pub_version
        self._rebuild_cards(state)
        n = self.n
        key = (*self._block_key, state.dealer, *state.tokens, *state.alive, *state.scores)
        rows = _BLOCKS.get(key)
        if rows is None:
            if len(_BLOCKS) >= _BLOCK_CACHE:
                _BLOCKS.clear()
            rows = _BLOCKS[key] = self._seat_block(state)
        end = SEATS + SEAT_FEATURES * n
        active = len(state.seats)
        self._lap_scale = 1.0 / (10.0 * active)
        rnd = min(state.round_no / 30.0, 1.0)
        act = active / 9.0
        for v, marks, row in zip(self._views, self._marks, rows, strict=True):
            v[SEATS:end] = row  # clears knocked and to act
            v[ROUND] = rnd
            v[ACTIVE] = act
            marks[2] = -1
            marks[3] = -2  # no knocker shown, and ANY_KNOCK to be written

    def _seat_block(self, state: ThirtyOneState) -> list[memoryview]:
        """Per observer, the seat rows of the table in relative order (knocked and to act 0)."""
        rows = np.array(
            [
                [
                    1.0,
                    not state.alive[s],
                    state.lives(s) / self._lives,
                    state.on_county(s),
                    0.0,
                    s == state.dealer,
                    min(state.scores[s] / self._target, 1.0) if self._points else 0.0,
                    0.0,
                ]
                for s in range(self.n)
            ],
            np.float32,
        )
        block = rows[self._rotate].reshape(self.n, SEAT_FEATURES * self.n)
        return [memoryview(row) for row in block]


PHASES = ("throw_down", "draw", "discard", "over")  # the classic phase one-hot (table phases: observation_table)


def decode(observation: dict[str, np.ndarray] | np.ndarray) -> dict[str, Any]:
    """The readable content of an observation (what a rule-based agent needs); relative seats.

    Keys: ``hand``, ``top``, ``locked`` (card ids, -1 for none), ``pile_by`` (9 lists of card ids),
    ``held_by`` (9 lists, index 0 empty), ``phase`` (a name in ``PHASES``), ``stock``,
    ``pile_size``, ``knocked`` (any), ``knocker`` / ``dealer`` / ``to_act`` (relative seat or -1),
    ``present``, ``out``, ``lives`` (fraction of the lives option), ``on_county``, ``scores``
    (fraction of the target) (per relative seat), ``turn``, ``lap``, ``round``, ``active``,
    ``players``, ``value``, ``min_knock_score``, ``deck``, ``points_game``, ``round_episode``,
    ``three_of_a_kind``, ``three_aces`` (the option values, None when off). A table-layout
    observation (``observation_table``) adds ``table``, ``face_down``, ``occupied``, ``exchanged``,
    ``taken``, ``dead``, ``tokens``, ``pot``, ``table_phase``, ``exchange``, ``ranking``,
    ``straight_flush``, ``rounds_cap``, ``switch_restart``, ``restarted``, ``pot_game`` (and ``value``
    is the brag value with ``ranking="brag"``).
    """
    from envs.thirtyone.observation_table import TABLE_OBS_SIZE, decode_table

    full = np.asarray(observation["observation"] if isinstance(observation, dict) else observation)
    if full.shape not in ((OBS_SIZE,), (TABLE_OBS_SIZE,)):
        raise ValueError(f"not a Thirty-One observation: shape {full.shape}, expected ({OBS_SIZE},) or "
                         f"({TABLE_OBS_SIZE},) (the table layout)")
    v = full[:OBS_SIZE]
    # one nonzero over all card planes, split by plane: decode runs once per rule-agent decision
    planes: list[list[int]] = [[] for _ in range(NUM_PLANES)]
    plane_of, card_of = np.divmod(np.flatnonzero(v[:SEATS] > 0.5), NUM_CARDS)
    for plane, card in zip(plane_of.tolist(), card_of.tolist(), strict=True):
        planes[plane].append(card)
    seats = v[SEATS:GLOBAL].reshape(MAX_SEATS, SEAT_FEATURES)
    flags = (seats > 0.5).T.tolist()  # per feature, per relative seat

    def who(feature: int) -> int:
        return flags[feature].index(True) if True in flags[feature] else -1

    g = v[GLOBAL:]
    phase = int(np.argmax(g[:3])) if g[:3].any() else 3
    top, locked = planes[1], planes[2]
    info = {
        "hand": planes[0],
        "top": top[0] if top else -1,
        "locked": locked[0] if locked else -1,
        "pile_by": planes[3 : 3 + MAX_SEATS],
        "held_by": [[]] + planes[12 : 12 + MAX_SEATS - 1],
        "phase": PHASES[phase],
        "stock": round(float(v[STOCK]) * 52),
        "pile_size": round(float(v[PILE]) * 52),
        "knocked": bool(v[ANY_KNOCK] > 0.5),
        "knocker": who(KNOCKED),
        "dealer": who(DEALER),
        "to_act": who(TO_ACT),
        "present": flags[PRESENT],
        "out": flags[OUT],
        "lives": seats[:, LIVES].tolist(),
        "on_county": flags[COUNTY],
        "scores": seats[:, SCORE].tolist(),
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
    return decode_table(full, info) if full.shape == (TABLE_OBS_SIZE,) else info


def hand_of(observation: dict[str, np.ndarray] | np.ndarray) -> list[int]:  # either layout: the hand comes first
    """Just the own hand (card ids) of an observation."""
    v = observation["observation"] if isinstance(observation, dict) else observation
    return [int(c) for c in np.flatnonzero(np.asarray(v[:NUM_CARDS]) > 0.5)]
