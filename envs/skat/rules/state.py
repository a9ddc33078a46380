"""One deal of Skat: a small copyable state, its legal actions and transitions.

Plain Python over bit sets, no RL imports, so search agents can simulate from any state. Seats
here are *positions* in the deal: 0 forehand, 1 middlehand, 2 rearhand (the dealer at three);
the PettingZoo env maps table seats onto them. On the ISkO table (``x is None``) every phase is
handled here, exactly as it always was; an extended table's phases are its ``x.engine``
(``envs.skat.rules.phases`` and ``settle``, handed in by ``SkatGame``: this module imports neither),
card play keeps the fast path below whenever it is plain card play.
"""

from __future__ import annotations

from collections.abc import Sequence

from envs.checks import as_integer
from envs.skat import actions as A
from envs.skat.cards import EFF_SUIT, FOLLOW, GRAND, NULL, NUM_CARDS, POINTS, cards_of, trick_winner
from envs.skat.deal import FOREHAND, MIDDLEHAND, POSITION_NAMES, REARHAND
from envs.skat.options import SkatOptions
from envs.skat.rules.extras import Extras
from envs.skat.rules.phase_ids import (  # noqa: F401  (re-exported: the phases were defined here)
    ALL_PHASE_NAMES,
    ANNOUNCE,
    ANSWER,
    AUCTION,
    DECLARE,
    DISCARD,
    DONE,
    EXCHANGE,
    KONTRA,
    PHASE_NAMES,
    PLAY,
    RE,
    RESUPRA,
    SCHIEBEN,
    SKAT,
    SUPRA,
    TURN,
)
from envs.skat.rules.table import Table, table_of
from envs.skat.scoring import Outcome, null_value, ramsch_scores, seat_scores, settle

_NULL_CONTRACTS = {i: null_value(c) for i, c in enumerate(A.CONTRACTS) if c.game == NULL}
_PICKUP_CONTRACTS = tuple(i for i, c in enumerate(A.CONTRACTS) if not c.hand)
_HAND_CONTRACTS = tuple(i for i, c in enumerate(A.CONTRACTS) if c.hand)
_PLAY_ACTIONS = tuple(A.PLAY + c for c in range(NUM_CARDS))
_DISCARD_ACTIONS = tuple(A.DISCARD + c for c in range(NUM_CARDS))
_BID_ACTIONS = tuple(A.BID + i for i in range(A.NUM_BIDS))
_ALL_BIDS = ((1 << A.NUM_BIDS) - 1) << A.BID


