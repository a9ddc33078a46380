"""The rule-based Skat baseline: a classic heuristic player that learning agents must beat.

It decides from the seat's observation dict alone: the vector is decoded once per decision
(``envs.skat.observation.decode``) and every rule works on bit sets and precomputed tables, which
keeps a decision in the tens of microseconds. It keeps nothing between decisions (the voids it
plays by are in the observation), so one instance may play any number of seats and tables at
once (``shareable``); its only memory is a cache of hand evaluations.

Auction
    The ten cards are scored for every game (each suit, grand, null; with the skat or as a hand
    game) by the hand models of ``agents.skat_hand``: jacks, trump length, aces and tens,
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
    (matadors counted with the skat) reaches the bid. The first discard puts away the lower card
    id of that pair; the second finds the same pair again (the first card is in the observation)
    and puts away the other. The declaration repeats that choice over the legal contracts; null
    ouvert only with a hand without a gap. A game that cannot reach the bid counts as lost at the
    lowest value that would.

Kontra / Re
    Defenders say Kontra with a strong hand against the game (four or more trumps with two jacks
    or two aces, three jacks; grand: two jacks and two aces); the declarer answers Re when its
    post-pickup model gives at least 85% to win.

Other tables
    Every table but the ISkO one (four players, lists, Ramsch variants, two players, Tournee...)
    is played by ``agents.skat_tables``, which reuses these rules wherever the table allows.

Card play
    See ``agents.skat_play``: expected-value following (take tricks cheaply, smear points onto
    the partner's safe tricks, play low otherwise), declarer draws trumps then cashes its aces,
    defenders cash aces, lead for partner ruffs and follow "short way, long suit"; null and
    Ramsch have their own rules. The cards played, the trick, the voids each seat has shown and
    an ouvert declarer's hand all come from the observation (``agents.skat_seen``).
"""

from __future__ import annotations

import functools

import numpy as np

from agents import skat_hand as H
from agents.base import ArrayAgent, Observation
from agents.skat_play import choose_card
from agents.skat_tables import decide
from envs.skat import actions as A
from envs.skat.cards import ACE, CLUBS, GRAND, JACK_MASK, NULL
from envs.skat.observation import OBSERVATION_SIZE, SkatView, decode
from envs.skat.rules import AUCTION, DECLARE, DISCARD, FOREHAND, KONTRA, PLAY, SKAT
from envs.skat.tables import GAME_TYPES, HAND_SIZE, NULL_VALUE, TRUMPS

MARGIN = 5.0  # minimum expected tournament score of a game worth bidding on
HAND_EDGE = 5.0  # how much better a hand game must look than picking up
RE_PROB = 0.85
NULL_OUVERT_P = 0.95  # winning chance of null ouvert with a hand without gaps
_MAX_CACHE = 4096
_BIDS_MASK = (1 << A.NUM_BIDS) - 1
# The plain declarations (no schneider or schwarz announced) by (game type, hand, ouvert): ISS labels.
_LABEL = {(g, hand, ouvert): A.Contract(g, hand, False, False, ouvert).label
          for g in GAME_TYPES for hand in (False, True) for ouvert in (False, True)}
_PICKUP_CLUBS = A.DECLARE + A.CONTRACT_BY_LABEL[_LABEL[CLUBS, False, False]]  # legal only after a pickup


