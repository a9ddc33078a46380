"""The rule-based Skat baseline: a classic heuristic player that learning agents must beat.

It decides from the seat's observation dict alone (``envs.skat.observation``): the vector is
decoded into bit sets once per decision and every rule works on those and on precomputed tables
(``agents.skat_heuristics``), which keeps a decision in the tens of microseconds.

Auction
    The ten cards are scored for every game (each suit, grand, null; with the skat or as a hand
    game) by the hand models of ``agents.skat_heuristics``: jacks, trump length, aces and tens,
    voids and losers, position. A game is worth bidding to a value ``v`` while its expected
    tournament score ``p (v + 50) - (1 - p) (2v + 50)`` is at least :data:`MARGIN`. Matadors are
    counted on the ten cards held (one more level for a hand game; null is worth 23, 35 by hand,
    59 ouvert by hand with no gap); for a hand "without n" the levels that a missing top trump
    found in the skat would take away only count with the chance that it is not there, an
    overbid game being lost. The highest such value over all games is the limit: the player bids
    the next value or holds while the bid is within it and passes as soon as it is not, so it
    never bids past the value its evaluation reaches.

Skat
    It plays hand when the best hand game's expected score at the bid beats the best game after
    picking up by :data:`HAND_EDGE`, else it picks up.

Discard and declaration
    For every game it finds the two cards whose removal maximises the post-pickup model (saving
    blank tens, clearing short suits, putting points into the skat; null drops its most
    dangerous cards), then keeps the game with the best expected score among those whose value
    (matadors counted with the skat) reaches the bid. The declaration repeats that choice over
    the legal contracts; null ouvert only with a hand without a gap. A game that cannot reach
    the bid counts as lost at the lowest value that would.

Kontra / Re
    Defenders say Kontra with a strong hand against the game (four or more trumps with two jacks
    or two aces, three jacks; grand: two jacks and two aces); the declarer answers Re when its
    post-pickup model gives at least 85% to win.

Card play
    See ``agents.skat_heuristics``: expected-value following (take tricks cheaply, smear points
    onto the partner's safe tricks, play low otherwise), declarer draws trumps then cashes its
    aces, defenders cash aces, lead for partner ruffs and follow "short way, long suit"; null and
    Ramsch have their own rules. Played cards come from the observation; voids (who did not
    follow which suit) are rebuilt trick by trick from this seat's consecutive observations,
    kept in a small table keyed by the seat's own cards, so one agent can play several seats
    and several deals at once (for batched rollouts).
"""

from __future__ import annotations

import numpy as np

from agents import skat_heuristics as H
from agents.base import Agent, Observation
from envs.skat import actions as A
from envs.skat.cards import EFF_SUIT, FOLLOW, GRAND, JACKS, NULL
from envs.skat.observation import SCALAR_OFFSET

MARGIN = 5.0  # minimum expected tournament score of a game worth bidding on
HAND_EDGE = 5.0  # how much better a hand game must look than picking up
RE_PROB = 0.85
NULL_OUVERT_P = 0.95  # winning chance of null ouvert with a hand without gaps
_MAX_MEMORY = 4096
_NUM_BIDS = A.NUM_BIDS
_BIDS_MASK = (1 << _NUM_BIDS) - 1
_JACK_MASK = sum(1 << c for c in JACKS)
_CONTRACT = A.CONTRACT_BY_LABEL
_SUIT_LABELS = "CSHDG"
_AUCTION, _SKAT, _DISCARD, _DECLARE, _KONTRA, _RE, _PLAY = range(7)


