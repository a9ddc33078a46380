"""Worlds a Thirty-One seat cannot tell apart: what it knows (:class:`Knowledge`) and rules states drawn from it.

A search agent acts from its observation alone. :func:`knowledge` reads what the seat knows from the
observation (decoded) and the game's options: its hand, the discard pile by who discarded each card,
the cards others are known to hold (taken from the pile), the stock size, lives, points, the dealer,
the knocker, the turn and the phase. :func:`sample_world` deals the cards it does not see (the other
hands, the stock, the order of the pile under its top card) at random, consistently with that, and
returns a :class:`~envs.thirtyone.rules.ThirtyOneState` in which the search can play on with the rules
core. Seats are the observation's *relative* seats: the observer sits at seat 0 and is to act; seat r
is r places to its left (the deal goes to the next seat, as in the rules core).

Hand models (``model``):

* ``"uniform"``: every hidden card is equally likely anywhere it could be.
* ``"draws"``: an opponent that has drawn from the stock k times this round has seen k more cards
  than it holds and kept the best ones; its hidden cards are the best ``3 - known`` of ``3 - known + k``
  cards drawn at random (k capped at ``max_draws``), the others go back to the unseen cards. Hands
  late in a round are then as strong as they tend to be, not as weak as a fresh deal.

Covered: the games with a stock and a discard pile (``exchange="stock"``: scat, no_elimination,
cut_throat and their options) while a player looks at its hand (not the throw-down choice, made
before looking). :func:`covers` says whether a game is; the table games are not.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from envs.thirtyone.cards import DECKS, cards_of
from envs.thirtyone.deal import seat_layout
from envs.thirtyone.phases import DISCARD, DRAW, STOCK
from envs.thirtyone.rules import ThirtyOneGame, ThirtyOneState

MODELS = ("uniform", "draws")


@dataclass(frozen=True)
class Knowledge:
    """What the seat to act knows, in relative seats (0 = the observer)."""

    n: int  # seats at the table
    hand: tuple[int, ...]  # own cards (4 between draw and discard)
    pile: tuple[int, ...]  # the discard pile's cards, any order but the top card last
    pile_owner: tuple[int, ...]  # who discarded each of them
    known: tuple[int, ...]  # per seat: bit set of the cards it is known to hold
    stock: int  # cards in the stock
    tokens: tuple[int, ...]  # per seat: lives + the free ride (0: out)
    scores: tuple[int, ...]  # per seat: points (points game)
    dealer: int
    knocker: int  # -1: nobody has knocked
    turn: int  # turns played this round
    round_no: int
    phase: int  # DRAW or DISCARD
    locked: int  # the card taken from the pile this turn (-1: none)
    unseen: tuple[int, ...]  # cards the observer has not seen where they are: other hands and the stock

    @property
    def alive(self) -> tuple[bool, ...]:
        return tuple(t > 0 for t in self.tokens)

    def seats(self) -> list[int]:
        """The seats in this round, from the dealer's left."""
        return seat_layout(self.dealer, self.alive)[0]

    def turns_taken(self, seat: int) -> int:
        """Turns ``seat`` has had this round (the round starts at the dealer's left)."""
        seats = self.seats()
        j = seats.index(seat)
        return max(0, -(-(self.turn - j) // len(seats)))


def covers(game: ThirtyOneGame) -> bool:
    """Whether :func:`sample_world` can stand in for this game's hidden cards (a stock and a discard pile)."""
    return game.exchange == STOCK


def knowledge(info: dict[str, Any], game: ThirtyOneGame) -> Knowledge:
    """What the seat knows, from its decoded observation (``envs.thirtyone.observation.decode``) and the
    game's options (the lives option, the free ride and the target score are not in the observation).
    ValueError if the observation does not fit the game (another player count, deck, a table game)."""
    o = game.options
    if not covers(game):
        raise ValueError("the world sampler covers the games with a stock and a discard pile, not "
                         f"exchange={o.exchange!r}")
    n = info["players"]
    if n != o.num_players:
        raise ValueError(f"the observation is of a {n}-player table, the options say {o.num_players}")
    if info["phase"] == "draw":
        phase = DRAW
    elif info["phase"] == "discard":
        phase = DISCARD
    else:
        raise ValueError(f"no world to sample in phase {info['phase']!r} (the observer must be looking at its hand)")
    ride = 1 if o.free_ride else 0
    tokens = []
    for r in range(n):
        if info["out"][r]:
            tokens.append(0)
        elif info["on_county"][r]:
            tokens.append(1)
        else:
            tokens.append(round(info["lives"][r] * o.lives) + ride)
    scores = tuple(round(x * o.target_score) for x in info["scores"][:n]) if o.scoring == "points" else (0,) * n
    hand = tuple(info["hand"])
    top = info["top"]
    pile, owner = [], []
    for r in range(n):
        for c in info["pile_by"][r]:
            if c != top:
                pile.append(c)
                owner.append(r)
    if top >= 0:
        pile.append(top)
        owner.append(next(r for r in range(n) if top in info["pile_by"][r]))
    known = [0] * n
    for r in range(1, n):
        for c in info["held_by"][r]:
            known[r] |= 1 << c
    locked = info["locked"]
    if locked >= 0:
        known[0] |= 1 << locked
    seen = set(hand) | set(pile) | {c for r in range(1, n) for c in info["held_by"][r]}
    deck = DECKS[o.deck]
    if not seen <= set(deck):
        raise ValueError(f"the observation shows cards outside the {o.deck}-card deck")
    k = Knowledge(n, hand, tuple(pile), tuple(owner), tuple(known), info["stock"], tuple(tokens), scores,
                  info["dealer"], info["knocker"], info["turn"], info["round"], phase, locked,
                  tuple(c for c in deck if c not in seen))
    hidden = sum(3 - bin(k.known[r]).count("1") for r in k.seats() if r != 0)
    if hidden + k.stock != len(k.unseen) or len(hand) != (4 if phase == DISCARD else 3):
        raise ValueError(f"the observation does not add up: {len(k.unseen)} unseen cards for {hidden} hidden hand "
                         f"cards and a stock of {k.stock}")
    return k


def _template(game: ThirtyOneGame) -> ThirtyOneState:
    """A state of ``game`` whose every field :func:`sample_world` overwrites (cached on the game)."""
    state = getattr(game, "_world_template", None)
    if state is None:
        state = game.new_initial_state(seed=0)
        game._world_template = state  # type: ignore[attr-defined]
    return state


def _best_hand(memo: dict[int, float], known: int, cards: list[int], size: int) -> tuple[int, ...]:
    """The ``size`` cards of ``cards`` that make the best hand with the ``known`` ones (first best wins)."""
    best, best_value = tuple(cards[:size]), -1.0
    for pick in combinations(cards, size):
        mask = known
        for c in pick:
            mask |= 1 << c
        v = memo[mask]
        if v > best_value:
            best, best_value = pick, v
    return best


def sample_world(k: Knowledge, game: ThirtyOneGame, rng: random.Random, model: str = "uniform",
                 max_draws: int = 4) -> ThirtyOneState:
    """A rules state consistent with ``k``: the observer (seat 0) to act, the hidden cards dealt at random
    (see the module docstring for ``model``). The stock is ordered (drawn from the top, so that states
    cloned from this one draw the same cards), and the state's own random stream is seeded from ``rng``."""
    pool = list(k.unseen)
    rng.shuffle(pool)
    n = k.n
    hands: list[list[int]] = [[] for _ in range(n)]
    hands[0] = list(k.hand)
    seats = k.seats()
    memo = game.valuer.memo
    for r in seats:
        if r == 0:
            continue
        held = cards_of(k.known[r])
        need = 3 - len(held)
        extra = 0
        if model == "draws" and need:
            extra = min(max_draws, max(0, k.turns_taken(r) - len(held) - (r == k.knocker)), len(pool) - need)
        drawn = [pool.pop() for _ in range(need + extra)]
        if extra:
            pick = _best_hand(memo, k.known[r], drawn, need)
            for c in drawn:  # the cards not kept go back among the unseen ones, anywhere
                if c not in pick:
                    pool.insert(rng.randrange(len(pool) + 1), c)
            drawn = list(pick)
        hands[r] = held + drawn
    s = _template(game).clone()
    s.rng = random.Random(rng.getrandbits(64))
    s.tokens = list(k.tokens)
    s.alive = list(k.alive)
    s.scores = list(k.scores)
    s.payoff = [0.0] * n
    s.n_out = n - sum(s.alive)
    s.paid, s.kitty, s.kitty_to, s.pot, s.anted = [0] * n, 0, [0] * n, 0, [0] * n
    s.dealer = k.dealer
    s.seats, s.next_seat = seat_layout(k.dealer, s.alive)
    s.knock_from = len(seats) if game.options.knock_allowed == "after_first_round" else 0
    s.hands = hands
    s.hand_mask = [sum(1 << c for c in h) for h in hands]
    s.stock = pool
    s.ordered_stock = True
    s.pile = list(k.pile[:-1])
    rng.shuffle(s.pile)  # the order under the top card is not seen
    s.pile += k.pile[-1:]
    s.owner = [-1] * len(s.owner)
    s.disc_by = [0] * n
    for c, r in zip(k.pile, k.pile_owner, strict=True):
        s.owner[c] = r
        s.disc_by[r] |= 1 << c
    s.known = list(k.known)
    s.phase = k.phase
    s.current_player = 0
    s.locked = k.locked
    s.knocker = k.knocker
    s.turn_no = k.turn
    s.round_no = k.round_no
    s.pub_version = s.moves = 0
    s.last_round = None
    s.stats = dict.fromkeys(s.stats, 0)
    return s


def fork(s: ThirtyOneState) -> ThirtyOneState:
    """A copy of a world to play on, cheaper than ``clone``: the copy shares the random stream (a world's
    stock is ordered, so only a reshuffle of the discard pile draws from it; the forks of one world
    then draw in turn from one stream, and stay a function of the world's seed)."""
    c = object.__new__(ThirtyOneState)
    for k in _SLOTS:
        v = getattr(s, k)
        setattr(c, k, v[:] if type(v) is list else v)
    c.hands = [h[:] for h in s.hands]
    c.stats = dict(s.stats)
    return c


_SLOTS = ThirtyOneState.__slots__
