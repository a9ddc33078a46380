"""The Skat rules core: a small copyable state, its legal actions and transitions.

Plain Python over bit sets, no RL imports, so search agents can simulate from any state. Seats
here are *positions* in the deal: 0 forehand, 1 middlehand, 2 rearhand (the dealer); the
PettingZoo env maps table seats onto them. Phases::

    AUCTION -> SKAT (pickup or hand) -> DISCARD x2 -> DECLARE -> [KONTRA -> RE] -> PLAY -> DONE
    AUCTION (all pass) -> DONE (passed in), or PLAY as Ramsch when that option is on
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from envs.checks import as_integer
from envs.skat import actions as A
from envs.skat.cards import EFF_SUIT, FOLLOW, FULL_DECK, GRAND, NULL, NUM_CARDS, POINTS, cards_of, trick_winner
from envs.skat.deal import (  # noqa: F401  (DEAL_PATTERN, FOREHAND..REARHAND: re-exported, as before)
    DEAL_PATTERN,
    FOREHAND,
    MIDDLEHAND,
    POSITION_NAMES,
    REARHAND,
    deal,
    deal_from_deck,
    parse_deal,
)
from envs.skat.options import SkatOptions, validate_options
from envs.skat.scoring import Outcome, null_value, ramsch_scores, seat_scores, settle

AUCTION, SKAT, DISCARD, DECLARE, KONTRA, RE, PLAY, DONE = range(8)
PHASE_NAMES = ("auction", "skat", "discard", "declare", "kontra", "re", "play", "done")

_NULL_CONTRACTS = {i: null_value(c) for i, c in enumerate(A.CONTRACTS) if c.game == NULL}
_PICKUP_CONTRACTS = tuple(i for i, c in enumerate(A.CONTRACTS) if not c.hand)
_HAND_CONTRACTS = tuple(i for i, c in enumerate(A.CONTRACTS) if c.hand)
_PLAY_ACTIONS = tuple(A.PLAY + c for c in range(NUM_CARDS))
_DISCARD_ACTIONS = tuple(A.DISCARD + c for c in range(NUM_CARDS))
_BID_ACTIONS = tuple(A.BID + i for i in range(A.NUM_BIDS))
_ALL_BIDS = ((1 << A.NUM_BIDS) - 1) << A.BID


class SkatState:
    """One deal. Mutated in place by ``apply_action``; ``clone`` gives an independent copy."""

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
    )

    def __init__(self, options: SkatOptions, hands: Sequence[int], skat: int) -> None:
        self.options = options
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
        self.scores = [0, 0, 0]

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
        return new

    def is_terminal(self) -> bool:
        return self.phase == DONE

    def returns(self) -> list[float]:
        return [float(s) for s in self.scores]

    @property
    def game_type(self) -> int:
        """The game type being played (grand for Ramsch), or -1 before the declaration."""
        if self.contract is not None:
            return self.contract.game
        return GRAND if self.phase == PLAY else -1

    def playable_cards(self) -> int:
        """The cards the player to act may play: the led suit if it can follow, else any card."""
        hand = self.hands[self.current_player]
        if self.trick:
            g = self.game_type
            follow = hand & FOLLOW[g][EFF_SUIT[g][self.trick[0]]]
            if follow:
                return follow
        return hand

    def legal_actions(self) -> list[int]:
        phase = self.phase
        if phase == PLAY:
            hand = self.playable_cards()
            out = []
            while hand:
                low = hand & -hand
                out.append(_PLAY_ACTIONS[low.bit_length() - 1])
                hand ^= low
            return out
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
        if self.phase == PLAY:
            hand = self.playable_cards()
            return hand << A.PLAY
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
        if phase == PLAY:
            c = action - A.PLAY
            bit = 1 << c if 0 <= c < NUM_CARDS else 0
            hand = self.hands[p]
            if not hand & bit:
                self._illegal(action)
            if self.trick:
                g = self.game_type
                led = EFF_SUIT[g][self.trick[0]]
                follow = hand & FOLLOW[g][led]
                if follow and not follow & bit:
                    self._illegal(action, "must follow suit")
                if not follow:
                    self.voids[p] |= 1 << led
            self.history.append((p, action))
            self.hands[p] = hand ^ bit
            self.played[p] |= bit
            self.trick.append(c)
            if len(self.trick) < 3:
                self.current_player = (p + 1) % 3
            else:
                self._finish_trick()
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

    # --- phases ---------------------------------------------------------------------------
    def _illegal(self, action: int, why: str = "") -> None:
        try:
            label = A.action_name(action)
        except (ValueError, TypeError):
            label = repr(action)
        if self.phase == DONE:
            raise ValueError(f"illegal Skat action {label!r}: the deal is over, no action is legal")
        legal = ", ".join(A.ACTION_NAMES[a] for a in self.legal_actions()[:12])
        raise ValueError(
            f"illegal Skat action {label!r} for {POSITION_NAMES[self.current_player]} in phase "
            f"{PHASE_NAMES[self.phase]}{': ' + why if why else ''}; legal: {legal}"
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
        self.bid_idx = action - A.BID
        self.bid = A.BID_VALUES[self.bid_idx]
        self.called[p] = True
        self.max_call[p] = self.bid
        if self.stage == 3:
            self._end_auction(FOREHAND)
        else:
            self.current_player = self.listener

    def _end_auction(self, declarer: int) -> None:
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

    def _finish_trick(self) -> None:
        trick = self.trick
        w = (self.leader + trick_winner(self.game_type, trick)) % 3
        self.tricks_won[w] += 1
        self.points[w] += POINTS[trick[0]] + POINTS[trick[1]] + POINTS[trick[2]]
        self.trick_count += 1
        self.last_trick = tuple(trick)
        self.trick = []
        self.leader = self.current_player = w
        contract = self.contract
        if self.trick_count == 10 or (contract is not None and contract.game == NULL and w == self.declarer):
            self._score()

    def _score(self) -> None:
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


class SkatGame:
    """The game object: options plus factories for states (``envs.core.Game``).

    Keyword options as in :class:`envs.skat.options.SkatOptions` (``scoring``, ``kontra``,
    ``ramsch``, ``dealer``); a bad one is a ValueError naming it."""

    num_players = 3
    num_actions = A.NUM_ACTIONS

    def __init__(self, **options: Any) -> None:
        self.options: SkatOptions = validate_options(**options)

    @property
    def rules(self) -> SkatOptions:
        """Old name of :attr:`options`, kept so existing code keeps working."""
        return self.options

    def new_initial_state(self, seed: int | None = None, deck: Iterable[int | str] | None = None) -> SkatState:
        """A new deal, shuffled from ``seed``; or dealt 3-skat-4-3 from forehand out of ``deck``, a
        full deck order (card names or ids), when one is given."""
        if deck is not None:
            hands, skat = deal_from_deck(deck)
            return SkatState(self.options, hands, skat)
        deck = list(range(NUM_CARDS))
        random.Random(seed).shuffle(deck)
        hands, skat = deal(deck)  # without deal_from_deck's check: a shuffle of range(32) is a deck
        return SkatState(self.options, hands, skat)

    def state_from_deal(
        self, hands: Sequence[str | Sequence[str] | int], skat: str | Sequence[str] | int
    ) -> SkatState:
        """A state from fixed hands (forehand, middlehand, rearhand) and skat: bit sets or card names."""
        if isinstance(hands, list | tuple) and all(isinstance(h, int) for h in hands) and isinstance(skat, int):
            masks, skat_mask = list(hands), skat
            if len(masks) != 3 or any(m.bit_count() != 10 for m in masks) or skat_mask.bit_count() != 2 or (
                masks[0] | masks[1] | masks[2] | skat_mask
            ) != FULL_DECK:
                parse_deal([cards_of(m) for m in masks], cards_of(skat_mask))  # raises, naming what is wrong
                raise ValueError("a Skat deal needs three hands of 10 and a skat of 2, every card once")
        else:
            masks, skat_mask = parse_deal(hands, skat)  # type: ignore[arg-type]
        return SkatState(self.options, masks, skat_mask)

    action_name = staticmethod(A.action_name)
    action_index = staticmethod(A.action_index)

    def __repr__(self) -> str:
        return f"SkatGame({self.options})"
