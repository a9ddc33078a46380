"""What each position may see of a deal: the one home of hidden information on every table.

The observation encoders show exactly this and the leak tests reshuffle everything else. A
*viewer* is a position (0..2), or :data:`~envs.skat.rules.table.SITTING_OUT` for the dealer of a
four-player table, who sees only what is public (the dealer does not peek).

* Own hand: all of it, except in Idiotenskat (none of it) and in Officers' Skat (its face-up cards).
* Other hands: an ouvert declarer's from the first trick on (a Revolution's from the declaration,
  so the defenders can confer); Strohmann's dummy from the declaration on; in a Revolution the
  defenders see each other's hands; Idiotenskat: every other hand (the sitting-out dealer too);
  Officers' Skat: the opponent's face-up cards.
* The skat: what this position picked up and put away (the declarer; each taker in
  Schieberamsch; in Idiotenskat the declarer's opponents see both, the declarer neither);
  the Tournee's turned cards once shown, the first one to the declarer when turned.
"""

from __future__ import annotations

from envs.skat.rules.phase_ids import ANSWER, DONE, PLAY
from envs.skat.rules.phase_ids import State as SkatState
from envs.skat.rules.table import SITTING_OUT

_PLAYING = (PLAY, ANSWER, DONE)


def open_hands(s: SkatState, viewer: int) -> list[int]:
    """Per position 0..2: the cards of its hand ``viewer`` sees (its own hand included)."""
    t, x, c = s.table, s.x, s.contract
    out = [0, 0, 0]
    for q in range(3):
        hand = s.hands[q]
        if not hand:
            continue
        if q == viewer:
            if t.officers:
                out[q] = hand & ~x.hidden[q]
            elif not t.idiot:
                out[q] = hand
            continue
        if t.idiot:
            out[q] = hand
        elif t.officers:
            out[q] = hand & ~x.hidden[q]
        elif q == t.dummy and t.dummy_mode == "open" and c is not None:
            out[q] = hand
        elif c is not None and c.ouvert and q == s.declarer and (s.phase in _PLAYING or c.revolution):
            out[q] = hand
        elif c is not None and c.revolution and viewer not in (s.declarer, SITTING_OUT) and q != s.declarer:
            out[q] = hand
    return out


def skat_known(s: SkatState, viewer: int) -> tuple[int, int, int]:
    """(cards it put into the skat, cards it picked up, skat cards shown to it) for ``viewer``."""
    t, x = s.table, s.x
    if x is None:  # the ISkO table: the declarer after a pickup
        if s.declarer == viewer and s.skat_taken:
            return s.skat, s.original_skat, 0
        return 0, 0, 0
    if viewer == SITTING_OUT:
        return 0, 0, x.shown
    if t.idiot:
        d = s.declarer
        if d < 0 or d == viewer:
            return 0, 0, 0
        return x.skat_out[d], x.skat_in[d], 0
    shown = x.shown
    if s.declarer == viewer and x.turned:
        shown |= 1 << x.turned[0]  # the first turned card, seen by the declarer alone unless taken
    return x.skat_out[viewer], x.skat_in[viewer], shown


def unknown_cards(s: SkatState, viewer: int) -> int:
    """Every card ``viewer`` cannot see (in other hands, in its own unseen cards, in the skat)."""
    seen = 0
    for m in open_hands(s, viewer):
        seen |= m
    put, taken, shown = skat_known(s, viewer)
    seen |= put | taken | shown
    played = s.played[0] | s.played[1] | s.played[2]
    return s.table.pack.full & ~(seen | played)


def hidden_cards_of(s: SkatState, viewer: int) -> list[int]:
    """Per position, and the skat last: the cards ``viewer`` does not see there (for the leak tests)."""
    unknown = unknown_cards(s, viewer)
    return [s.hands[q] & unknown for q in range(3)] + [s.skat & unknown]


__all__ = ["hidden_cards_of", "open_hands", "skat_known", "unknown_cards"]