class SkatState:
    """One deal. Mutated in place by ``apply_action``; ``clone`` gives an independent copy.

    Per-position lists have three entries (forehand, middlehand, rearhand) on every table;
    ``scores`` has a fourth, the dealer's, at a four-player table."""

    __slots__ = (
        "options", "dealt", "hands", "original_skat", "skat", "phase", "current_player", "history",
        # auction
        "bid", "bid_idx", "bidder", "listener", "stage", "passed", "called", "max_call",
        # skat and declaration
        "declarer", "contract", "contract_index", "skat_taken", "doubling", "kontra_queue",
        # play
        "trick", "leader", "trick_count", "tricks_won", "points", "played", "last_trick", "voids",
        # result
        "outcome", "scores",
        # the table, and what only extended tables have
        "table", "x", "plain", "trick_size", "tricks_total", "play_game", "points_of",
    )

    def __init__(self, options: SkatOptions | Table, hands: Sequence[int], skat: int, x: Extras | None = None) -> None:
        table = options if isinstance(options, Table) else table_of(options)
        self.table = table
        self.options = options if isinstance(options, SkatOptions) else table.options
        self.dealt = tuple(hands)
        self.hands = list(hands)
        self.original_skat = skat
        self.skat = skat
        self.phase = AUCTION
        self.current_player = MIDDLEHAND  # middlehand calls to forehand first
        self.history: list[tuple[int, int]] = []
        self.bid = 0
        self.bid_idx = -1
        self.bidder, self.listener, self.stage = MIDDLEHAND, FOREHAND, 1
        self.passed = [False, False, False]
        self.called = [False, False, False]  # made or held at least one call (Kontra eligibility)
        self.max_call = [0, 0, 0]
        self.declarer = -1
        self.contract: A.Contract | None = None
        self.contract_index = -1
        self.skat_taken = False
        self.doubling = 1
        self.kontra_queue: list[int] = []
        self.trick: list[int] = []
        self.leader = FOREHAND
        self.trick_count = 0
        self.tricks_won = [0, 0, 0]
        self.points = [0, 0, 0]
        self.played = [0, 0, 0]
        self.last_trick: tuple[int, ...] = ()
        self.voids = [0, 0, 0]  # per position: bit set of effective suits (0-3, 4 trump) it failed to follow
        self.outcome: Outcome | None = None
        self.scores = [0] * table.score_len
        if x is None and not table.classic:
            raise ValueError("a deal of an extended table is made by SkatGame (it brings the table's phases)")
        self.x = x
        self.plain = table.plain_play
        self.trick_size, self.tricks_total = table.trick_size, table.tricks
        self.play_game = -1  # the game type whose trick tables card play uses (Ramsch: grand's)
        self.points_of = table.pack.points

    @property
    def rules(self) -> SkatOptions:
        """Old name of :attr:`options`, kept so existing code keeps working."""
        return self.options

    # --- the protocol of envs.core --------------------------------------------------------
    def clone(self) -> SkatState:
        new = object.__new__(SkatState)
        for slot in SkatState.__slots__:
            v = getattr(self, slot)
            setattr(new, slot, v.copy() if isinstance(v, list) else v)
        if self.x is not None:
            new.x = self.x.clone()
        return new

    def is_terminal(self) -> bool:
        return self.phase == DONE

    def returns(self) -> list[float]:
        return [float(s) for s in self.scores]

    @property
    def game_type(self) -> int:
        """The game type being played (grand for Ramsch, 6 for a Ramsch with low tens), or -1 before
        the declaration."""
        if self.contract is not None:
            return self.contract.game
        return self.play_game if self.phase == PLAY else -1

    def playable_cards(self) -> int:
        """The cards the player to act may play: the led suit if it can follow, else any card
        (Officers' Skat: of its face-up cards)."""
        hand = self.hands[self.current_player]
        if self.x is not None:
            return self._playable_extended(hand)
        if self.trick:
            g = self.play_game
            follow = hand & FOLLOW[g][EFF_SUIT[g][self.trick[0]]]
            if follow:
                return follow
        return hand

    def _playable_extended(self, hand: int) -> int:
        if self.table.officers:
            hand &= ~self.x.hidden[self.current_player]
        if self.trick:
            g = self.play_game
            pack = self.table.pack
            follow = hand & pack.follow[g][pack.eff_suit[g][self.trick[0]]]
            if follow:
                return follow
        return hand

    def legal_actions(self) -> list[int]:
        phase = self.phase
        if phase == PLAY and self.plain:
            hand = self.playable_cards()
            out = []
            while hand:
                low = hand & -hand
                out.append(_PLAY_ACTIONS[low.bit_length() - 1])
                hand ^= low
            return out
        if self.x is not None:
            return self.x.engine.legal_actions(self)
        if phase == AUCTION:
            if self.current_player == self.listener and self.stage < 3:
                return [A.HOLD, A.PASS]
            if self.stage == 3:
                return [A.BID_INDEX[18], A.PASS]
            return [*_BID_ACTIONS[self.bid_idx + 1:], A.PASS]
        if phase == DISCARD:
            return [_DISCARD_ACTIONS[c] for c in cards_of(self.hands[self.current_player])]
        if phase == SKAT:
            return [A.PICKUP, A.HAND]
        if phase == DECLARE:
            pool = _PICKUP_CONTRACTS if self.skat_taken else _HAND_CONTRACTS
            return [A.DECLARE + i for i in pool if _NULL_CONTRACTS.get(i, 999) >= self.bid]
        if phase == KONTRA:
            return [A.KONTRA, A.PASS]
        if phase == RE:
            return [A.RE, A.PASS]
        return []

    def legal_mask(self) -> int:
        """The legal actions as one bit set over action indices (bit a set = action a legal)."""
        if self.phase == PLAY and self.plain:
            hand = self.playable_cards()
            return hand << A.PLAY
        if self.x is None:
            if self.phase == AUCTION and self.stage < 3 and self.current_player != self.listener:
                return (_ALL_BIDS & ~((1 << (self.bid_idx + 1)) - 1)) | 1 << A.PASS
            if self.phase == DISCARD:
                return self.hands[self.current_player] << A.DISCARD
        m = 0
        for a in self.legal_actions():
            m |= 1 << a
        return m

    def apply_action(self, action: int) -> None:
        if type(action) is not int:  # numpy integers are welcome; floats, strings and bools are not
            action = as_integer(action, "a Skat action")
        p = self.current_player
        phase = self.phase
        if phase == PLAY and self.plain:
            c = action - A.PLAY
            bit = 1 << c if 0 <= c < NUM_CARDS else 0
            hand = self.hands[p]
            if not hand & bit:
                self._illegal(action)
            if self.trick:
                g = self.play_game
                led = EFF_SUIT[g][self.trick[0]]
                follow = hand & FOLLOW[g][led]
                if follow and not follow & bit:
                    self._illegal(action, "must follow suit")
                if not follow:
                    self.voids[p] |= 1 << led
            self.put_card(p, c, action)
            return
        if self.x is not None:
            self.x.engine.apply(self, action)
            return
        if not (0 <= action < A.NUM_ACTIONS and self.legal_mask() >> action & 1):
            self._illegal(action)
        self.history.append((p, action))
        if phase == AUCTION:
            self._auction(p, action)
        elif phase == SKAT:
            if action == A.PICKUP:
                self.skat_taken = True
                self.hands[p] |= self.skat
                self.skat = 0
                self.phase = DISCARD
            else:
                self.phase = DECLARE
        elif phase == DISCARD:
            bit = 1 << (action - A.DISCARD)
            self.hands[p] ^= bit
            self.skat |= bit
            if self.skat.bit_count() == 2:
                self.phase = DECLARE
        elif phase == DECLARE:
            self.contract_index = action - A.DECLARE
            self.contract = A.CONTRACTS[self.contract_index]
            self.kontra_queue = [q for q in range(3) if q != p and self.called[q]] if self.options.kontra else []
            self._next_kontra()
        elif phase == KONTRA:
            if action == A.KONTRA:
                self.doubling = 2
                self.phase = RE
                self.current_player = self.declarer
            else:
                self._next_kontra()
        elif phase == RE:
            if action == A.RE:
                self.doubling = 4
            self._start_play()

    # --- card play (every table) ------------------------------------------------------------
    def put_card(self, p: int, c: int, action: int) -> None:
        """Position ``p`` plays card ``c`` (already checked) with ``action``; the trick goes on or is taken."""
        bit = 1 << c
        self.history.append((p, action))
        self.hands[p] ^= bit
        self.played[p] |= bit
        self.trick.append(c)
        if len(self.trick) < self.trick_size:
            self.current_player = (p + 1) % self.trick_size
        else:
            self._finish_trick()

    def _finish_trick(self) -> None:
        trick = self.trick
        pts = self.points_of
        if self.x is None:  # three cards of the 32-card pack
            w = (self.leader + trick_winner(self.play_game, trick)) % 3
            self.points[w] += pts[trick[0]] + pts[trick[1]] + pts[trick[2]]
        else:
            w = (self.leader + self.table.pack.trick_winner(self.play_game, trick)) % self.trick_size
            self.points[w] += sum(pts[c] for c in trick)
            self.x.offered = 0  # a new trick: each player may offer (concede, claim) once again
        self.tricks_won[w] += 1
        self.trick_count += 1
        self.last_trick = tuple(trick)
        self.trick = []
        self.leader = self.current_player = w
        contract = self.contract
        if self.trick_count == self.tricks_total or (contract is not None and contract.game == NULL
                                                     and w == self.declarer):
            self._score()

    # --- phases of the ISkO table -----------------------------------------------------------
    def _illegal(self, action: int, why: str = "") -> None:
        try:
            label = A.action_name(action)
        except (ValueError, TypeError):
            label = repr(action)
        if self.phase == DONE:
            raise ValueError(f"illegal Skat action {label!r}: the deal is over, no action is legal")
        names = A.ACTION_NAMES if self.x is None else A.ALL_ACTION_NAMES
        legal = ", ".join(names[a] for a in self.legal_actions()[:12])
        phase = ALL_PHASE_NAMES[self.phase]
        raise ValueError(
            f"illegal Skat action {label!r} for {POSITION_NAMES[self.current_player]} in phase "
            f"{phase}{': ' + why if why else ''}; legal: {legal}"
        )

    def _auction(self, p: int, action: int) -> None:
        if action == A.PASS:
            self.passed[p] = True
            if self.stage == 1:
                survivor = self.listener if p == self.bidder else self.bidder
                self.stage, self.bidder, self.listener = 2, REARHAND, survivor
                self.current_player = REARHAND
            elif self.stage == 2:
                if p == self.bidder and self.bid == 0:
                    # Middlehand and rearhand both passed without a bid: forehand may still play.
                    self.stage = 3
                    self.current_player = FOREHAND
                else:
                    self._end_auction(self.listener if p == self.bidder else self.bidder)
            else:
                self._end_auction(-1)
            return
        if action == A.HOLD:
            self.called[p] = True
            self.max_call[p] = self.bid
            self.current_player = self.bidder
            return
        if self.x is None:
            self.bid_idx = action - A.BID
            self.bid = A.BID_VALUES[self.bid_idx]
        else:
            self.bid = A.BID_OF_ACTION[action]
            self.bid_idx = self.table.bid_values.index(self.bid)
        self.called[p] = True
        self.max_call[p] = self.bid
        if self.stage == 3:
            self._end_auction(FOREHAND)
        else:
            self.current_player = self.listener

    def _end_auction(self, declarer: int) -> None:
        if self.x is not None:
            self.x.engine.end_auction(self, declarer)
            return
        if declarer < 0:
            if self.options.ramsch:
                self._start_play()
            else:
                self.phase = DONE  # passed in: nobody scores
                self.current_player = -1
            return
        self.declarer = declarer
        self.phase = SKAT
        self.current_player = declarer

    def _next_kontra(self) -> None:
        if self.kontra_queue:
            self.phase = KONTRA
            self.current_player = self.kontra_queue.pop(0)
        else:
            self._start_play()

    def _start_play(self) -> None:
        self.phase = PLAY
        self.current_player = self.leader = FOREHAND
        contract = self.contract
        self.play_game = contract.game if contract is not None else GRAND
        if self.x is not None:
            self.x.engine.start_play(self)

    def _score(self) -> None:
        if self.x is not None:
            self.x.engine.finish(self)
            return
        self.phase = DONE
        self.current_player = -1
        if self.contract is None:  # Ramsch: the skat goes to the winner of the last trick
            self.points[self.leader] += sum(POINTS[c] for c in cards_of(self.skat))
            self.scores = ramsch_scores(self.points, self.tricks_won)
            return
        d = self.declarer
        self.outcome = settle(
            self.contract,
            self.bid,
            self.dealt[d] | self.original_skat,
            self.points[d] + sum(POINTS[c] for c in cards_of(self.skat)),
            self.tricks_won[d],
            self.doubling,
        )
        self.scores = seat_scores(self.outcome, d, self.options.scoring)

    # --- views ----------------------------------------------------------------------------
    @property
    def passed_in(self) -> bool:
        return self.phase == DONE and self.declarer < 0 and self.contract is None and self.trick_count == 0

