"""Thirty-One rules core: :class:`ThirtyOneGame` (options) and :class:`ThirtyOneState` (a game).

Plain Python over small ints and bit sets, no RL imports; follows ``envs.core`` (OpenSpiel-style).

A *round* is one deal: 3 cards each, one at a time from the dealer's left; the next card starts
the discard pile (its top card is the only visible and takeable one), the rest is the stock. The
player left of the dealer starts. A *turn* is two decisions: ``draw`` (stock) or ``take``
(discard pile), then ``discard XX``; a card taken from the pile may not be discarded in the same
turn. Instead of drawing a player may ``knock``: their hand is frozen, every other player has one
more turn, then the showdown. A hand of 31 (a *blitz*) ends the round at once: on the deal, after
a discard, also after a knock. With the ``throw_down`` option the first player of a round first
chooses, before looking, between ``throw_down`` (everyone shows at once, scored like a knock by
the thrower) and ``look``.

Games with cards on the table (the widow of Banking, the pool of Stop the Bus and Schwimmen, the two
table hands of Switch) are played by ``envs.thirtyone.table``; the end of a round (lives, points, the
pot, token rewards) is scored by ``envs.thirtyone.settle``.

Decisions the sources leave open (documented in the README):

* A round that would eliminate every remaining player eliminates nobody (its losses are void).
* Lives are lost one at a time: a knocker on the county who loses two is out.
* With ``stock_exhausted="reshuffle"`` an empty stock is refilled from the discard pile under the
  top card when the next turn starts; with ``"draw"`` the round is void at that moment unless
  somebody has knocked (then the stock is refilled so the last turns can be played).
* ``max_turns`` turns without a knock force a showdown with no knocker (a safety net for agents
  that never knock).
* The turned-up card that starts the discard pile counts as discarded by the dealer.
"""

from __future__ import annotations

import random
from typing import Any

from envs.checks import as_integer, as_seat
from envs.thirtyone import actions as A
from envs.thirtyone import deal, settle, table
from envs.thirtyone.cards import DECKS, NUM_CARDS, check_deck
from envs.thirtyone.options import CLASSIC_ONLY, ThirtyOneOptions, validate_options
from envs.thirtyone.phases import (  # noqa: F401  (re-exported: the phases' public home is here)
    CHOOSE,
    DISCARD,
    DRAW,
    EXCHANGES,
    MORE,
    OVER,
    PHASE_NAMES,
    PLACE,
    POOL,
    RENEWED,
    RESTART,
    STOCK,
    SWITCH,
    THROW,
    TURN,
    WIDOW,
)
from envs.thirtyone.scoring import HandValuer

STAT_KEYS = (
    "rounds", "knocks", "blitzes", "deal_blitzes", "voids", "reshuffles", "throw_downs", "capped",
    "knocker_losses", "turns", "restarts", "exchanges",
)  # fmt: skip

# legal_bytes() of the choices that are not a discard
_DRAW_TAKE, _DRAW_TAKE_KNOCK, _THROW_LOOK = (
    bytes(a in legal for a in range(A.NUM_ACTIONS))
    for legal in ((A.DRAW, A.TAKE), (A.DRAW, A.TAKE, A.KNOCK), (A.THROW_DOWN, A.LOOK))
)


