"""The game object: options plus factories for deals (``envs.core.Game``)."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from types import SimpleNamespace
from typing import Any

from envs.skat import actions as A
from envs.skat.cards import FULL_DECK, GAME_LETTERS, NUM_CARDS, cards_of
from envs.skat.deal import deal, deal_from_deck, parse_deal
from envs.skat.options import SkatOptions, validate_options
from envs.skat.rules import phases, settle
from envs.skat.rules.extras import Extras
from envs.skat.rules.state import SkatState
from envs.skat.rules.table import Table, table_of

# What an extended table's state calls for its phases and scoring (it does not import them itself).
ENGINE = SimpleNamespace(legal_actions=phases.legal_actions, apply=phases.apply, end_auction=phases.end_auction,
                         start_play=phases.start_play, finish=settle.finish)


class SkatGame:
    """The game object: options plus factories for states (``envs.core.Game``).

    Keyword options as in :class:`envs.skat.options.SkatOptions` (``scoring``, ``kontra``,
    ``ramsch``, ``dealer``, ``variant`` and the variants' options); a bad one is a ValueError naming it.
    ``num_players`` is the length of ``returns()``: 3, or 4 at a four-player table (the dealer's last)."""

    def __init__(self, **options: Any) -> None:
        self.options: SkatOptions = validate_options(**options)
        self.table: Table = table_of(self.options)
        self.num_players = self.table.score_len
        self.num_actions = self.table.num_actions

    @property
    def rules(self) -> SkatOptions:
        """Old name of :attr:`options`, kept so existing code keeps working."""
        return self.options

    def new_initial_state(self, seed: int | None = None, deck: Iterable[int | str] | None = None,
                          deal_index: int = 0) -> SkatState:
        """A new deal, shuffled from ``seed``; or dealt from ``deck``, a full deck order (card names or
        ids): 3-skat-4-3 from forehand on the ISkO table, the table's own pattern on others (see
        ``Table.deal_pattern``). ``deal_index``: the deal's number in a list (Raeuberskat's contract)."""
        t = self.table
        if t.classic:
            if deck is not None:
                hands, skat = deal_from_deck(deck)
                return SkatState(self.options, hands, skat)
            order = list(range(NUM_CARDS))
            random.Random(seed).shuffle(order)
            hands, skat = deal(order)  # without deal_from_deck's check: a shuffle of range(32) is a deck
            return SkatState(self.options, hands, skat)
        if deck is not None:
            order = check_pack_deck(t, deck)
        else:
            order = list(range(t.pack.size))
            random.Random(seed).shuffle(order)
        piles: list[list[int]] = [[], [], []]
        skat: list[int] = []
        for c, pile in zip(order, t.deal_pattern, strict=True):
            (skat if pile < 0 else piles[pile]).append(c)
        return self.state_from_piles(piles, skat, deal_index)

    def state_from_deal(self, hands: Sequence[str | Sequence[str] | int], skat: str | Sequence[str] | int,
                        deal_index: int = 0) -> SkatState:
        """A state from fixed hands by position (forehand, middlehand, rearhand: at two players the
        dummy is rearhand; Officers' Skat: two hands of 16, the 8 face-down cards then the 8 face-up
        ones) and skat: bit sets or card names. Card names keep their order (Idiotenskat's slots,
        Oma's stack, the Tournee's skat cards are in the order given)."""
        t = self.table
        if t.classic:
            if isinstance(hands, list | tuple) and all(isinstance(h, int) for h in hands) and isinstance(skat, int):
                masks, skat_mask = list(hands), skat
                if len(masks) != 3 or any(m.bit_count() != 10 for m in masks) or skat_mask.bit_count() != 2 or (
                    masks[0] | masks[1] | masks[2] | skat_mask
                ) != FULL_DECK:
                    parse_deal([cards_of(m) for m in masks], cards_of(skat_mask))  # raises, naming what is wrong
                    raise ValueError("a Skat deal needs three hands of 10 and a skat of 2, every card once")
            else:
                masks, skat_mask = parse_deal(hands, skat)  # type: ignore[arg-type]
            return SkatState(self.options, masks, skat_mask)
        piles, skat_cards = parse_table_deal(t, hands, skat)
        return self.state_from_piles(piles, skat_cards, deal_index)

    def state_from_piles(self, piles: list[list[int]], skat: list[int], deal_index: int = 0) -> SkatState:
        """A state of an extended table from the cards of each position and the skat, in dealing order."""
        t = self.table
        hands = [sum(1 << c for c in pile) for pile in piles]
        x = Extras()
        x.engine = ENGINE
        x.skat_order = tuple(skat)
        if t.idiot:
            x.slots = [list(pile) + [-1] * t.skat_size for pile in piles]
        if t.dummy_mode == "stack":
            x.slots = [[], [], list(piles[t.dummy])]
        if t.officers:
            x.hidden = [sum(1 << c for c in pile[:8]) for pile in piles[:2]] + [0]
            under = [-1] * t.pack.size
            for pile in piles[:2]:
                for down, up in zip(pile[:8], pile[8:], strict=True):
                    under[up] = down
            x.under = tuple(under)
        sequence = self.options.sequence
        if sequence is not None:
            x.fixed_game = GAME_LETTERS.index(sequence[(deal_index // t.seats) % len(sequence)])
        state = SkatState(self.options, hands, sum(1 << c for c in skat), x)
        phases.begin(state)
        return state

    action_name = staticmethod(A.action_name)
    action_index = staticmethod(A.action_index)

    def __repr__(self) -> str:
        return f"SkatGame({self.options})"


def check_pack_deck(t: Table, deck: Iterable[int | str]) -> list[int]:
    """A full deck order of the table's pack -> ids; ValueError naming duplicates and missing cards."""
    pack = t.pack
    if isinstance(deck, str) or not isinstance(deck, Iterable):
        raise ValueError(f"a deck must be a list of the {pack.size} cards in dealing order, got {deck!r}")
    ids = pack.parse(deck)
    if len(ids) != pack.size or len(set(ids)) != pack.size:
        dup = sorted({pack.names[c] for c in ids if ids.count(c) > 1})
        missing = [pack.names[c] for c in range(pack.size) if c not in ids]
        raise ValueError(f"a deck of this table must hold each of the {pack.size} cards exactly once; got "
                         f"{len(ids)} cards (duplicates {dup}, missing {missing})")
    return ids


def _cards(t: Table, cards: Any, what: str) -> list[int]:
    try:
        ids = sorted(cards_of(cards)) if isinstance(cards, int) and not isinstance(cards, bool) else t.pack.parse(cards)
    except ValueError as e:
        raise ValueError(f"{what}: {e}") from None
    return ids


def parse_table_deal(t: Table, hands: Any, skat: Any, names: Sequence[str] = ("forehand", "middlehand", "rearhand")
                     ) -> tuple[list[list[int]], list[int]]:
    """Hands by position and the skat of an extended table -> card ids in order; ValueError naming
    what is wrong (a card given twice or missing, a wrong count)."""
    n_hands = 2 if t.officers else 3
    if isinstance(hands, str) or not isinstance(hands, Iterable):
        raise ValueError(f"'hands' must be a list of {n_hands} hands ({', '.join(names[:n_hands])}), got {hands!r}")
    hands = list(hands)
    if len(hands) != n_hands:
        raise ValueError(f"a deal of this table needs {n_hands} hands ({', '.join(names[:n_hands])}), got {len(hands)}")
    piles = [_cards(t, h, f"the hand of {names[i]}") for i, h in enumerate(hands)]
    skat_cards = _cards(t, skat if skat is not None else [], "the skat")
    if t.officers:
        piles.append([])
    seen: dict[int, str] = {}
    twice = []
    labels = [f"the hand of {n}" for n in names] + ["the skat"]
    for i, pile in enumerate([*piles, skat_cards]):
        for c in pile:
            label = labels[i] if i < len(piles) else "the skat"
            if c in seen:
                twice.append(f"{t.pack.names[c]} ({seen[c]} and {label})")
            seen[c] = label
    if twice or len(seen) != t.pack.size:
        missing = " ".join(t.pack.names[c] for c in range(t.pack.size) if c not in seen) or "-"
        raise ValueError(f"the deal must use each card once; given twice: {', '.join(twice) or '-'}; "
                         f"missing: {missing}")
    for i in range(n_hands):
        if len(piles[i]) != t.hand_size:
            raise ValueError(f"hand {i} ({names[i]}) has {len(piles[i])} cards, expected {t.hand_size}")
    if len(skat_cards) != t.skat_size:
        raise ValueError(f"the skat has {len(skat_cards)} cards, expected {t.skat_size}")
    return piles, skat_cards
