"""Dealing a Thirty-One round: who sits in it, the hands, the stock and discard pile or the table cards.

Called by the rules core (``ThirtyOneState._start_round``) with the state; the table layouts of the
variants are ``envs.thirtyone.table``'s. The classic deal (stock and discard pile) is the hot path: a
partial Fisher-Yates shuffle of the cards dealt only (the stock is drawn from at random, so its order
never matters), the hands one card at a time from the dealer's left, then the turned-up card.
"""

from __future__ import annotations

from typing import Any

from envs.thirtyone import settle, table
from envs.thirtyone.phases import STOCK, THROW

ThirtyOneState = Any  # envs.thirtyone.rules.ThirtyOneState (not imported: rules imports this module)


def seat_layout(dealer: int, alive: tuple[bool, ...] | list[bool]) -> tuple[list[int], list[int]]:
    """Seats in the round, clockwise from the dealer's left, and each one's next seat."""
    n = len(alive)
    seats = [(dealer + i) % n for i in range(1, n + 1) if alive[(dealer + i) % n]]
    nxt = [-1] * n
    for i, s in enumerate(seats):
        nxt[s] = seats[(i + 1) % len(seats)]
    return seats, nxt


def start_round(state: ThirtyOneState, deck: list[int] | None = None, restart: tuple[int, list[int]] | None = None
                ) -> None:
    """Deal a round. ``restart``: (seat, hand) of a Switch restart, the hand face up on the table."""
    n = state.n
    state.round_no += 1
    state.pub_version += 1
    layout = state.game.layouts.get((state.dealer, *state.alive))
    if layout is None:
        layout = state.game.layouts[(state.dealer, *state.alive)] = seat_layout(state.dealer, state.alive)
    seats, state.next_seat = layout
    state.seats = seats
    m = len(seats)
    state.knock_from = m if state.opts.knock_allowed == "after_first_round" else 0
    tk = state.tk
    if tk == STOCK:
        k = 3 * m + 1
    else:
        k, positions = table.deal_positions(tk, m, restart is not None)
    if deck is None:  # deal a uniform random prefix (partial Fisher-Yates); the rest is the stock
        deck = state.deck if restart is None else [c for c in state.deck if c not in restart[1]]
        rnd = state.rng.random
        size = len(deck)
        for i in range(k):
            j = i + int(rnd() * (size - i))
            deck[i], deck[j] = deck[j], deck[i]
        state.stock = deck[k:]  # drawn from at random, so its order does not matter
        state.ordered_stock = False
    else:  # a fixed deck order: pop() takes the top card
        state.stock = deck[k:][::-1]
        state.ordered_stock = True
    hands: list[list[int]] = [[] for _ in range(n)]
    masks = [0] * n
    value = state.valuer.memo
    blitz = False
    at = state.blitz
    if tk == STOCK:  # one card at a time from the dealer's left
        dealt = zip(deck[:m], deck[m : 2 * m], deck[2 * m : 3 * m], strict=True)
    else:
        dealt = ([deck[i] for i in h] for h in positions.hands)
    for s, (a, b, c) in zip(seats, dealt, strict=True):
        hands[s] = [a, b, c]
        masks[s] = mask = (1 << a) | (1 << b) | (1 << c)
        if value[mask] >= at:
            blitz = True
    state.hands, state.hand_mask = hands, masks
    state.disc_by = [0] * n
    state.known = [0] * n
    state.locked = -1
    state.knocker = -1
    state.turn_no = 0
    state.current_player = seats[0]
    state.phase = THROW if state.opts.throw_down else state.turn_phase
    if tk == STOCK:
        up = deck[k - 1]
        state.pile = [up]
        state.owner[up] = state.dealer
        state.disc_by[state.dealer] = 1 << up
    else:
        table.start_round(state, deck, positions, restart)
    if state.opts.scoring == "pot":
        settle.ante(state)
    if blitz:
        state.stats["deal_blitzes"] += 1
        state._end_round("blitz")