class ThirtyOneGame:
    """The options of a game and the factory of its states (``envs.core.Game``)."""

    def __init__(self, **options: Any) -> None:
        self.options: ThirtyOneOptions = validate_options(**options)
        o = self.options
        self.num_players = o.num_players
        self.exchange = EXCHANGES.index(o.exchange)
        # The classic observation and action table (what the shipped checkpoints know) unless the game
        # uses an option that table does not describe.
        self.table_layout = any(getattr(o, k) != v for k, v in CLASSIC_ONLY.items()) or o.scoring == "pot"
        self.num_actions = A.NUM_TABLE_ACTIONS if self.table_layout else A.NUM_ACTIONS
        self.deck_cards: tuple[int, ...] = DECKS[o.deck]
        self.valuer = HandValuer(o.three_of_a_kind, o.three_aces, o.straight_flush, o.ranking)
        self.start_tokens = o.lives + (1 if o.free_ride else 0)
        self.layouts: dict[tuple[int, ...], tuple[list[int], list[int]]] = {}  # cache of deal.seat_layout

    def new_initial_state(
        self, seed: int | None = None, deck: list[str | int] | None = None, dealer: int | None = None
    ) -> ThirtyOneState:
        """A new game. ``deck`` fixes the order of the first deal (``deck[0]`` is dealt first, to
        the dealer's left; after the deal the next card is turned up, the rest is the stock, top
        first; see ``envs.thirtyone.table.deal_positions`` for the table games); later deals are
        shuffled from ``seed``. ``dealer`` overrides ``first_dealer``."""
        cards = self.check_deck(deck) if deck is not None else None
        if dealer is not None:
            dealer = as_seat(dealer, self.num_players, "dealer")
        return ThirtyOneState(self, seed, cards, dealer)

    def check_deck(self, deck: Any) -> list[int]:
        """A full deck order -> card ids; ValueError naming what is wrong."""
        return check_deck(deck, self.options.deck)

    def action_name(self, action: int) -> str:
        name = A.action_name(action)
        if int(action) >= self.num_actions:
            raise ValueError(f"action {action!r} out of range 0..{self.num_actions - 1} of this game ({name!r} "
                             "is an action of the games with table cards)")
        return name

    def action_index(self, name: str) -> int:
        return A.action_index(name)

    def __repr__(self) -> str:
        return f"ThirtyOneGame({self.options})"


