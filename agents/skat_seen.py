"""What a seat knows at a card-play decision of the rule-based Skat player (``agents.skat_play``).

Read from the decoded observation alone (``envs.skat.observation.decode``): the cards still out
(not in its hand, not played, not in a skat it put away), the cards each other seat may still
hold (the cards out minus the suits it has shown void in, or exactly the open hand of an ouvert
declarer) and how many it holds. :class:`Seen` turns that into hypergeometric odds: the chance a
seat holds one of some cards, is void in a suit, or can beat a card.
"""

from __future__ import annotations

import math

from envs.skat.cards import EFF_SUIT, FOLLOW, FULL_DECK, NULL, NUM_CARDS, RAMSCH, TRUMP
from envs.skat.observation import NUM_EFFECTIVE_SUITS, SkatView
from envs.skat.tables import BEATERS, HAND_SIZE, TRUMPS


def _void_table() -> tuple:
    """VOIDP[N][k][h]: chance that a hand of h cards drawn from N unknown ones misses k given cards."""
    t = []
    for n in range(NUM_CARDS + 1):
        row = []
        for k in range(n + 1):
            row.append(tuple(math.comb(n - k, h) / math.comb(n, h) if h <= n else 0.0 for h in range(HAND_SIZE + 1)))
        t.append(tuple(row))
    return tuple(t)


VOIDP = _void_table()


def p_holds_any(n_pool: int, k: int, h: int) -> float:
    """Chance a hand of ``h`` cards out of ``n_pool`` unknown ones holds one of ``k`` given cards."""
    if k <= 0 or h <= 0:
        return 0.0
    if h >= n_pool:
        return 1.0
    return 1.0 - VOIDP[n_pool][k][h]


class Seen:
    """What one seat knows at a card-play decision (relative seats: 0 me, 1 next, 2 the one after).

    ``cand[r]`` are the cards seat r may still hold (cards out minus its known voids; exact for an
    ouvert declarer); ``sizes[r]`` how many cards it holds; ``decl`` the relative declarer (-1 in
    Ramsch)."""

    __slots__ = ("g", "hand", "legal", "trick", "leader", "decl", "out", "cand", "npool", "sizes", "ramsch")

    def __init__(self, g: int, hand: int, legal: int, trick: list[int], leader: int, decl: int, out: int,
                 cand: list[int], sizes: list[int], ramsch: bool) -> None:
        self.g, self.hand, self.legal, self.trick, self.leader = g, hand, legal, trick, leader
        self.decl, self.out, self.cand, self.sizes, self.ramsch = decl, out, cand, sizes, ramsch
        self.npool = [0, cand[1].bit_count(), cand[2].bit_count()]

    def p_any(self, r: int, cards: int) -> float:
        """Chance seat r holds at least one of ``cards``."""
        return p_holds_any(self.npool[r], (self.cand[r] & cards).bit_count(), self.sizes[r])

    def p_void(self, r: int, e: int) -> float:
        return 1.0 - self.p_any(r, FOLLOW[self.g][e])

    def p_beat(self, r: int, top: int, e: int) -> float:
        """Chance seat r (still to play) beats ``top`` in a trick led in effective suit ``e``."""
        g = self.g
        cand, n, h = self.cand[r], self.npool[r], self.sizes[r]
        suit = cand & FOLLOW[g][e]
        ns = suit.bit_count()
        beat = BEATERS[g][top]
        if EFF_SUIT[g][top] == e:
            pf = p_holds_any(n, (suit & beat).bit_count(), h)
            if e == TRUMP or g == NULL:
                return pf
            pv = 1.0 - p_holds_any(n, ns, h)
            if pv <= 0.0:
                return pf
            return pf + pv * p_holds_any(n - ns, (cand & TRUMPS[g]).bit_count(), h)
        pv = 1.0 - p_holds_any(n, ns, h)  # top ruffed a plain lead: r beats only by over-ruffing
        if pv <= 0.0:
            return 0.0
        return pv * p_holds_any(n - ns, (cand & beat).bit_count(), h)

    def team(self, r: int) -> bool:
        return r == 0 or (self.decl != 0 and r != self.decl)


def seen(view: SkatView, legal: int) -> Seen:
    """What the seat of ``view`` knows at a card-play decision with the playable cards ``legal``."""
    hand = view.hand
    played = view.played
    ramsch = view.ramsch
    g = RAMSCH if ramsch else view.game_type
    decl = -1 if ramsch else view.declarer
    known_skat = view.skat_put if decl == 0 else 0
    out = FULL_DECK & ~(hand | played[0] | played[1] | played[2] | known_skat)
    cand = [0, out, out]
    voids = view.voids
    follow = FOLLOW[g]
    for r in (1, 2):
        for e in range(NUM_EFFECTIVE_SUITS):
            if voids[r] >> e & 1:
                cand[r] &= ~follow[e]
    open_hand = view.open_hand
    if open_hand and decl > 0:  # an ouvert declarer's hand is known exactly
        cand[decl] = open_hand & out
        cand[3 - decl] &= ~open_hand
    sizes = [HAND_SIZE - played[0].bit_count(), HAND_SIZE - played[1].bit_count(), HAND_SIZE - played[2].bit_count()]
    return Seen(g, hand, legal, view.trick_order, view.leader, decl, out, cand, sizes, ramsch)
