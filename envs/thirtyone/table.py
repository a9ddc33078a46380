"""Cards on the table: the widow (Banking), the pool (Stop the Bus, Schwimmen) and Switch's two hands.

The table is a row of slots (``state.table``: a card id or -1, ``state.face_up``, ``state.table_by``:
who put the card there, -1 for a card dealt face down): three for the widow and the pool, six for
Switch (table hand 1 = slots 0..2, table hand 2 = slots 3..5). The actions are in ``actions.py``:

* ``pick j`` takes the card of slot j into the hand; ``discard XX`` then puts a hand card into that
  slot, face up (phase PLACE). A card taken from the table this turn is not put back. A face-down card
  is seen only by its taker; a face-up card taken is known to be held (the observation's held planes).
* ``swap h`` exchanges the whole hand with table hand h (the pool is table hand 1); the hand put
  down lies face up.
* Widow (Banking): the turn starts as in the classic game (draw, take, knock) or with a widow pick;
  after a pick and its placement the player picks another widow card or says ``stop`` (phase MORE).
* Pool: a turn is ``pick`` + ``discard``, ``swap 1`` or ``knock`` (phase TURN).
* Switch: the dealer, holding the dealt hand and seeing the second one in slots 0..2, says ``keep``
  or ``swap 1`` (phase CHOOSE); the hand left lies face up. A turn is a pick, a swap, a ``renew``
  (``renew h up`` ends the turn; ``renew h down`` goes on with a pick or a swap: phase RENEWED) or a
  knock. With ``switch_restart`` a showdown first offers each player holding three cards of one suit
  worth more than 21 (the hands are shown) to ``restart`` or ``score`` (phase RESTART).

Cards of a renewed table hand leave play: ``state.dead`` (seen face up) or ``state.gone`` (never seen).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from envs.thirtyone import actions as A
from envs.thirtyone import settle
from envs.thirtyone.cards import SUIT
from envs.thirtyone.phases import CHOOSE, DRAW, MORE, PLACE, POOL, RENEWED, RESTART, STOCK, SWITCH, THROW, TURN, WIDOW

ThirtyOneState = Any  # envs.thirtyone.rules.ThirtyOneState (not imported: rules imports this module)

ALL_THREE = 0b111
RESTART_OVER = 21  # Switch: "three cards of the same suit and is greater than 21"


@dataclass(frozen=True)
class Positions:
    """Where the cards of a deal sit in the deck order: per player (from the dealer's left) the three
    indices of its cards, the indices of the dealt table slots, the turned-up card (-1: none)."""

    hands: tuple[tuple[int, int, int], ...]
    table: tuple[int, ...]
    up: int


_POSITIONS: dict[tuple[int, int, bool], tuple[int, Positions]] = {}


def deal_positions(tk: int, m: int, restart: bool = False) -> tuple[int, Positions]:
    """(cards dealt, positions) of a deal to ``m`` players. Widow: "after each player has received one
    card, the dealer puts one card face down" (widow slot r after the r-th card of every player), then
    the turned-up card; pool: the hands, then three table cards; Switch: the hands, the dealer's second
    hand (slots 0..2), the face-down hand (slots 3..5); a Switch restart deals only the face-down hand."""
    key = (tk, m, restart)
    if key not in _POSITIONS:
        if tk == WIDOW:
            hands = tuple((j, j + m + 1, j + 2 * (m + 1)) for j in range(m))
            pos = Positions(hands, (m, 2 * m + 1, 3 * m + 2), 3 * m + 3)
        elif tk == STOCK:  # the classic deal (the rules core deals it itself, the same way)
            pos = Positions(tuple((j, j + m, j + 2 * m) for j in range(m)), (), 3 * m)
        else:
            hands = tuple((j, j + m, j + 2 * m) for j in range(m))
            size = 3 if tk == POOL or restart else 6
            pos = Positions(hands, tuple(range(3 * m, 3 * m + size)), -1)
        _POSITIONS[key] = (3 * m + len(pos.table) + (pos.up >= 0), pos)
    return _POSITIONS[key]


def start_round(s: ThirtyOneState, deck: list[int], pos: Positions, restart: tuple[int, list[int]] | None) -> None:
    """Lay out the table of a new deal (the hands are dealt already)."""
    tk = s.tk
    size = 6 if tk == SWITCH else 3
    s.table, s.face_up, s.table_by = [-1] * size, [0] * size, [-1] * size
    s.slot, s.taken, s.exchanged, s.dead, s.gone, s.peek = -1, 0, 0, 0, 0, -1
    s.offers, s.pending = [], None
    s.pile = []
    s.restarted = restart is not None
    dealt = [deck[i] for i in pos.table]
    if tk == WIDOW:
        s.table[:] = dealt  # face down
        up = deck[pos.up]
        s.pile = [up]
        s.owner[up] = s.dealer
        s.disc_by[s.dealer] = 1 << up
    elif tk == POOL:
        _lay(s, range(3), dealt, s.dealer)
    elif restart is None:
        s.table[:] = dealt  # the dealer's second hand (seen by the dealer only) and the face-down hand
        s.peek = s.dealer
        s.current_player = s.dealer
        s.phase = CHOOSE
    else:
        seat, hand = restart
        _lay(s, range(3), hand, seat)
        s.table[3:] = dealt


def _lay(s: ThirtyOneState, slots: range, cards: list[int], seat: int) -> None:
    """Put ``cards`` face up into ``slots``, put there by ``seat``."""
    for j, c in zip(slots, cards, strict=True):
        s.table[j] = c
        s.face_up[j] = 1
        s.table_by[j] = seat
        s.owner[c] = seat
        s.disc_by[seat] |= 1 << c


def face_up_mask(s: ThirtyOneState) -> int:
    return sum(1 << c for c, up in zip(s.table, s.face_up, strict=True) if up and c >= 0)


def widow_picks(s: ThirtyOneState) -> list[int]:
    return [A.PICK + j for j in range(3) if s.table[j] >= 0]


def legal_actions(s: ThirtyOneState) -> list[int]:
    """The legal actions of the table phases (TURN, PLACE, MORE, RENEWED, CHOOSE, RESTART)."""
    ph = s.phase
    if ph == PLACE:
        taken = s.taken
        return sorted(c for c in s.hands[s.current_player] if not taken >> c & 1)
    switch = s.tk == SWITCH
    if ph == TURN or ph == RENEWED:
        out = [A.KNOCK] if ph == TURN and s._knock_open() else []
        out += [A.PICK + j for j, c in enumerate(s.table) if c >= 0]
        out += [A.SWAP, A.SWAP + 1] if switch else [A.SWAP]
        if switch and ph == TURN and len(s.stock) >= 3:
            out += [A.RENEW, A.RENEW + 1, A.RENEW + 2, A.RENEW + 3]
        return out
    if ph == MORE:
        return [A.PICK + j for j in range(3) if not s.exchanged >> j & 1 and s.table[j] >= 0] + [A.STOP]
    if ph == CHOOSE:
        return [A.SWAP, A.KEEP]
    if ph == RESTART:
        return [A.RESTART, A.SCORE]
    return []


def apply_action(s: ThirtyOneState, action: int) -> None:
    """Apply a table action (the rules core checked the type and counted the move)."""
    ph = s.phase
    legal = legal_actions(s) if ph != DRAW else widow_picks(s)
    if action not in legal:
        s._illegal(action, "not a legal action of this phase")
    if ph == PLACE:
        _place(s, action)
    elif ph == CHOOSE:
        _choose(s, action == A.SWAP)
    elif ph == RESTART:
        _restart_choice(s, action == A.RESTART)
    elif action == A.KNOCK:
        s._knock(action)
    elif action < A.SWAP:
        _pick(s, action - A.PICK)
    elif action < A.RENEW:
        _swap(s, action - A.SWAP)
    elif action < A.STOP:
        _renew(s, (action - A.RENEW) // 2, up=(action - A.RENEW) % 2 == 0)
    else:  # STOP
        _end_turn(s)


def _end_turn(s: ThirtyOneState) -> None:
    s.taken = 0
    s.exchanged = 0
    s.locked = -1
    s.turn_no += 1
    s._next_turn()


def _blitz_or_end_turn(s: ThirtyOneState) -> None:
    if s.memo[s.hand_mask[s.current_player]] >= s.blitz:
        s.taken = 0
        s.exchanged = 0
        s.turn_no += 1
        s._end_round("blitz", s.knocker)
    else:
        _end_turn(s)


def _pick(s: ThirtyOneState, j: int) -> None:
    p = s.current_player
    c = s.table[j]
    bit = 1 << c
    if s.face_up[j]:
        s.disc_by[s.owner[c]] &= ~bit
        s.known[p] |= bit
    s.table[j], s.face_up[j], s.table_by[j] = -1, 0, -1
    s.hands[p].append(c)
    s.hand_mask[p] |= bit
    s.taken |= bit
    s.locked = c
    s.exchanged |= 1 << j
    s.slot = j
    s.stats["exchanges"] += 1
    s.phase = PLACE


def _place(s: ThirtyOneState, d: int) -> None:
    p = s.current_player
    bit = 1 << d
    s.hands[p].remove(d)
    s.hand_mask[p] ^= bit
    j = s.slot
    s.table[j], s.face_up[j], s.table_by[j] = d, 1, p
    s.owner[d] = p
    s.disc_by[p] |= bit
    s.known[p] &= ~bit
    s.slot = -1
    s.locked = -1
    if s.tk == WIDOW and s.exchanged != ALL_THREE and s.memo[s.hand_mask[p]] < s.blitz:
        s.phase = MORE
    else:
        _blitz_or_end_turn(s)


def _swap(s: ThirtyOneState, h: int) -> None:
    p = s.current_player
    slots = range(3 * h, 3 * h + 3)
    cards = [s.table[j] for j in slots]
    known = 0
    for j, c in zip(slots, cards, strict=True):
        if s.face_up[j]:
            s.disc_by[s.owner[c]] &= ~(1 << c)
            known |= 1 << c
    _lay(s, slots, s.hands[p], p)
    s.hands[p] = cards
    s.hand_mask[p] = sum(1 << c for c in cards)
    s.known[p] = known
    s.stats["exchanges"] += 1
    _blitz_or_end_turn(s)


def _renew(s: ThirtyOneState, h: int, up: bool) -> None:
    p = s.current_player
    slots = range(3 * h, 3 * h + 3)
    for j in slots:
        c = s.table[j]
        bit = 1 << c
        if s.face_up[j]:
            s.dead |= bit
            s.disc_by[s.owner[c]] &= ~bit
        else:
            s.gone |= bit
    new = [s._draw_stock() for _ in slots]
    if up:
        _lay(s, slots, new, p)
        _end_turn(s)
        return
    for j, c in zip(slots, new, strict=True):
        s.table[j], s.face_up[j], s.table_by[j] = c, 0, -1
    s.phase = RENEWED


def _choose(s: ThirtyOneState, swap: bool) -> None:
    """The Switch dealer keeps the dealt hand or takes the second one; the other lies face up."""
    p = s.current_player
    s.peek = -1
    if swap:
        cards = s.table[:3]
        _lay(s, range(3), s.hands[p], p)
        s.hands[p] = cards
        s.hand_mask[p] = sum(1 << c for c in cards)
    else:
        _lay(s, range(3), s.table[:3], p)
    if s.memo[s.hand_mask[p]] >= s.blitz:
        s._end_round("blitz")
        return
    s.current_player = s.seats[0]
    s.phase = THROW if s.opts.throw_down else TURN


# ------------------------------------------------------------------------------------ Switch restart
def may_restart(s: ThirtyOneState, seat: int) -> bool:
    """Three cards of one suit worth more than 21."""
    a, b, c = s.hands[seat]
    return SUIT[a] == SUIT[b] == SUIT[c] and s.memo[s.hand_mask[seat]] > RESTART_OVER


def offer_restart(s: ThirtyOneState, kind: str, knocker: int) -> bool:
    """At a showdown of a round that is not a restart itself: ask the players who may restart, in turn
    from the dealer's left (the hands are shown). True if the round waits for their answers."""
    if kind not in ("showdown", "capped") or s.restarted or s.phase == RESTART:
        return False
    offers = [x for x in s.seats if may_restart(s, x)]
    if not offers:
        return False
    s.pending = (kind, knocker)
    s.offers = offers
    s.known = [s.hand_mask[x] if x in s.seats else 0 for x in range(s.n)]  # shown at the showdown
    s.taken = s.exchanged = 0
    s.locked = -1
    s.current_player = offers[0]
    s.phase = RESTART
    return True


def _restart_choice(s: ThirtyOneState, restart: bool) -> None:
    kind, knocker = s.pending
    if restart:
        seat = s.current_player
        hand = list(s.hands[seat])
        s.stats["restarts"] += 1
        settle.end_round(s, "restart", knocker)
        s._start_round(restart=(seat, hand))
        return
    s.offers.pop(0)
    if s.offers:
        s.current_player = s.offers[0]
        return
    s.pending = None
    settle.end_round(s, kind, knocker)
