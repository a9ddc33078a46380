"""The rule-based Skat player on the extended tables (every table but the ISkO one).

:func:`decide` reads an extended observation (``envs.skat.observation_x``) and returns a legal
action. Wherever the table plays like the ISkO deal (three positions playing 32 cards in tricks of
three: the four-player table, lists, the Ramsch family, Supra, Revolution, Tournee, Strohmann and
Oma) it builds a :class:`PositionView`, the view of the *acting position* with the attribute names
of ``envs.skat.observation.SkatView``, and asks the ISkO player (``agents.rule_skat``,
``agents.skat_play``). Its own rules cover the rest, cheaply:

* Supra like Kontra, Resupra like Re; an offer to concede is accepted, a claim rejected (play on:
  a game whose points are reached cannot be lost), and it never offers one itself;
* Schieberamsch: push the skat on unless the hand holds 40 card points or more, then take it and
  put away the two highest non-jacks;
* North American skat: bids at 60% of the Skat Order value its hand reaches, plays a Solo when a
  hand game looks good, else a Tournee that keeps a turned suit with five trumps (a turned jack:
  grand with three jacks), announces nothing;
* the Revolution's defenders exchange nothing;
* tricks of two (Officers' Skat, the unused dummy) and the 36-card pack: take a trick worth it with
  the cheapest card that wins, else throw the cheapest card; lead the strongest trump as
  declarer, else the lowest card; Officers' Skat declares the game with the most face-up trumps;
* Idiotenskat: bids nothing, plays its first slot (its own cards are unseen).
"""

from __future__ import annotations

from typing import Any

from agents import skat_hand as H
from agents.skat_play import choose_card
from envs.skat import actions as A
from envs.skat.cards import GRAND, JACK_MASK, NULL, cards_of
from envs.skat.observation_x import MAX_BID, TableView
from envs.skat.pack import PACKS
from envs.skat.rules.state import (
    ANNOUNCE,
    ANSWER,
    AUCTION,
    DECLARE,
    DISCARD,
    EXCHANGE,
    KONTRA,
    PLAY,
    RE,
    RESUPRA,
    SCHIEBEN,
    SKAT,
    SUPRA,
    TURN,
)
from envs.skat.tables import TRUMPS

TOURNEE_BID_SHARE = 0.6  # North American values are about 60% of the Skat Order's
SCHIEBEN_POINTS = 40  # take the skat in Schieberamsch with this many card points in hand


