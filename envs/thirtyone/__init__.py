"""Thirty-One (31 / Scat / Blitz): rules core, scoring helpers and card notation.

Importing this package does not import PettingZoo; the AEC environment is ``envs.thirtyone_v0``
(or ``envs.thirtyone.env``).
"""

from envs.thirtyone.actions import NUM_ACTIONS, action_index, action_name
from envs.thirtyone.cards import CARD_NAMES, card, card_name, cards_of, mask_of, parse_cards, pretty
from envs.thirtyone.options import ThirtyOneOptions, validate_options
from envs.thirtyone.rules import ThirtyOneGame, ThirtyOneState
from envs.thirtyone.scoring import BLITZ, hand_value, lives_lost, points_won

__all__ = [
    "BLITZ",
    "CARD_NAMES",
    "NUM_ACTIONS",
    "ThirtyOneGame",
    "ThirtyOneOptions",
    "ThirtyOneState",
    "action_index",
    "action_name",
    "card",
    "card_name",
    "cards_of",
    "hand_value",
    "lives_lost",
    "mask_of",
    "parse_cards",
    "points_won",
    "pretty",
    "validate_options",
]
