"""What a table's options make of a deal: seats and positions, pack and hand sizes, bids, actions.

A :class:`Table` is computed once per :class:`~envs.skat.rules.SkatGame` and shared by its states;
everything here is a fact of the options, nothing changes during a deal.
"""

from __future__ import annotations

import functools

from envs.skat import actions as A
from envs.skat.options import SkatOptions
from envs.skat.pack import PACKS

# Positions of a deal: 0 forehand, 1 middlehand, 2 rearhand; at a four-player table the dealer has
# position 3 (sitting out); at a two-player table with a dummy hand the dummy sits at rearhand.
SITTING_OUT = 3
DUMMY = 2


class Table:
    """The fixed facts of one table (see the module docstring of ``envs.skat.rules``)."""

    __slots__ = ("options", "classic", "seats", "pack", "hand_size", "skat_size", "positions", "dummy",
                 "dummy_mode", "trick_size", "tricks", "tournee", "auction", "bid_values", "bid_actions",
                 "min_bid", "max_bid", "plain_play", "num_actions", "score_len", "officers", "idiot", "ramsch_only",
                 "scoring_players", "deal_pattern")

    def __init__(self, options: SkatOptions) -> None:
        o = self.options = options
        self.classic = o.classic
        self.seats = o.players
        self.pack = PACKS[o.pack]
        self.officers, self.idiot, self.ramsch_only = o.officers, o.idiot, o.ramsch_only
        self.hand_size = 16 if o.officers else 11 if o.pack == 36 else 10
        self.skat_size = 0 if o.officers else 3 if o.pack == 36 else 2
        self.positions = 2 if o.officers else 3
        self.dummy = DUMMY if o.dummy is not None else -1
        self.dummy_mode = o.dummy
        self.trick_size = 2 if o.officers or o.dummy == "unused" else 3
        self.tricks = self.hand_size
        self.tournee = o.tournee
        self.auction = not (o.officers or o.sequence is not None or o.ramsch_only)
        if self.tournee:
            values = A.TOURNEE_BID_VALUES
        elif o.pack == 36:
            values = A.SIX_PACK_BID_VALUES
        else:
            values = A.BID_VALUES
        if o.revolution and A.REVOLUTION_VALUE not in values:
            values = tuple(sorted((*values, A.REVOLUTION_VALUE)))
        self.bid_values: tuple[int, ...] = values
        self.bid_actions: tuple[int, ...] = tuple(A.ALL_BID_INDEX[v] for v in values)
        self.min_bid, self.max_bid = values[0], values[-1]
        # Card play exactly as on the ISkO table (the rules core's fast path): every held card is a
        # `play` action of the 32-card range, no other action during play, nobody plays automatically.
        self.plain_play = (o.pack == 32 and not o.concede and not o.idiot and not o.officers
                           and o.dummy != "stack" and o.ramsch_tens == "high")
        self.num_actions = A.NUM_ACTIONS if self.classic else A.NUM_ALL_ACTIONS
        self.score_len = 4 if o.players == 4 else 3  # per position (the dealer sitting out: a fourth)
        self.scoring_players = 4 if o.players == 4 else 3  # Seeger-Fabian: 40 at three (and two), 30 at four
        self.deal_pattern = _deal_pattern(self)

    # --- seats and positions (the env's seats player_0.. are table seats; the dealer rotates) ---------
    def seat_of(self, position: int, dealer: int) -> int:
        """The seat at ``position`` when ``dealer`` deals (the dummy's position has no seat: -1)."""
        if position == self.dummy:
            return -1
        return (dealer + 1 + position) % self.seats

    def position_of(self, seat: int, dealer: int) -> int:
        """0 forehand, 1 middlehand, 2 rearhand; 3 the dealer sitting out at four (at two: 0 the
        non-dealer, 1 the dealer)."""
        return (seat - dealer - 1) % self.seats

    def __repr__(self) -> str:
        return f"Table({self.options})"


def _deal_pattern(t: Table) -> tuple[int, ...]:
    """The pile (a position, or -1 the skat) each card of a deck goes to, in dealing order.

    Three hands of ten: 3, skat 2, 4, 3 (the Skat Order); of eleven (36 cards): 3, skat 3, 4, 4.
    Officers' Skat: the non-dealer's eight face-down cards, the dealer's, then the face-up ones
    (the rules core lays pile i of a player as face-down card i under face-up card i)."""
    if t.officers:
        return (0,) * 8 + (1,) * 8 + (0,) * 8 + (1,) * 8
    rounds = (3, 4, 4) if t.pack.size == 36 else (3, 4, 3)
    out: list[int] = []
    for i, n in enumerate(rounds):
        for p in range(3):
            out += [p] * n
        if i == 0:
            out += [-1] * t.skat_size
    return tuple(out)


@functools.lru_cache(maxsize=128)
def table_of(options: SkatOptions) -> Table:
    """The :class:`Table` of validated options (one per distinct options, shared by states)."""
    return Table(options)
