"""The part of a deal's state that only the extended tables have (``SkatState.x``; None on the ISkO table)."""

from __future__ import annotations

from envs.skat.scoring_tournee import GUCKSER_MODE, MODE_NAMES, NO_MODE, PASST_MODE, SOLO_MODE, TOURNEE_MODE

__all__ = ["GUCKSER_MODE", "MODE_NAMES", "NO_MODE", "PASST_MODE", "SOLO_MODE", "TOURNEE_MODE", "Extras"]
# The end of a deal that was not played to its last trick.
PLAYED, CONCEDED, CLAIMED, REVOKED = "played", "conceded", "claimed", "revoked"


class Extras:
    """Variant state of one deal. Lists are copied by :meth:`clone`; everything else is immutable."""

    __slots__ = (
        "kontra_by",  # the position that said Kontra (it may say Supra), -1
        "offer",  # a pending concession or claim: (kind action, offerer position, resume player), or None
        "answer_queue",  # positions still to answer the pending offer
        "offered",  # bit set of positions that offered during the current trick (one offer each per trick)
        "pushes",  # Schieberamsch: how often the skat was pushed on untouched (each doubles)
        "schiebe_pos",  # Schieberamsch: the position deciding now (-1 when over)
        "schiebe_taken",  # Schieberamsch: bit set of positions that took the skat
        "mode",  # North American game mode (NO_MODE ... SOLO_MODE)
        "skat_order",  # the skat cards in dealing order (the Tournee turns them in this order)
        "turned",  # the skat cards turned in a Tournee, in order
        "shown",  # bit set of skat cards every player has seen (the Tournee's accepted / second card)
        "trump_game",  # North American: the game type chosen before the announcement, -1
        "giver",  # Revolution: the defender giving cards now, -1
        "given",  # Revolution: cards the first defender gave
        "to_give",  # Revolution: cards the second defender still owes back
        "slots",  # per position: card ids in dealing order, -1 where gone (Idiotenskat; Oma's stack), or None
        "hidden",  # Officers' Skat: per position, the face-down cards (a bit set)
        "under",  # Officers' Skat: card -> the face-down card under it (-1 if none)
        "fixed_game",  # Raeuberskat: the game type of this deal's contract, -1
        "ending",  # PLAYED, CONCEDED, CLAIMED or REVOKED
        "ended_by",  # the position that conceded, claimed or revoked (-1)
        "ramsch_points",  # card points by position a Ramsch was scored with (the skat included)
        "skat_in",  # per position: the skat cards it picked up (declarer; Schieberamsch: each taker)
        "skat_out",  # per position: the cards it put into the skat
        "engine",  # the extended phases and scoring (``SkatGame`` hands them in: the state imports neither)
    )

    def __init__(self) -> None:
        self.kontra_by = -1
        self.offer: tuple[int, int, int] | None = None
        self.answer_queue: list[int] = []
        self.offered = 0
        self.pushes = 0
        self.schiebe_pos = -1
        self.schiebe_taken = 0
        self.mode = NO_MODE
        self.skat_order: tuple[int, ...] = ()
        self.turned: list[int] = []
        self.shown = 0
        self.trump_game = -1
        self.giver = -1
        self.given = 0
        self.to_give = 0
        self.slots: list[list[int]] | None = None
        self.hidden: list[int] = []
        self.under: tuple[int, ...] = ()
        self.fixed_game = -1
        self.ending = PLAYED
        self.ended_by = -1
        self.ramsch_points: list[int] = []
        self.skat_in = [0, 0, 0]
        self.skat_out = [0, 0, 0]
        self.engine: object = None

    def clone(self) -> Extras:
        new = object.__new__(Extras)
        for slot in Extras.__slots__:
            v = getattr(self, slot)
            if isinstance(v, list):
                v = [list(x) for x in v] if slot == "slots" else v.copy()
            setattr(new, slot, v)
        return new
