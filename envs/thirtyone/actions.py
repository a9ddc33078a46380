"""The Thirty-One action table: one ``Discrete(NUM_ACTIONS)`` space shared by every seat and phase.

=========  ==============  ===================================================================
index      name            meaning
=========  ==============  ===================================================================
0..51      ``discard XX``  discard card XX (its card id is the action index), second half of a
                           turn; the card just taken from the discard pile is masked
52         ``draw``        take the top card of the stock
53         ``take``        take the top card of the discard pile
54         ``knock``       knock instead of drawing (the hand is frozen, one more turn each)
55         ``throw_down``  first player of a round, before looking: everyone shows (option)
56         ``look``        decline the throw-down and look at the hand (option)
=========  ==============  ===================================================================

The 32-card deck uses the same table (the discards of 2..6 are never legal), so checkpoints and
networks do not depend on the deck option.
"""

from __future__ import annotations

from envs.thirtyone.cards import CARD_NAMES, NUM_CARDS, card

DISCARD = 0
DRAW = NUM_CARDS
TAKE = DRAW + 1
KNOCK = TAKE + 1
THROW_DOWN = KNOCK + 1
LOOK = THROW_DOWN + 1
NUM_ACTIONS = LOOK + 1

ACTION_NAMES: tuple[str, ...] = tuple(f"discard {n}" for n in CARD_NAMES) + (
    "draw",
    "take",
    "knock",
    "throw_down",
    "look",
)
_INDEX = {name: i for i, name in enumerate(ACTION_NAMES)}


def action_name(action: int) -> str:
    """Index -> readable name, e.g. 37 -> ``"discard HK"``, 52 -> ``"draw"``."""
    try:
        a = int(action)
    except (TypeError, ValueError):
        raise ValueError(f"action {action!r} is not an integer action index") from None
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"action {action!r} out of range 0..{NUM_ACTIONS - 1}")
    return ACTION_NAMES[a]


def action_index(name: str) -> int:
    """Readable name -> index. Accepts ``"discard HK"``, ``"discard_HK"``, ``"HK"`` and any case."""
    if not isinstance(name, str):
        raise ValueError(f"action name must be a string, got {name!r}")
    key = name.strip().replace("_", " ").lower()
    if key == "throw down":
        return THROW_DOWN
    if key in _INDEX:
        return _INDEX[key]
    parts = key.split()
    if len(parts) == 2 and parts[0] == "discard":
        key = parts[1]
    try:
        return DISCARD + card(key)
    except ValueError:
        pass
    raise ValueError(
        f"unknown action name {name!r}: expected 'draw', 'take', 'knock', 'throw_down', 'look' "
        "or 'discard XX' with a card XX such as 'HK'"
    )