def _first(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


class PositionView:
    """The view of one acting position, with ``SkatView``'s attribute names (relative positions:
    0 the acting position, 1 the next one in play order, 2 the one after)."""

    __slots__ = ("hand", "skat_put", "skat_taken", "played", "trick", "open_hand", "position", "phase", "bid",
                 "declarer", "game_type", "ramsch", "voids", "trick_order", "leader", "hand_game")

    def __init__(self, v: TableView, acting: int, slot_of: list[int]) -> None:
        rel = [slot_of[(acting + r) % 3] for r in range(3)]  # relative position -> slot
        inv = {s: r for r, s in enumerate(rel)}
        opens = v.planes("open")
        self.hand = v.plane("hand") if rel[0] == 0 else opens[rel[0]]
        own = rel[0] == 0
        self.skat_put = v.plane("skat_put") if own else 0
        self.skat_taken = v.plane("skat_taken") if own else 0
        played, tricks = v.planes("played"), v.planes("trick")
        self.played = [played[s] for s in rel]
        self.trick = [tricks[s] for s in rel]
        self.position = acting
        self.phase = v.one_hot("phase")
        self.bid = round(v.raw("bid")[0] * MAX_BID)
        d = v.one_hot("declarer")
        self.declarer = inv.get(d, -1) if d >= 0 else -1
        self.game_type = v.one_hot("game_type")
        self.ramsch = v.flag("ramsch")
        self.hand_game = v.flag("hand_game")
        self.open_hand = opens[rel[self.declarer]] if self.declarer > 0 and v.flag("ouvert") else 0
        voids = v.raw("voids")
        self.voids = [sum(1 << e for e in range(5) if voids[5 * s + e] > 0.5) for s in rel]
        leader = v.one_hot("leader")
        self.leader = inv.get(leader, -1) if leader >= 0 else -1
        order = []
        if self.leader >= 0:
            for i in range(3):
                x = self.trick[(self.leader + i) % 3]
                if x:
                    order.append(x.bit_length() - 1)
        self.trick_order = order


def slots_of_positions(v: TableView, own: int) -> list[int]:
    """Slot of each position 0..2 as the observer (at position ``own``) sees them."""
    kind = v.layout.name
    if kind == "skat4":
        return [(q - own) % 4 for q in range(3)]
    if kind == "skat2":
        return [2 if q == 2 else (q - own) % 2 for q in range(3)]
    return [(q - own) % 3 for q in range(3)]


def decide(agent: Any, observation: dict[str, Any], legal: int) -> int:
    """A legal action for an extended table's observation (``legal``: the mask as a bit set)."""
    v = TableView(observation["observation"])
    opts = v.options
    phase = v.one_hot("phase")
    own = v.one_hot("position")
    slot_of = slots_of_positions(v, own)
    to_act = v.one_hot("to_act")
    acting = own if to_act <= 0 else next((q for q in range(3) if slot_of[q] == to_act), own)
    if phase == ANSWER:
        kind = v.one_hot("offer")  # 0 concede, 1 claim
        return A.ACCEPT if kind == 0 else A.REJECT
    legal &= ~((1 << A.CONCEDE) | (1 << A.CLAIM))  # it never offers
    if legal & (legal - 1) == 0:
        return _first(legal)
    if opts["idiot"]:
        return _idiot(v, phase, legal)
    similar = not (opts["officers"] or opts["dummy_unused"] or opts["pack36"])
    if phase == PLAY:
        if similar:
            view = PositionView(v, acting, slot_of)
            return A.PLAY + choose_card(view, legal >> A.PLAY & 0xFFFFFFFF)
        return _simple_card(v, legal, slot_of, acting)
    view = PositionView(v, acting, slot_of)
    if opts["pack36"]:
        view.hand &= 0xFFFFFFFF  # the hand models know 32 cards: a six is a weak card they do not count
    if phase == AUCTION:
        return _auction(agent, view, legal, opts["tournee_rules"])
    if phase == SKAT:
        if legal >> A.TOURNEE & 1:
            return _tournee_choice(agent, view)
        return agent._skat(view)
    if phase == SCHIEBEN:
        return A.PICKUP if H.points(view.hand) >= SCHIEBEN_POINTS else A.PASS
    if phase == DISCARD:
        if view.declarer < 0:  # Schieberamsch: keep the jacks (they may not be passed on), shed points
            cards = sorted(cards_of(view.hand & ~JACK_MASK), key=lambda c: -H.POINTS[c])
            return A.discard_action(cards[0])
        if similar:
            action = A.DISCARD + agent._discard(view)
            if legal >> action & 1:
                return action
        return _first(legal)
    if phase == DECLARE:
        if opts["officers"]:
            return _officers_declare(view, legal)
        return agent._declare(view, legal) if similar else _first(legal)
    if phase == TURN:
        return _turn(v, view, legal)
    if phase == ANNOUNCE:
        return _first(legal)  # the plain game: nothing announced
    if phase in (KONTRA, SUPRA):
        yes = A.KONTRA if phase == KONTRA else A.SUPRA
        return yes if agent._kontra(view) else A.PASS
    if phase in (RE, RESUPRA):
        yes = A.RE if phase == RE else A.RESUPRA
        return yes if legal >> yes & 1 and agent._re(view) else A.PASS
    if phase == EXCHANGE:
        return A.PASS if legal >> A.PASS & 1 else _first(legal)
    return _first(legal)


def _auction(agent: Any, view: PositionView, legal: int, tournee: bool) -> int:
    limit = agent.evaluate(view.hand, view.position == 0)[0]
    if tournee:
        limit = int(limit * TOURNEE_BID_SHARE)
    if legal >> A.HOLD & 1:
        return A.HOLD if view.bid <= limit else A.PASS
    bids = [(A.BID_OF_ACTION[a], a) for a in A.BID_OF_ACTION if legal >> a & 1]
    if bids:
        value, action = min(bids)
        if value <= limit:
            return action
    return A.PASS


def _tournee_choice(agent: Any, view: PositionView) -> int:
    games = agent.evaluate(view.hand, view.position == 0)[1]
    best_hand = max((p for p, g, hand_game, _ in games if hand_game and g != NULL), default=0.0)
    return A.HAND if best_hand >= 0.6 else A.TOURNEE


def _turn(v: TableView, view: PositionView, legal: int) -> int:
    """Keep the turned card's suit with five trumps (a jack: grand with three jacks), else "passt"."""
    grand = A.declare_action(A.ALL_CONTRACT_BY_LABEL["G"])
    take = next(a for a in range(A.NUM_ALL_ACTIONS) if legal >> a & 1 and a != grand and a != A.PASST)
    suit = A.ALL_CONTRACTS[A.contract_of_action(take)].game
    if legal >> grand & 1 and (view.hand & JACK_MASK).bit_count() >= 3:
        return grand
    trumps = (view.hand & TRUMPS[suit]).bit_count() + 1
    if trumps >= 5 or not legal >> A.PASST & 1:
        return take
    return A.PASST


def _officers_declare(view: PositionView, legal: int) -> int:
    best, best_n = _first(legal), -1
    for g, letter in enumerate("CSHDG"):
        n = (view.hand & TRUMPS[g]).bit_count() + (2 if g == GRAND and (view.hand & JACK_MASK).bit_count() >= 3
                                                    else 0)
        action = A.declare_action(A.ALL_CONTRACT_BY_LABEL[letter])
        if legal >> action & 1 and n > best_n:
            best, best_n = action, n
    return best


def _idiot(v: TableView, phase: int, legal: int) -> int:
    if phase == AUCTION:
        return A.PASS if legal >> A.PASS & 1 else _first(legal)
    if phase in (KONTRA, RE, SUPRA, RESUPRA, SCHIEBEN):
        return A.PASS if legal >> A.PASS & 1 else _first(legal)
    return _first(legal)


def _simple_card(v: TableView, legal: int, slot_of: list[int], acting: int) -> int:
    """Tricks of two or the 36-card pack: win a trick worth it cheaply, else throw the cheapest card."""
    pack = PACKS[36]
    g = v.one_hot("game_type")
    g = GRAND if g < 0 else g
    order, points = pack.order[g], pack.points
    cards = [c for c in range(pack.size) if legal >> A.play_action(c) & 1]
    if not cards:
        return _first(legal)
    tricks = v.planes("trick")
    leader = v.one_hot("leader")
    trick = []
    n_slots = v.layout.slots
    if leader >= 0:
        for i in range(n_slots):
            x = tricks[(leader + i) % n_slots]
            if x:
                trick.append(x.bit_length() - 1)
    declarer = v.one_hot("declarer")
    me_declarer = declarer == slot_of[acting]
    nulls = g == NULL
    if not trick:
        if me_declarer and not nulls:
            return A.play_action(max(cards, key=lambda c: (pack.eff_suit[g][c] == 4, order[c])))
        return A.play_action(min(cards, key=lambda c: (points[c], order[c])))
    win = [c for c in cards if pack.trick_winner(g, [*trick, c]) == len(trick)]
    value = sum(points[c] for c in trick)
    if win and not nulls and (value >= 3 or me_declarer):
        return A.play_action(min(win, key=lambda c: (points[c], order[c])))
    lose = [c for c in cards if c not in win] or cards
    return A.play_action(min(lose, key=lambda c: (points[c], order[c])) if not nulls else
                         max(lose, key=lambda c: order[c]))


__all__ = ["PositionView", "decide"]
