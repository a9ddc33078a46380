"""Thirty-One (31 / Scat / Blitz): rules core, options, scoring helpers and card notation.

The modules imported here (the rules core) import no RL library; the AEC environment is
``envs.thirtyone_v0`` (or ``envs.thirtyone.env``).
"""

from envs.thirtyone.actions import ACTION_NAMES, NUM_ACTIONS, NUM_TABLE_ACTIONS, action_index, action_name
from envs.thirtyone.brag import brag_name, brag_value
from envs.thirtyone.cards import (
    CARD_NAMES,
    card,
    card_name,
    cards_of,
    check_deck,
    mask_of,
    parse_card_list,
    parse_cards,
    pretty,
)
from envs.thirtyone.options import ThirtyOneOptions, validate_options
from envs.thirtyone.rules import ThirtyOneGame, ThirtyOneState
from envs.thirtyone.scoring import BLITZ, hand_value, lives_lost, points_won, pot_shares
from envs.thirtyone.variants import VARIANT_NAMES, VARIANTS

__all__ = [
    "ACTION_NAMES",
    "BLITZ",
    "CARD_NAMES",
    "NUM_ACTIONS",
    "NUM_TABLE_ACTIONS",
    "ThirtyOneGame",
    "ThirtyOneOptions",
    "ThirtyOneState",
    "VARIANTS",
    "VARIANT_NAMES",
    "action_index",
    "action_name",
    "brag_name",
    "brag_value",
    "card",
    "card_name",
    "cards_of",
    "check_deck",
    "hand_value",
    "lives_lost",
    "mask_of",
    "parse_card_list",
    "parse_cards",
    "points_won",
    "pot_shares",
    "pretty",
    "validate_options",
]