class ThirtyOneState:
    """One game (``episode="game"``) or one round (``episode="round"``); mutated by ``apply_action``."""

    __slots__ = (
        "game", "opts", "n", "valuer", "memo", "rng", "tokens", "scores", "alive", "payoff", "n_out",
        "dealer", "seats", "next_seat", "knock_from", "hands", "hand_mask", "stock", "pile", "owner",
        "disc_by", "known", "phase", "current_player", "locked", "knocker", "turn_no", "round_no",
        "pub_version", "moves", "last_round", "stats", "ordered_stock", "deck",
        # games with table cards (envs.thirtyone.table) and token accounting (envs.thirtyone.settle)
        "num_actions", "tk", "blitz", "turn_phase", "table", "face_up", "table_by", "slot", "taken", "exchanged",
        "dead", "gone", "peek", "restarted", "offers", "pending", "paid", "kitty", "kitty_to", "pot", "anted",
    )  # fmt: skip

    def __init__(self, game: ThirtyOneGame, seed: int | None, deck: list[int] | None, dealer: int | None) -> None:
        o = game.options
        n = o.num_players
        self.game, self.opts, self.n, self.valuer = game, o, n, game.valuer
        self.memo = game.valuer.memo  # hand values by bit set, every 3-card hand included
        self.blitz = game.valuer.blitz  # 31 (brag: no blitz)
        self.tk = game.exchange
        self.num_actions = game.num_actions
        self.turn_phase = DRAW if self.tk <= WIDOW else TURN
        self.rng = random.Random(seed)
        self.tokens = [game.start_tokens] * n  # lives + the free ride (pot game: tokens); 0 = out
        self.scores = [0] * n  # points game
        self.alive = [True] * n
        self.payoff = [0.0] * n
        self.n_out = 0
        self.paid = [0] * n  # tokens paid into the kitty (lives game, token rewards)
        self.kitty = 0
        self.kitty_to = [0] * n  # who took the kitty at the end
        self.pot = 0  # pot game: this round's pot
        self.anted = [0] * n
        if dealer is None:
            dealer = o.first_dealer if o.first_dealer is not None else self.rng.randrange(n)
        self.dealer = dealer
        self.owner = [-1] * NUM_CARDS  # who discarded (or put on the table) each visible card
        self.deck = list(game.deck_cards)  # permuted in place by each random deal
        self.round_no = 0
        self.pub_version = 0  # changes with every deal and at the end
        self.moves = 0  # apply_action calls (illegal ones included): lets caches check they are current
        self.last_round: dict[str, Any] | None = None
        self.stats = dict.fromkeys(STAT_KEYS, 0)
        self.table: list[int] = []  # the table slots (games with table cards: envs.thirtyone.table)
        self.face_up: list[int] = []
        self.table_by: list[int] = []
        self.slot = self.peek = -1
        self.taken = self.exchanged = self.dead = self.gone = 0
        self.offers: list[int] = []
        self.pending: tuple[str, int] | None = None
        self.restarted = False
        self._start_round(deck)

    # ----------------------------------------------------------------- the protocol
    def legal_actions(self) -> list[int]:
        ph = self.phase
        if ph == DRAW:
            if self.tk:  # the widow game
                return ([A.DRAW, A.TAKE, A.KNOCK] if self._knock_open() else [A.DRAW, A.TAKE]) + table.widow_picks(self)
            if self._knock_open():
                return [A.DRAW, A.TAKE, A.KNOCK]
            return [A.DRAW, A.TAKE]
        if ph == DISCARD:
            lk = self.locked
            return sorted([c for c in self.hands[self.current_player] if c != lk])
        if ph == THROW:
            return [A.THROW_DOWN, A.LOOK]
        if ph == OVER:
            return []
        return table.legal_actions(self)

    def legal_bytes(self) -> bytearray:
        """``legal_actions()`` as a 0/1 byte per action (a new buffer): the env's action mask."""
        ph = self.phase
        if self.num_actions == A.NUM_ACTIONS:  # the classic table
            if ph == DISCARD:
                out = bytearray(A.NUM_ACTIONS)
                for c in self.hands[self.current_player]:
                    out[c] = 1
                if self.locked >= 0:
                    out[self.locked] = 0
                return out
            if ph == DRAW:
                return bytearray(_DRAW_TAKE_KNOCK if self._knock_open() else _DRAW_TAKE)
            return bytearray(_THROW_LOOK if ph == THROW else A.NUM_ACTIONS)
        out = bytearray(self.num_actions)
        for a in self.legal_actions():
            out[a] = 1
        return out

    def apply_action(self, action: int) -> None:
        if type(action) is not int:  # numpy integers are welcome; floats, strings and bools are not
            action = as_integer(action, "a Thirty-One action")
        self.moves += 1
        ph = self.phase
        p = self.current_player
        if ph == DISCARD:
            hand = self.hands[p]
            if action in hand:  # a list of 4: cheaper than testing the (two-digit) bit set
                if action != self.locked:
                    bit = 1 << action
                    hand.remove(action)
                    self.hand_mask[p] = mask = self.hand_mask[p] ^ bit
                    self.pile.append(action)
                    self.owner[action] = p
                    self.disc_by[p] |= bit
                    self.known[p] &= ~bit
                    self.locked = -1
                    self.turn_no += 1
                    if self.memo[mask] >= self.blitz:  # 3 cards: always in the memo
                        self._end_round("blitz", self.knocker)
                    else:
                        self._next_turn()
                    return
                self._illegal(action, "the card was taken from the discard pile this turn")
            self._illegal(action, "only a card in the hand can be discarded")
        elif ph == DRAW:
            if action == A.DRAW:
                st = self.stock
                if self.ordered_stock:
                    c = st.pop()
                else:  # a uniformly random card of the stock: the same as drawing from a shuffled one
                    i = int(self.rng.random() * len(st))
                    c = st[i]
                    st[i] = st[-1]
                    st.pop()
                self.hands[p].append(c)
                self.hand_mask[p] |= 1 << c
                self.phase = DISCARD
                return
            if action == A.TAKE:
                c = self.pile.pop()
                bit = 1 << c
                self.disc_by[self.owner[c]] &= ~bit
                self.known[p] |= bit
                self.hands[p].append(c)
                self.hand_mask[p] |= bit
                self.locked = c
                self.phase = DISCARD
                return
            if action == A.KNOCK:
                self._knock(action)
                return
            if self.tk == WIDOW and A.PICK <= action < A.PICK + 3:
                table.apply_action(self, action)
                return
            self._illegal(action, "a turn starts with draw, take or knock" + (" or a widow pick" if self.tk else ""))
        elif ph == THROW:
            if action == A.THROW_DOWN:
                self.stats["throw_downs"] += 1
                self._end_round("throw_down", p)
                return
            if action == A.LOOK:
                self.phase = self.turn_phase
                return
            self._illegal(action, "the first player chooses throw_down or look before looking")
        elif ph == OVER:
            raise ValueError(f"action {action!r} applied to a finished game")
        else:
            table.apply_action(self, action)

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def returns(self) -> list[float]:
        """Rewards earned so far: final once terminal (see the README's reward scheme)."""
        return list(self.payoff)

    def clone(self) -> ThirtyOneState:
        s = object.__new__(ThirtyOneState)
        for k in ThirtyOneState.__slots__:
            v = getattr(self, k)
            setattr(s, k, v[:] if type(v) is list else v)
        s.hands = [h[:] for h in self.hands]
        s.stats = dict(self.stats)
        s.rng = random.Random()
        s.rng.setstate(self.rng.getstate())
        return s

    # ----------------------------------------------------------------- helpers
    @property
    def options(self) -> ThirtyOneOptions:
        """The game's options (also ``opts``), as ``SkatState.options`` in Skat."""
        return self.opts

    def hand(self, seat: int) -> list[int]:
        """The cards a seat holds (ids, lowest first)."""
        return sorted(self.hands[seat])

    def hand_value(self, seat: int) -> float:
        return self.valuer.value(self.hand_mask[seat])

    def lives(self, seat: int) -> int:
        """Lives left, not counting the free ride (the pot game: tokens)."""
        return max(0, self.tokens[seat] - (1 if self.opts.free_ride else 0))

    def on_county(self, seat: int) -> bool:
        return self.opts.free_ride and self.tokens[seat] == 1

    def _draw_stock(self) -> int:
        """Draw the top card of the stock (apply_action inlines the same for speed)."""
        st = self.stock
        if self.ordered_stock:
            return st.pop()
        # a uniformly random card of the stock: the same as drawing from a shuffled one
        i = int(self.rng.random() * len(st))
        c = st[i]
        st[i] = st[-1]
        st.pop()
        return c

    def _knock(self, action: int) -> None:
        if self.knocker >= 0:
            self._illegal(action, f"player_{self.knocker} has already knocked this round")
        if not self._may_knock():
            self._illegal(action, self._knock_reason())
        self.knocker = self.current_player
        self.stats["knocks"] += 1
        self.turn_no += 1
        self._next_turn()

    def _knock_open(self) -> bool:
        """Knock is a legal choice now (nobody has knocked this round, and the player may)."""
        return self.knocker < 0 and self._may_knock()

    def _may_knock(self) -> bool:
        if self.turn_no < self.knock_from:
            return False
        m = self.opts.min_knock_score
        return m is None or self.valuer.value(self.hand_mask[self.current_player]) >= m

    def _knock_reason(self) -> str:
        if self.turn_no < self.knock_from:
            return "knocking is allowed only after the first full round (knock_allowed='after_first_round')"
        return f"the hand is worth less than min_knock_score={self.opts.min_knock_score}"

    def _illegal(self, action: Any, why: str) -> None:
        try:
            name = A.action_name(action)
        except ValueError:
            name = "not an action"
        raise ValueError(
            f"illegal action {action!r} ({name}) for player_{self.current_player} in phase "
            f"{PHASE_NAMES[self.phase]!r}: {why}; legal: {[A.ACTION_NAMES[a] for a in self.legal_actions()]}"
        )

    def _start_round(self, deck: list[int] | None = None, restart: tuple[int, list[int]] | None = None) -> None:
        """Deal a round (``envs.thirtyone.deal``). ``restart``: (seat, hand) of a Switch restart."""
        deal.start_round(self, deck, restart)

    def _next_turn(self) -> None:
        nxt = self.next_seat[self.current_player]
        if self.knocker >= 0:
            if nxt == self.knocker:
                self._end_round("showdown", self.knocker)
                return
        elif self.opts.max_turns is not None and self.turn_no >= self.opts.max_turns:
            self.stats["capped"] += 1
            self._end_round("capped")
            return
        if not self.stock and self.tk <= WIDOW:
            if self.opts.stock_exhausted == "draw" and self.knocker < 0:
                self.stats["voids"] += 1
                self._end_round("void")
                return
            top = self.pile.pop()
            self.stock = self.pile  # drawn from at random, so no shuffle is needed
            self.ordered_stock = False
            self.pile = [top]
            keep = 1 << top
            if self.tk == STOCK:
                self.disc_by = [d & keep for d in self.disc_by]
            else:  # the face-up table cards stay visible
                self.disc_by = [d & (keep | table.face_up_mask(self)) for d in self.disc_by]
            self.stats["reshuffles"] += 1
        self.current_player = nxt
        self.phase = self.turn_phase

    def _end_round(self, kind: str, knocker: int = -1) -> None:
        """Score the round (kind: showdown, capped, blitz, throw_down, void); deal the next or finish."""
        if self.opts.switch_restart and table.offer_restart(self, kind, knocker):
            return
        settle.end_round(self, kind, knocker)

    def _finish(self) -> None:
        self.phase = OVER
        self.current_player = -1
        self.pub_version += 1
