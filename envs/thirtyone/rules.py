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
from envs.thirtyone.cards import DECKS, NUM_CARDS, check_deck
from envs.thirtyone.options import ThirtyOneOptions, validate_options
from envs.thirtyone.scoring import BLITZ, HandValuer, elimination_reward, final_rewards, lives_lost, points_won

THROW, DRAW, DISCARD, OVER = range(4)
PHASE_NAMES = ("throw_down", "draw", "discard", "over")
STAT_KEYS = (
    "rounds", "knocks", "blitzes", "deal_blitzes", "voids", "reshuffles", "throw_downs", "capped",
    "knocker_losses", "turns",
)  # fmt: skip

# legal_bytes() of the choices that are not a discard
_DRAW_TAKE, _DRAW_TAKE_KNOCK, _THROW_LOOK = (
    bytes(a in legal for a in range(A.NUM_ACTIONS))
    for legal in ((A.DRAW, A.TAKE), (A.DRAW, A.TAKE, A.KNOCK), (A.THROW_DOWN, A.LOOK))
)


def _layout(dealer: int, alive: tuple[bool, ...] | list[bool]) -> tuple[list[int], list[int]]:
    """Seats in the round, clockwise from the dealer's left, and each one's next seat."""
    n = len(alive)
    seats = [(dealer + i) % n for i in range(1, n + 1) if alive[(dealer + i) % n]]
    nxt = [-1] * n
    for i, s in enumerate(seats):
        nxt[s] = seats[(i + 1) % len(seats)]
    return seats, nxt


