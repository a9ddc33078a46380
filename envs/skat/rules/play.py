"""Card play on the extended tables, concessions and claims, and the positions that act by themselves.

Card play that is not the ISkO fast path (``SkatState.apply_action``): the sixes of the 36-card pack,
Idiotenskat's slots (a revoke ends the deal), Officers' Skat's face-down cards, and the two offers
of ``concede=True``: a player on turn may concede or claim the remaining tricks once per trick; the
other side answers (``ANSWER``). A declarer's concession before the second trick needs no answer;
later one defender's approval; a claim needs every answer; a defender's offer the declarer's.
"""

from __future__ import annotations

from envs.skat import actions as A
from envs.skat.cards import NULL, cards_of
from envs.skat.rules.extras import CLAIMED, CONCEDED, REVOKED
from envs.skat.rules.phase_ids import ANSWER, AUCTION, PLAY
from envs.skat.rules.phase_ids import State as SkatState


def _defenders(s: SkatState) -> list[int]:
    """The defending positions that decide (not the dummy), from forehand."""
    t = s.table
    return [q for q in range(t.positions) if q != s.declarer and q != t.dummy]


def play_legal(s: SkatState) -> list[int]:
    p, t, x = s.current_player, s.table, s.x
    if t.idiot:
        out = [A.PLAY_SLOT + k for k, c in enumerate(x.slots[p]) if c >= 0]
    else:
        out = [A.play_action(c) for c in cards_of(s.playable_cards())]
    if s.options.concede and s.contract is not None and p != t.dummy and not x.offered >> p & 1:
        out += [A.CONCEDE, A.CLAIM]
    return out



def play(s: SkatState, p: int, action: int) -> None:
    x, t = s.x, s.table
    if action in (A.CONCEDE, A.CLAIM):
        _offer(s, p, action)
        return
    if t.idiot:
        k = action - A.PLAY_SLOT
        c = x.slots[p][k]
        x.slots[p][k] = -1
        if s.trick:
            pack, g = t.pack, s.play_game
            led = pack.eff_suit[g][s.trick[0]]
            follow = s.hands[p] & pack.follow[g][led]
            if follow and not follow >> c & 1:  # a revoke: the offender's side loses the deal
                s.history.append((p, action))
                s.hands[p] ^= 1 << c
                s.played[p] |= 1 << c
                s.trick.append(c)
                x.ending, x.ended_by = REVOKED, p
                s._score()
                return
            if not follow:
                s.voids[p] |= 1 << led
        s.put_card(p, c, action)
        return
    c = A.card_of_play(action)
    if s.trick:
        pack, g = t.pack, s.play_game
        led = pack.eff_suit[g][s.trick[0]]
        hand = s.hands[p] & ~x.hidden[p] if t.officers else s.hands[p]
        if not hand & pack.follow[g][led]:
            s.voids[p] |= 1 << led
    s.put_card(p, c, action)
    if t.officers and x.under[c] >= 0:
        x.hidden[p] &= ~(1 << x.under[c])  # the card below is turned face up


def _offer(s: SkatState, p: int, action: int) -> None:
    x, d, t = s.x, s.declarer, s.table
    s.history.append((p, action))
    x.offered |= 1 << p
    if p == d and action == A.CONCEDE and s.hands[d].bit_count() >= t.hand_size - 1:
        x.ending, x.ended_by = CONCEDED, p  # before the second trick the declarer concedes alone
        s._score()
        return
    x.offer = (action, p, p)
    x.answer_queue = _defenders(s) if p == d else [d]
    s.phase, s.current_player = ANSWER, x.answer_queue[0]


def answer(s: SkatState, action: int) -> None:
    x, d = s.x, s.declarer
    kind, offerer, resume = x.offer
    x.answer_queue.pop(0)
    # A declarer's concession needs one defender's approval; a claim needs every answer.
    one_will_do = kind == A.CONCEDE and offerer == d
    if action == A.ACCEPT and (one_will_do or not x.answer_queue):
        x.offer, x.answer_queue = None, []
        # Who wins the rest: the claimer, or the other side of a concession.
        declarer_wins = (offerer == d) == (kind == A.CLAIM)
        defender = offerer if offerer != d else _defenders(s)[0]
        if s.contract.game == NULL:  # null: the declarer wins by taking no trick
            _give_rest(s, defender if declarer_wins else d)
        else:
            _give_rest(s, d if declarer_wins else defender)
        x.ending, x.ended_by = (CLAIMED if kind == A.CLAIM else CONCEDED), offerer
        s._score()
        return
    if x.answer_queue and (action == A.ACCEPT or one_will_do):
        s.current_player = x.answer_queue[0]  # the next answer is still needed
        return
    x.offer, x.answer_queue = None, []
    s.phase, s.current_player = PLAY, resume


def _give_rest(s: SkatState, to: int) -> None:
    """The cards not yet won (the trick on the table and every hand) count for position ``to``, with
    one trick for each trick still to play (in null: the declarer's taking one is all that counts)."""
    pts = s.points_of
    rest = s.hands[0] | s.hands[1] | s.hands[2]
    s.points[to] += sum(pts[c] for c in s.trick) + sum(pts[c] for c in cards_of(rest))
    s.tricks_won[to] += s.tricks_total - s.trick_count
    s.trick_count = s.tricks_total


def auto(s: SkatState) -> None:
    """Advance the positions that do not decide: a dummy passes in the auction, Oma plays its top card."""
    t = s.table
    while s.current_player == t.dummy and t.dummy >= 0:
        p = s.current_player
        if s.phase == AUCTION:
            s.history.append((p, A.PASS))
            s._auction(p, A.PASS)
        elif s.phase == PLAY and t.dummy_mode == "stack":
            stack = s.x.slots[p]
            k = next(k for k, c in enumerate(stack) if c >= 0)
            c, stack[k] = stack[k], -1
            s.put_card(p, c, A.play_action(c))
        else:
            return

