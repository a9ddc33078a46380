"""What a seat knows in card play (decoded from its observation) and worlds consistent with it.

A *world* gives every hidden card a place: the hands of the two other seats and, while it is not
known, the skat. Cards a seat has shown it cannot hold (a void: it failed to follow an effective
suit) never go to that seat; an ouvert declarer's hand is open. Worlds are drawn by dealing the
hidden cards one at a time, the most constrained first, each to a place it may go with chance
proportional to the room left there (uniform over consistent worlds when no void is known, close
to it otherwise). ``bidding_weight`` gives the optional inference: how well each seat's cards in a
world fit its calls in the auction under the rule agent's bidding model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envs.bitset import cards_of
from envs.skat import actions as A
from envs.skat.cards import EFF_SUIT, FOLLOW, FULL_DECK, GRAND
from envs.skat.observation import SkatView

SKAT = 3  # place index of the skat in a world


@dataclass
class Knowledge:
    """One seat's knowledge in card play; seats are absolute positions (0 forehand)."""

    me: int
    game: int
    declarer: int  # -1 in Ramsch
    hand: int
    played: tuple[int, int, int]  # by position, the current trick included
    trick: tuple[int, ...]
    leader: int
    points: tuple[int, int, int]
    tricks: tuple[int, int, int]
    voids: tuple[int, int, int]  # effective suits (bits 0-4) each position failed to follow
    skat: int  # the skat when this seat knows it (declarer after pickup), else 0
    open_hand: int  # the ouvert declarer's hand (when it is not this seat), else 0
    ramsch: bool

    @classmethod
    def from_view(cls, v: SkatView) -> Knowledge:
        me = v.position
        pos = [(me + r) % 3 for r in range(3)]

        def absolute(values):
            out = [0, 0, 0]
            for r in range(3):
                out[pos[r]] = values[r]
            return tuple(out)

        ramsch = v.ramsch
        game = GRAND if ramsch else v.game_type
        declarer = -1 if ramsch or v.declarer < 0 else pos[v.declarer]
        skat = v.skat_put if declarer == me else 0
        open_hand = v.open_hand if declarer != me else 0
        return cls(me, game, declarer, v.hand, absolute(v.played), tuple(v.trick_order),
                   pos[v.leader] if v.leader >= 0 else 0, absolute(v.card_points), absolute(v.tricks_won),
                   absolute(v.voids), skat, open_hand, ramsch)

    def sizes(self) -> tuple[int, int, int]:
        return tuple(10 - self.played[p].bit_count() for p in range(3))

    def hidden(self) -> int:
        """Cards whose place this seat does not know."""
        seen = self.hand | self.played[0] | self.played[1] | self.played[2] | self.skat | self.open_hand
        return FULL_DECK & ~seen


def sample_world(k: Knowledge, rng: np.random.Generator, tries: int = 20) -> list[int] | None:
    """Hands of the three positions and the skat (index 3) in one world consistent with ``k``."""
    sizes = k.sizes()
    places = [0, 0, 0, k.skat]
    places[k.me] = k.hand
    room = [0, 0, 0, 0 if k.skat else 2]
    for p in range(3):
        if p == k.me:
            continue
        if k.open_hand and p == k.declarer:
            places[p] = k.open_hand
        else:
            room[p] = sizes[p]
    hidden = cards_of(k.hidden())
    if len(hidden) != sum(room):
        raise ValueError(f"the observation is inconsistent: {len(hidden)} hidden cards for {sum(room)} places")
    eff = EFF_SUIT[k.game]
    allowed = []
    for c in hidden:
        opts = [p for p in range(3) if room[p] and not k.voids[p] >> eff[c] & 1]
        if room[SKAT]:
            opts.append(SKAT)
        allowed.append(opts)
    for attempt in range(tries):
        left = list(room)
        world = list(places)
        order = rng.permutation(len(hidden))
        order = sorted(order, key=lambda i: len(allowed[i]))  # the most constrained cards first
        ok = True
        for i in order:
            opts = [p for p in allowed[i] if left[p]]
            if not opts:
                ok = False
                break
            p = opts[_weighted_index([left[p] for p in opts], rng)] if len(opts) > 1 else opts[0]
            world[p] |= 1 << hidden[i]
            left[p] -= 1
        if ok:
            return world
        if attempt == tries - 2:  # the voids cannot all be honoured (should not happen): drop them
            allowed = [[p for p in range(4) if room[p]] for _ in hidden]
    return None


def _weighted_index(weights: list[int], rng: np.random.Generator) -> int:
    """``rng.choice(len(weights), p=weights / sum)`` with the same draw and the same float steps
    (cumulative sum, normalised by its last entry, ``searchsorted(side="right")``), without
    numpy's per-call overhead: worlds stay the same bit for bit."""
    total = float(sum(weights))
    cdf, acc = [], 0.0
    for w in weights:
        acc += w / total
        cdf.append(acc)
    u = rng.random()
    last = cdf[-1]
    return sum(1 for x in cdf if x / last <= u)


def _next_bid(value: int) -> int:
    for b in A.BID_VALUES:
        if b > value:
            return b
    return A.MAX_BID + 1


def bidding_weight(rule, k: Knowledge, world: list[int], view: SkatView, miss: float = 0.2) -> float:
    """How well the other seats' cards in ``world`` fit their auction under the rule agent's bidding
    model (its bid limit of a ten-card hand): 1 when every call fits, ``miss`` per call that does not.

    A seat that called or held ``m`` should have a limit of at least ``m``; one that passed, a limit
    below the value it passed at (at most the bid after the final one). The declarer's ten cards are taken as its cards
    now plus those it played (after a pickup the skat exchange is not undone: an approximation)."""
    w = 1.0
    for r in (1, 2):
        p = (k.me + r) % 3
        ten = world[p] | k.played[p]
        if ten.bit_count() != 10:
            continue
        limit = rule.evaluate(ten, p == 0)[0]
        m = view.max_call[r]
        if view.called[r] and limit < m:
            w *= miss
        if view.passed[r] and p != k.declarer:
            # It passed at a value no higher than the next bid over the final one; middlehand that
            # never called passed at the very first call, 18.
            ceiling = 18 if p == 1 and not view.called[r] else _next_bid(view.bid)
            if limit >= ceiling:
                w *= miss
    return w


def legal_in_world(k: Knowledge) -> int:
    """The cards this seat may play now (its hand, following the led suit if it can)."""
    if k.trick:
        follow = k.hand & FOLLOW[k.game][EFF_SUIT[k.game][k.trick[0]]]
        if follow:
            return follow
    return k.hand
