"""Skat: rules core, scoring, card notation, the action table, the ISS record import and every table
people play (``envs.skat.variants``: four players, lists, the Ramsch family, two players, Tournee ...).

The modules imported here (the rules core) import no RL library; the AEC environment is
``envs.skat_v0`` (or ``envs.skat.env``).
"""

from envs.skat.actions import ACTION_NAMES, NUM_ACTIONS, action_index, action_name
from envs.skat.cards import (
    CARD_NAMES,
    card,
    card_name,
    cards_of,
    check_deck,
    format_cards,
    mask_of,
    parse_card_list,
    parse_cards,
    pretty,
)
from envs.skat.deal import deal_from_deck, parse_deal
from envs.skat.options import SkatOptions, validate_options
from envs.skat.rules import SkatGame, SkatState
from envs.skat.scoring import Outcome, ramsch_scores, seat_scores, settle
from envs.skat.variants import NAMES as VARIANT_NAMES
from envs.skat.variants import VARIANTS

__all__ = [
    "ACTION_NAMES",
    "CARD_NAMES",
    "NUM_ACTIONS",
    "Outcome",
    "SkatGame",
    "SkatOptions",
    "SkatState",
    "VARIANTS",
    "VARIANT_NAMES",
    "action_index",
    "action_name",
    "card",
    "card_name",
    "cards_of",
    "check_deck",
    "deal_from_deck",
    "format_cards",
    "mask_of",
    "parse_card_list",
    "parse_cards",
    "parse_deal",
    "pretty",
    "ramsch_scores",
    "seat_scores",
    "settle",
    "validate_options",
]
