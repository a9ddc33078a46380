"""A card-play position with every hand known, and the solver's per-game tables built from the rules core."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envs.bitset import cards_of
from envs.skat.cards import CARD_NAMES, EFF_SUIT, FOLLOW, GRAND, NULL, NUM_CARDS, ORDER, POINTS, format_cards
from envs.skat.rules import PLAY, SkatState

# Card points of one suit's byte (bits 0..7 = ranks 7 8 9 T J Q K A): the same for every suit.
_PTSB = np.array([sum(POINTS[r] for r in range(8) if b >> r & 1) for b in range(256)], dtype=np.int64)


class Tables:
    """The trick tables of one game type as int64 arrays for the compiled kernel (from envs.skat.cards)."""

    __slots__ = ("eff", "order", "follow", "seq", "pts", "ptsb")

    def __init__(self, game: int) -> None:
        self.eff = np.array(EFF_SUIT[game], dtype=np.int64)
        self.order = np.array(ORDER[game], dtype=np.int64)
        self.follow = np.array(FOLLOW[game], dtype=np.int64)
        # every card sorted by effective suit, then strength: runs of equivalent cards are adjacent
        self.seq = np.array(sorted(range(NUM_CARDS), key=lambda c: (EFF_SUIT[game][c], ORDER[game][c])),
                            dtype=np.int64)
        self.pts = np.array(POINTS, dtype=np.int64)
        self.ptsb = _PTSB


TABLES = tuple(Tables(g) for g in range(6))


@dataclass
class Position:
    """A position of card play with all hands open.

    Positions (seats) are 0 forehand, 1 middlehand, 2 rearhand. ``trick`` holds the cards of the
    current trick in play order, led by ``leader``; the player to move is ``(leader + len(trick)) % 3``.
    ``points`` and ``tricks`` are what each position has taken so far; ``skat`` the two skat cards
    (counted for the declarer in suit and grand games, for the winner of the last trick in Ramsch).
    ``solo`` is the declarer; in Ramsch (``ramsch=True``) it is the player whose card points are
    solved for, assuming the two others play against it (a paranoid view).
    """

    game: int
    hands: tuple[int, int, int]
    solo: int
    leader: int = 0
    trick: tuple[int, ...] = ()
    points: tuple[int, int, int] = (0, 0, 0)
    tricks: tuple[int, int, int] = (0, 0, 0)
    skat: int = 0
    ramsch: bool = False

    def __post_init__(self) -> None:
        self.hands = tuple(int(h) for h in self.hands)
        self.trick = tuple(int(c) for c in self.trick)
        self.points = tuple(int(p) for p in self.points)
        self.tricks = tuple(int(t) for t in self.tricks)
        if not 0 <= self.game <= NULL:
            raise ValueError(f"game type must be 0..5 (clubs, spades, hearts, diamonds, grand, null), got {self.game}")
        if self.ramsch and self.game != GRAND:
            raise ValueError("Ramsch is played with grand's trumps: game must be 4 (grand)")
        if len(self.hands) != 3 or not 0 <= self.solo < 3 or not 0 <= self.leader < 3 or len(self.trick) > 2:
            raise ValueError("a position needs three hands, solo and leader in 0..2 and at most two cards in the trick")
        seen = 0
        for m in (*self.hands, self.skat, *(1 << c for c in self.trick)):
            if m & seen:
                raise ValueError(f"a card is given twice: {format_cards(m & seen)}")
            seen |= m
        sizes = [h.bit_count() for h in self.hands]
        for i in range(len(self.trick)):
            sizes[(self.leader + i) % 3] += 1
        if len(set(sizes)) != 1:
            raise ValueError(f"the hands do not fit the trick: {sizes} cards per position counting the trick")

    # --- construction -------------------------------------------------------------------------
    @classmethod
    def from_state(cls, state: SkatState, solo: int | None = None) -> Position:
        """The position of a ``SkatState`` in card play (all hands are read from the state).

        ``solo`` defaults to the declarer; Ramsch has none, so give the position to solve for."""
        if state.phase != PLAY:
            raise ValueError(f"the state is not in card play (phase {state.phase})")
        ramsch = state.contract is None
        if solo is None:
            if ramsch:
                raise ValueError("a Ramsch position needs solo=<position> (the player whose points are solved)")
            solo = state.declarer
        return cls(state.game_type, tuple(state.hands), solo, state.leader, tuple(state.trick), tuple(state.points),
                   tuple(state.tricks_won), state.skat, ramsch)

    # --- views --------------------------------------------------------------------------------
    @property
    def to_move(self) -> int:
        return (self.leader + len(self.trick)) % 3

    @property
    def tricks_left(self) -> int:
        """Tricks still to finish, the current one included."""
        return self.hands[self.leader].bit_count() + (1 if self.trick else 0)

    def legal_cards(self) -> int:
        """The cards the player to move may play (bit set)."""
        hand = self.hands[self.to_move]
        if self.trick:
            follow = hand & FOLLOW[self.game][EFF_SUIT[self.game][self.trick[0]]]
            if follow:
                return follow
        return hand

    def equivalence_classes(self, by_points: bool | None = None) -> list[int]:
        """The legal cards grouped into classes of equivalent cards (bit sets; the kernel searches one per class).

        Two cards of the hand are equivalent when they are adjacent in their effective suit among the
        cards still live (in the hands or the current trick) and, where card points count, worth the
        same: whichever is played, the rest of the deal is the same up to their names. ``by_points``:
        whether card points count (default: in every game but null)."""
        g = self.game
        live = self.hands[0] | self.hands[1] | self.hands[2]
        for c in self.trick:
            live |= 1 << c
        legal = self.legal_cards()
        use_points = g != NULL if by_points is None else by_points
        classes: list[int] = []
        prev_in, prev_pts, prev_suit = False, -1, -1
        for c in TABLES[g].seq.tolist():
            if not live >> c & 1:
                continue
            if EFF_SUIT[g][c] != prev_suit:
                prev_in, prev_suit = False, EFF_SUIT[g][c]
            if legal >> c & 1:
                if prev_in and (not use_points or POINTS[c] == prev_pts):
                    classes[-1] |= 1 << c
                    continue
                classes.append(1 << c)
                prev_in, prev_pts = True, POINTS[c]
            else:
                prev_in = False
        return classes

    def play(self, card: int) -> Position:
        """The position after the player to move plays ``card`` (must be legal)."""
        if not self.legal_cards() >> card & 1:
            raise ValueError(f"{CARD_NAMES[card]} is not a legal card here")
        p = self.to_move
        hands = list(self.hands)
        hands[p] ^= 1 << card
        trick = (*self.trick, card)
        if len(trick) < 3:
            return self._next(tuple(hands), self.leader, trick, self.points, self.tricks)
        from envs.skat.cards import trick_winner

        w = (self.leader + trick_winner(self.game, trick)) % 3
        points, tricks = list(self.points), list(self.tricks)
        points[w] += sum(POINTS[c] for c in trick)
        tricks[w] += 1
        if self.ramsch and not any(hands):
            points[w] += sum(POINTS[c] for c in cards_of(self.skat))
        return self._next(tuple(hands), w, (), tuple(points), tuple(tricks))

    def _next(self, hands: tuple[int, int, int], leader: int, trick: tuple[int, ...], points: tuple[int, int, int],
              tricks: tuple[int, int, int]) -> Position:
        """A position after a legal card from this (checked) one: built without checking it again."""
        out = object.__new__(Position)
        out.game, out.hands, out.solo, out.leader, out.trick = self.game, hands, self.solo, leader, trick
        out.points, out.tricks, out.skat, out.ramsch = points, tricks, self.skat, self.ramsch
        return out

    def __str__(self) -> str:
        names = ("forehand", "middlehand", "rearhand")
        lines = [f"game {'CSHDGN'[self.game]}{' (Ramsch)' if self.ramsch else ''}, solo {names[self.solo]}, "
                 f"{names[self.to_move]} to move"]
        for p in range(3):
            lines.append(f"  {names[p]:<10} {format_cards(self.hands[p], self.game)}")
        if self.trick:
            lines.append("  trick: " + " ".join(CARD_NAMES[c] for c in self.trick))
        return "\n".join(lines)