def _first(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


class RuleSkatAgent(Agent):
    game = "skat"
    name = "rule"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed  # the player is deterministic; the seed is accepted for the common interface
        self._memory: dict[tuple[int, int], tuple] = {}  # card play: voids and the last trick, per seat
        self._evals: dict[tuple[int, int], tuple] = {}  # auction: the hand evaluation, per hand
        self._plans: dict[int, int] = {}  # discard: the second card to put away, per remaining hand

    def reset(self) -> None:
        """Nothing to clear per deal: what the player remembers is keyed by the seat's own cards."""
        if len(self._memory) > _MAX_MEMORY:
            self._memory.clear()

    # --- the decision ---------------------------------------------------------------------
    def act(self, observation: Observation) -> int:
        vec = observation["observation"]
        legal = int.from_bytes(np.packbits(observation["action_mask"], bitorder="little").tobytes(), "little")
        if not legal:
            raise ValueError("RuleSkatAgent.act called with an empty action mask (no legal action)")
        s = vec[SCALAR_OFFSET:].tolist()
        phase = s[3:11].index(1.0)
        if legal & (legal - 1) == 0 and phase != _PLAY:  # forced (card play still updates its memory)
            return _first(legal)
        words = np.packbits(vec[:SCALAR_OFFSET] > 0.5, bitorder="little").view("<u4").tolist()
        if phase == _PLAY:
            action = A.PLAY + self._play(words, s, (legal >> A.PLAY) & H.FULL)
        elif phase == _AUCTION:
            action = self._auction(words[0], s, legal)
        elif phase == _SKAT:
            action = self._skat(words[0], s)
        elif phase == _DISCARD:
            action = A.DISCARD + self._discard(words[0], words[1], s)
        elif phase == _DECLARE:
            action = self._declare(words[0], words[1], s, legal)
        elif phase == _KONTRA:
            action = A.KONTRA if self._kontra(words[0], s) else A.PASS
        else:
            action = A.RE if self._re(words[0], words[1], s) else A.PASS
        if not legal >> action & 1:  # a safety net: the rules above only pick legal actions
            action = _first(legal)
        return action

    # --- auction and game choice ----------------------------------------------------------
    def evaluate(self, hand: int, forehand: bool) -> tuple[int, list[tuple[float, int, bool, bool]]]:
        """The bid limit of a ten-card hand, and its games as (winning chance, game, hand, ouvert)."""
        key = (hand, forehand)
        got = self._evals.get(key)
        if got is not None:
            return got
        skat_guess = (120 - H.mask_points(hand)) / 11.0  # two of the 22 unseen cards
        games = []
        limit = 0
        for g in range(6):
            for hand_game in (False, True):
                p = H.prob(H.score(hand, g, hand_game, forehand, skat_guess if hand_game else 0.0))
                games.append((p, g, hand_game, False))
                if g == NULL:
                    value = H.NULL_VALUE[hand_game, False]
                    reach = value if H.expected_score(p, value) >= MARGIN else 0
                else:
                    reach = H.bid_reach(p, hand, g, hand_game, MARGIN)
                limit = max(limit, reach)
        if H.null_safe(hand):  # null ouvert hand: no suit with a gap
            games.append((NULL_OUVERT_P, NULL, True, True))
            if H.expected_score(NULL_OUVERT_P, 59) >= MARGIN:
                limit = max(limit, 59)
        if len(self._evals) > _MAX_MEMORY:
            self._evals.clear()
        self._evals[key] = got = (limit, games)
        return got

    def bid_limit(self, observation: Observation) -> int:
        """The highest bid this player would make or hold with the hand in ``observation``."""
        vec = observation["observation"]
        words = np.packbits(vec[:SCALAR_OFFSET] > 0.5, bitorder="little").view("<u4").tolist()
        return self.evaluate(words[0], bool(vec[SCALAR_OFFSET] > 0.5))[0]

    def _auction(self, hand: int, s: list[float], legal: int) -> int:
        limit = self.evaluate(hand, s[0] > 0.5)[0]
        bid = round(s[11] * A.MAX_BID)
        if legal >> A.HOLD & 1:
            return A.HOLD if bid <= limit else A.PASS
        bids = legal & _BIDS_MASK
        if bids:
            i = _first(bids)
            if A.BID_VALUES[i] <= limit:
                return A.BID + i
        return A.PASS

    def _skat(self, hand: int, s: list[float]) -> int:
        bid = round(s[11] * A.MAX_BID)
        best = {False: -1e9, True: -1e9}
        for p, g, hand_game, ouvert in self.evaluate(hand, s[0] > 0.5)[1]:
            best[hand_game] = max(best[hand_game], _ev(p, hand, g, hand_game, ouvert, bid, False))
        return A.HAND if best[True] > best[False] + HAND_EDGE else A.PICKUP

    def _candidates(self, hand: int, skat: int, s: list[float], n_drop: int) -> list[tuple[float, int, int, bool]]:
        """(expected score, game, cards to drop, ouvert) of each pickup game, best discard applied."""
        bid = round(s[11] * A.MAX_BID)
        fore = s[0] > 0.5
        skat_pts = H.mask_points(skat)
        out = []
        for g in range(6):
            drop, logit = H.best_discard(hand, g, n_drop) if n_drop else (0, H.score(hand, g, True, False, 0.0))
            m = H.MODELS["null" if g == NULL else ("grand" if g == GRAND else "suit"), True]
            p = H.prob(logit + m.fore * fore + m.skat * skat_pts)
            out.append((_ev(p, hand | skat, g, False, False, bid, True), g, drop, False))
            if g == NULL and H.null_safe(hand ^ drop):
                out.append((_ev(min(p, NULL_OUVERT_P), 0, g, False, True, bid, True), g, drop, True))
        return out

    def _discard(self, hand: int, skat: int, s: list[float]) -> int:
        n_drop = hand.bit_count() - 10
        planned = self._plans.pop(hand, None)
        if planned is not None and hand >> planned & 1 and n_drop == 1:
            return planned
        best = max(self._candidates(hand, skat, s, n_drop), key=lambda t: t[0])
        drop = best[2]
        first = _first(drop)
        rest = drop ^ (1 << first)
        if rest:
            if len(self._plans) > _MAX_MEMORY:
                self._plans.clear()
            self._plans[hand ^ (1 << first)] = _first(rest)
        return first

    def _declare(self, hand: int, skat: int, s: list[float], legal: int) -> int:
        bid = round(s[11] * A.MAX_BID)
        fore = s[0] > 0.5
        options = []
        if legal >> (A.DECLARE + _CONTRACT["C"]) & 1:  # after pickup
            for ev, g, _, ouvert in self._candidates(hand, skat, s, 0):
                label = ("NO" if ouvert else "N") if g == NULL else _SUIT_LABELS[g]
                options.append((ev, label))
        else:  # hand game
            skat_guess = (120 - H.mask_points(hand)) / 11.0
            for g in range(6):
                p = H.prob(H.score(hand, g, True, fore, skat_guess))
                options.append((_ev(p, hand, g, True, False, bid, False), "NH" if g == NULL else _SUIT_LABELS[g] + "H"))
                if g == NULL and H.null_safe(hand):
                    options.append((_ev(min(p, NULL_OUVERT_P), hand, g, True, True, bid, False), "NOH"))
        options.sort(reverse=True)
        for _, label in options:
            action = A.DECLARE + _CONTRACT[label]
            if legal >> action & 1:
                return action
        return _first(legal)

    def _kontra(self, hand: int, s: list[float]) -> bool:
        g = s[30:36].index(1.0) if 1.0 in s[30:36] else -1
        if g < 0 or g == NULL:
            return False
        jacks = (hand & _JACK_MASK).bit_count()
        aces = sum(hand >> (8 * suit + H.ACE) & 1 for suit in range(4) if suit != g)
        if g == GRAND:
            return jacks >= 3 or (jacks >= 2 and aces >= 2)
        trumps = (hand & H.TRUMPS[g]).bit_count()
        return jacks >= 3 or (trumps >= 4 and (jacks >= 2 or aces >= 2))

    def _re(self, hand: int, skat: int, s: list[float]) -> bool:
        g = s[30:36].index(1.0) if 1.0 in s[30:36] else -1
        if g < 0:
            return False
        skat_pts = H.mask_points(skat) if skat else (120 - H.mask_points(hand)) / 11.0
        return H.prob(H.score(hand, g, True, s[0] > 0.5, skat_pts)) >= RE_PROB

    # --- card play ------------------------------------------------------------------------
    def _play(self, words: list[int], s: list[float], legal: int) -> int:
        hand = words[0]
        played = words[3:6]
        trick_planes = words[6:9]
        ramsch = s[36] > 0.5
        g = GRAND if ramsch else s[30:36].index(1.0)
        decl = -1 if ramsch else s[27:30].index(1.0)
        leader = s[50:53].index(1.0)
        trick = [trick_planes[(leader + i) % 3].bit_length() - 1 for i in range(3) if trick_planes[(leader + i) % 3]]
        eff = EFF_SUIT[g]
        follow = FOLLOW[g]

        # voids: remembered from this seat's last trick, plus the trick on the table
        voids = [0, 0, 0]
        rec = self._memory.pop((hand, played[0]), None)
        if rec is not None:
            prev_voids, prev_played, prev_trick, prev_leader, x = rec
            if all(prev_played[r] & ~played[r] == 0 for r in (1, 2)):
                voids = list(prev_voids)
                seats = [(prev_leader + i) % 3 for i in range(len(prev_trick))]
                cards = list(prev_trick) + [x]
                seats.append(0)
                for r in ((1, 2) if not prev_trick else ((1,) if len(prev_trick) == 1 else ())):
                    c = played[r] & ~prev_played[r] & ~trick_planes[r]
                    if c & (c - 1) == 0 and c:
                        seats.append(r)
                        cards.append(c.bit_length() - 1)
                e1 = eff[cards[0]]
                for r, c in zip(seats, cards, strict=True):
                    if r and eff[c] != e1:
                        voids[r] |= 1 << e1
        if trick:
            e0 = eff[trick[0]]
            for i in range(1, len(trick)):
                if eff[trick[i]] != e0:
                    voids[(leader + i) % 3] |= 1 << e0

        if legal & (legal - 1) == 0:
            card = _first(legal)
        else:
            known_skat = words[1] if decl == 0 else 0
            out = H.FULL & ~(hand | played[0] | played[1] | played[2] | known_skat)
            cand = [0, out, out]
            for r in (1, 2):
                v = voids[r]
                for e in range(5):
                    if v >> e & 1:
                        cand[r] &= ~follow[e]
            open_hand = words[9]
            if open_hand and decl > 0:
                cand[decl] = open_hand & out
                other = 3 - decl
                cand[other] &= ~open_hand
            sizes = [10 - played[0].bit_count(), 10 - played[1].bit_count(), 10 - played[2].bit_count()]
            S = H.Seen(g, hand, legal, trick, leader, decl, out, cand, sizes, ramsch)
            if ramsch:
                card = H.ramsch_play(S)
            elif g == NULL:
                card = H.null_declarer(S) if decl == 0 else H.null_defender(S)
            elif trick:
                card = H.follow_trump_game(S)
            elif decl == 0:
                card = H.lead_declarer(S)
            else:
                card = H.lead_defender(S)
        bit = 1 << card
        if hand != bit:  # not the last card
            if len(self._memory) > _MAX_MEMORY:
                self._memory.clear()
            self._memory[hand ^ bit, played[0] | bit] = (tuple(voids), tuple(played), tuple(trick), leader, card)
        return card


def _ev(p: float, cards: int, g: int, hand_game: bool, ouvert: bool, bid: int, skat_seen: bool) -> float:
    """Expected tournament score of declaring a game at ``bid`` (a null below the bid cannot be)."""
    if g == NULL:
        value = H.NULL_VALUE[hand_game, ouvert]
        return H.expected_score(p, value) if value >= bid else -1000.0
    return H.game_ev(p, cards, g, hand_game, bid, skat_seen)