def _first(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


class RuleSkatAgent(ArrayAgent):
    game = "skat"
    name = "rule"
    array_size = OBSERVATION_SIZE  # ISkO rows go through the batched player
    shareable = True  # no per-deal state: everything it plays by is in the observation

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed  # the player is deterministic; the seed is accepted for the common interface
        self._evals: dict[tuple[int, bool], tuple] = {}  # cache of evaluate(), a function of the hand
        self._discards: dict[tuple[int, int, int, bool], int] = {}  # cache of the best pair to put away

    def reset(self) -> None:
        """Nothing to clear: the player keeps no state between decisions (only pure caches)."""

    # --- the decision ---------------------------------------------------------------------
    def act(self, observation: Observation) -> int:
        legal = int.from_bytes(np.packbits(observation["action_mask"], bitorder="little").tobytes(), "little")
        if not legal:
            raise ValueError("RuleSkatAgent.act called with an empty action mask (no legal action)")
        if legal & (legal - 1) == 0:  # forced
            return _first(legal)
        if len(observation["observation"]) != OBSERVATION_SIZE:  # an extended table: agents.skat_tables
            return decide(self, observation, legal)
        view = decode(observation["observation"])
        phase = view.phase
        if phase == PLAY:
            action = A.PLAY + choose_card(view, legal >> A.PLAY)
        elif phase == AUCTION:
            action = self._auction(view, legal)
        elif phase == SKAT:
            action = self._skat(view)
        elif phase == DISCARD:
            action = A.DISCARD + self._discard(view)
        elif phase == DECLARE:
            action = self._declare(view, legal)
        elif phase == KONTRA:
            action = A.KONTRA if self._kontra(view) else A.PASS
        else:
            action = A.RE if self._re(view) else A.PASS
        if not legal >> action & 1:  # a safety net: the rules above only pick legal actions
            action = _first(legal)
        return action

    def _act_rows(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """ISkO rows in one call of the numba copy of this player (``agents.rule_skat_kernel``, held to
        ``act`` bit for bit by its test)."""
        from agents.rule_skat_kernel import act_arrays  # numba: imported when first used

        return act_arrays(observations, masks, _kernel_tables())

    # --- auction and game choice ----------------------------------------------------------
    def evaluate(self, hand: int, forehand: bool) -> tuple[int, list[tuple[float, int, bool, bool]]]:
        """The bid limit of a ten-card hand, and its games as (winning chance, game, hand, ouvert)."""
        key = (hand, forehand)
        got = self._evals.get(key)
        if got is not None:
            return got
        skat_guess = H.skat_guess(hand)
        games = []
        limit = 0
        for g in GAME_TYPES:
            for hand_game in (False, True):
                p = H.prob(H.score(hand, g, hand_game, forehand, skat_guess if hand_game else 0.0))
                games.append((p, g, hand_game, False))
                if g == NULL:
                    value = NULL_VALUE[hand_game, False]
                    reach = value if H.expected_score(p, value) >= MARGIN else 0
                else:
                    reach = H.bid_reach(p, hand, g, hand_game, MARGIN)
                limit = max(limit, reach)
        if H.null_safe(hand):  # null ouvert hand: no suit with a gap
            games.append((NULL_OUVERT_P, NULL, True, True))
            if H.expected_score(NULL_OUVERT_P, NULL_VALUE[True, True]) >= MARGIN:
                limit = max(limit, NULL_VALUE[True, True])
        if len(self._evals) > _MAX_CACHE:
            self._evals.clear()
        self._evals[key] = got = (limit, games)
        return got

    def bid_limit(self, observation: Observation) -> int:
        """The highest bid this player would make or hold with the hand in ``observation``."""
        view = decode(observation["observation"])
        return self.evaluate(view.hand, view.position == FOREHAND)[0]

    def _auction(self, view: SkatView, legal: int) -> int:
        limit = self.evaluate(view.hand, view.position == FOREHAND)[0]
        if legal >> A.HOLD & 1:
            return A.HOLD if view.bid <= limit else A.PASS
        bids = legal & _BIDS_MASK
        if bids:
            i = _first(bids)
            if A.BID_VALUES[i] <= limit:
                return A.BID + i
        return A.PASS

    def _skat(self, view: SkatView) -> int:
        hand, bid = view.hand, view.bid
        best = {False: -1e9, True: -1e9}
        for p, g, hand_game, ouvert in self.evaluate(hand, view.position == FOREHAND)[1]:
            best[hand_game] = max(best[hand_game], _ev(p, hand, g, hand_game, ouvert, bid, False))
        return A.HAND if best[True] > best[False] + HAND_EDGE else A.PICKUP

    def _candidates(self, hand: int, skat: int, bid: int, fore: bool,
                    n_drop: int) -> list[tuple[float, int, int, bool]]:
        """(expected score, game, cards to drop, ouvert) of each pickup game, best discard applied."""
        skat_pts = H.points(skat)
        out = []
        for g in GAME_TYPES:
            drop, logit = H.best_discard(hand, g, n_drop) if n_drop else (0, H.score(hand, g, True, False, 0.0))
            m = H.model(g, True)
            p = H.prob(logit + m.fore * fore + m.skat * skat_pts)
            out.append((_ev(p, hand | skat, g, False, False, bid, True), g, drop, False))
            if g == NULL and H.null_safe(hand ^ drop):
                out.append((_ev(min(p, NULL_OUVERT_P), 0, g, False, True, bid, True), g, drop, True))
        return out

    def _best_drop(self, hand: int, skat: int, bid: int, fore: bool, n_drop: int) -> int:
        """The cards to put away (a bit set) for the best game after pickup."""
        key = (hand, skat, bid, fore)
        if n_drop == 2 and key in self._discards:
            return self._discards[key]
        drop = max(self._candidates(hand, skat, bid, fore, n_drop), key=lambda t: t[0])[2]
        if n_drop == 2:
            if len(self._discards) > _MAX_CACHE:
                self._discards.clear()
            self._discards[key] = drop
        return drop

    def _discard(self, view: SkatView) -> int:
        hand, put = view.hand, view.skat_put
        bid, fore = view.bid, view.position == FOREHAND
        n_drop = hand.bit_count() - HAND_SIZE
        if n_drop == 1 and put:  # the pair chosen with twelve cards, whose lower card is put away
            pair = self._best_drop(hand | put, 0, bid, fore, 2)
            if _first(pair) == _first(put) and pair & hand:
                return _first(pair & hand)
        return _first(self._best_drop(hand, put, bid, fore, n_drop))

    def _declare(self, view: SkatView, legal: int) -> int:
        hand, bid = view.hand, view.bid
        options = []
        if legal >> _PICKUP_CLUBS & 1:  # after pickup
            for ev, g, _, ouvert in self._candidates(hand, view.skat_put, bid, view.position == FOREHAND, 0):
                options.append((ev, _LABEL[g, False, ouvert]))
        else:  # hand game
            fore = view.position == FOREHAND
            skat_guess = H.skat_guess(hand)
            for g in GAME_TYPES:
                p = H.prob(H.score(hand, g, True, fore, skat_guess))
                options.append((_ev(p, hand, g, True, False, bid, False), _LABEL[g, True, False]))
                if g == NULL and H.null_safe(hand):
                    options.append((_ev(min(p, NULL_OUVERT_P), hand, g, True, True, bid, False), _LABEL[g, True, True]))
        options.sort(reverse=True)  # ties by label, as always
        for _, label in options:
            action = A.DECLARE + A.CONTRACT_BY_LABEL[label]
            if legal >> action & 1:
                return action
        return _first(legal)

    def _kontra(self, view: SkatView) -> bool:
        g = view.game_type
        if g < 0 or g == NULL:
            return False
        hand = view.hand
        jacks = (hand & JACK_MASK).bit_count()
        aces = sum(hand >> (8 * suit + ACE) & 1 for suit in range(4) if suit != g)
        if g == GRAND:
            return jacks >= 3 or (jacks >= 2 and aces >= 2)
        trumps = (hand & TRUMPS[g]).bit_count()
        return jacks >= 3 or (trumps >= 4 and (jacks >= 2 or aces >= 2))

    def _re(self, view: SkatView) -> bool:
        g = view.game_type
        if g < 0:
            return False
        hand, skat = view.hand, view.skat_put
        skat_pts = H.points(skat) if skat else H.skat_guess(hand)
        return H.prob(H.score(hand, g, True, view.position == FOREHAND, skat_pts)) >= RE_PROB


@functools.cache
def _kernel_tables() -> object:
    """The batched player's tables, with this module's constants (the kernel never imports this module)."""
    from agents.rule_skat_kernel import build_tables

    return build_tables(MARGIN, HAND_EDGE, RE_PROB, NULL_OUVERT_P, _LABEL, _PICKUP_CLUBS)


def _ev(p: float, cards: int, g: int, hand_game: bool, ouvert: bool, bid: int, skat_seen: bool) -> float:
    """Expected tournament score of declaring a game at ``bid`` (a null below the bid cannot be)."""
    if g == NULL:
        value = NULL_VALUE[hand_game, ouvert]
        return H.expected_score(p, value) if value >= bid else -1000.0
    return H.game_ev(p, cards, g, hand_game, bid, skat_seen)