class ThirtyOneGame:
    """The options of a game and the factory of its states (``envs.core.Game``)."""

    def __init__(self, **options: Any) -> None:
        self.options: ThirtyOneOptions = validate_options(**options)
        o = self.options
        self.num_players = o.num_players
        self.num_actions = A.NUM_ACTIONS
        self.deck_cards: tuple[int, ...] = DECKS[o.deck]
        self.valuer = HandValuer(o.three_of_a_kind, o.three_aces)
        self.start_tokens = o.lives + (1 if o.free_ride else 0)
        self.layouts: dict[tuple[int, ...], tuple[list[int], list[int]]] = {}  # cache of _layout

    def new_initial_state(
        self, seed: int | None = None, deck: list[str | int] | None = None, dealer: int | None = None
    ) -> ThirtyOneState:
        """A new game. ``deck`` fixes the order of the first deal (``deck[0]`` is dealt first, to
        the dealer's left; after the deal the next card is turned up, the rest is the stock, top
        first); later deals are shuffled from ``seed``. ``dealer`` overrides ``first_dealer``."""
        cards = self.check_deck(deck) if deck is not None else None
        if dealer is not None:
            dealer = as_seat(dealer, self.num_players, "dealer")
        return ThirtyOneState(self, seed, cards, dealer)

    def check_deck(self, deck: Any) -> list[int]:
        """A full deck order -> card ids; ValueError naming what is wrong."""
        return check_deck(deck, self.options.deck)

    def action_name(self, action: int) -> str:
        return A.action_name(action)

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
    )  # fmt: skip

    def __init__(self, game: ThirtyOneGame, seed: int | None, deck: list[int] | None, dealer: int | None) -> None:
        o = game.options
        n = o.num_players
        self.game, self.opts, self.n, self.valuer = game, o, n, game.valuer
        self.memo = game.valuer.memo  # hand values by bit set, every 3-card hand included
        self.rng = random.Random(seed)
        self.tokens = [game.start_tokens] * n  # lives + the free ride; 0 = out
        self.scores = [0] * n  # points game
        self.alive = [True] * n
        self.payoff = [0.0] * n
        self.n_out = 0
        if dealer is None:
            dealer = o.first_dealer if o.first_dealer is not None else self.rng.randrange(n)
        self.dealer = dealer
        self.owner = [-1] * NUM_CARDS  # who discarded each card now in the pile
        self.deck = list(game.deck_cards)  # permuted in place by each random deal
        self.round_no = 0
        self.pub_version = 0  # changes with every deal and at the end
        self.moves = 0  # apply_action calls (illegal ones included): lets caches check they are current
        self.last_round: dict[str, Any] | None = None
        self.stats = dict.fromkeys(STAT_KEYS, 0)
        self._start_round(deck)

    # ----------------------------------------------------------------- the protocol
    def legal_actions(self) -> list[int]:
        ph = self.phase
        if ph == DRAW:
            if self._knock_open():
                return [A.DRAW, A.TAKE, A.KNOCK]
            return [A.DRAW, A.TAKE]
        if ph == DISCARD:
            lk = self.locked
            return sorted([c for c in self.hands[self.current_player] if c != lk])
        if ph == THROW:
            return [A.THROW_DOWN, A.LOOK]
        return []

    def legal_bytes(self) -> bytearray:
        """``legal_actions()`` as a 0/1 byte per action (a new buffer): the env's action mask."""
        ph = self.phase
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
                    if self.memo[mask] >= BLITZ:  # 3 cards: always in the memo
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
                if self.knocker >= 0:
                    self._illegal(action, f"player_{self.knocker} has already knocked this round")
                if not self._may_knock():
                    self._illegal(action, self._knock_reason())
                self.knocker = p
                self.stats["knocks"] += 1
                self.turn_no += 1
                self._next_turn()
                return
            self._illegal(action, "a turn starts with draw, take or knock")
        elif ph == THROW:
            if action == A.THROW_DOWN:
                self.stats["throw_downs"] += 1
                self._end_round("throw_down", p)
                return
            if action == A.LOOK:
                self.phase = DRAW
                return
            self._illegal(action, "the first player chooses throw_down or look before looking")
        else:
            raise ValueError(f"action {action!r} applied to a finished game")

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
        """Lives left, not counting the free ride."""
        return max(0, self.tokens[seat] - (1 if self.opts.free_ride else 0))

    def on_county(self, seat: int) -> bool:
        return self.opts.free_ride and self.tokens[seat] == 1

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

    def _start_round(self, deck: list[int] | None = None) -> None:
        n = self.n
        self.round_no += 1
        self.pub_version += 1
        layout = self.game.layouts.get((self.dealer, *self.alive))
        if layout is None:
            layout = self.game.layouts[(self.dealer, *self.alive)] = _layout(self.dealer, self.alive)
        seats, self.next_seat = layout
        self.seats = seats
        m = len(seats)
        self.knock_from = m if self.opts.knock_allowed == "after_first_round" else 0
        k = 3 * m + 1
        if deck is None:  # deal a uniform random prefix (partial Fisher-Yates); the rest is the stock
            deck = self.deck
            rnd = self.rng.random
            size = len(deck)
            for i in range(k):
                j = i + int(rnd() * (size - i))
                deck[i], deck[j] = deck[j], deck[i]
            self.stock = deck[k:]  # drawn from at random, so its order does not matter
            self.ordered_stock = False
        else:  # a fixed deck order: pop() takes the top card
            self.stock = deck[k:][::-1]
            self.ordered_stock = True
        hands: list[list[int]] = [[] for _ in range(n)]
        masks = [0] * n
        value = self.valuer.memo
        blitz = False
        for j, s in enumerate(seats):  # one card at a time from the dealer's left
            a, b, c = deck[j], deck[j + m], deck[j + 2 * m]
            hands[s] = [a, b, c]
            masks[s] = mask = (1 << a) | (1 << b) | (1 << c)
            if value[mask] >= BLITZ:
                blitz = True
        self.hands, self.hand_mask = hands, masks
        up = deck[k - 1]
        self.pile = [up]
        self.owner[up] = self.dealer
        self.disc_by = [0] * n
        self.disc_by[self.dealer] = 1 << up
        self.known = [0] * n
        self.current_player = seats[0]
        self.phase = THROW if self.opts.throw_down else DRAW
        self.locked = -1
        self.knocker = -1
        self.turn_no = 0
        if blitz:
            self.stats["deal_blitzes"] += 1
            self._end_round("blitz")

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
        if not self.stock:
            if self.opts.stock_exhausted == "draw" and self.knocker < 0:
                self.stats["voids"] += 1
                self._end_round("void")
                return
            top = self.pile.pop()
            self.stock = self.pile  # drawn from at random, so no shuffle is needed
            self.ordered_stock = False
            self.pile = [top]
            keep = 1 << top
            self.disc_by = [d & keep for d in self.disc_by]
            self.stats["reshuffles"] += 1
        self.current_player = nxt
        self.phase = DRAW

    def _end_round(self, kind: str, knocker: int = -1) -> None:
        """Score the round (kind: showdown, capped, blitz, throw_down, void); deal the next or finish."""
        o, seats, st = self.opts, self.seats, self.stats
        st["rounds"] += 1
        st["turns"] += self.turn_no
        if kind == "blitz":
            st["blitzes"] += 1
        values = [self.valuer.value(self.hand_mask[s]) for s in seats]
        k = seats.index(knocker) if knocker >= 0 else None
        if kind == "void":
            delta = [0] * len(seats)
        elif o.scoring == "lives":
            delta = lives_lost(values, k, knocker_penalty=o.knocker_penalty, knocker_tie=o.knocker_tie)
        else:
            delta = points_won(values, k)
        if k is not None and kind != "blitz":
            if (delta[k] > 0) if o.scoring == "lives" else (delta[k] == 0):
                st["knocker_losses"] += 1
        self.last_round = {
            "round": self.round_no, "kind": kind, "knocker": knocker, "seats": list(seats),
            "hands": [self.hands[s] for s in seats],
            "values": values, "lives_lost" if o.scoring == "lives" else "points": delta,
            "eliminated": [], "void": kind == "void",
        }  # fmt: skip
        lives = o.scoring == "lives"
        if o.episode == "round":  # rewards: minus the lives lost, or the points won
            for s, d in zip(seats, delta, strict=True):
                self.payoff[s] = float(-d if lives else d)
                self.tokens[s] = max(0, self.tokens[s] - d) if lives else self.tokens[s]
                self.scores[s] += 0 if lives else d
            self._finish()
            return
        if lives:
            out = [s for s, d in zip(seats, delta, strict=True) if d and self.tokens[s] <= d]
            if len(out) == len(seats):  # nobody would be left: the round's losses are void
                self.last_round["void"] = True
            else:
                for s, d in zip(seats, delta, strict=True):
                    self.tokens[s] = max(0, self.tokens[s] - d)
                for s in out:
                    self.alive[s] = False
                    self.payoff[s] = elimination_reward(self.n, self.n_out, len(out), o.reward_scheme)
                self.n_out += len(out)
                self.last_round["eliminated"] = out
            if sum(self.alive) == 1:
                winner = next(s for s in seats if self.alive[s])
                self.payoff[winner] = 1.0
                self._finish()
                return
        else:
            for s, d in zip(seats, delta, strict=True):
                self.scores[s] += d
            top = max(self.scores)
            if top >= o.target_score and self.scores.count(top) == 1:
                self.payoff = final_rewards(self.scores, o.reward_scheme)
                self._finish()
                return
        self.dealer = self.next_seat[self.dealer]
        while not self.alive[self.dealer]:
            self.dealer = (self.dealer + 1) % self.n
        self._start_round()

    def _finish(self) -> None:
        self.phase = OVER
        self.current_player = -1
        self.pub_version += 1
