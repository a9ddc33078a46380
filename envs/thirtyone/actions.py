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

Games with cards on the table (``exchange`` = ``widow``, ``pool`` or ``switch``) use the longer table
``Discrete(NUM_TABLE_ACTIONS)``: the 57 above (``discard XX`` then puts a card into the table slot just
emptied) and

=========  ==================  ===============================================================
57..62     ``pick 1..6``       take the table card in slot 1..6 (widow / pool: 1..3; Switch: table
                               hand 1 = slots 1..3, table hand 2 = slots 4..6), then ``discard XX``
                               puts a hand card there face up
63, 64     ``swap 1``, ``2``   exchange the whole hand with table hand 1 (the pool) or 2
65..68     ``renew 1 up`` ..   Switch: replace table hand 1 or 2 by three new cards, face up (the
           ``renew 2 down``    turn ends) or face down (the turn goes on with a pick or a swap)
69         ``stop``            end a widow exchange (after one or two cards)
70         ``keep``            Switch, the dealer: keep the dealt hand (``swap 1`` takes the other)
71         ``restart``         Switch: restart the round with this hand face up on the table
72         ``score``           Switch: decline the restart, score the round
=========  ==================  ===============================================================
"""

from __future__ import annotations

from envs.thirtyone.cards import CARD_NAMES, NUM_CARDS, card

DISCARD = 0
DRAW = NUM_CARDS
TAKE = DRAW + 1
KNOCK = TAKE + 1
THROW_DOWN = KNOCK + 1
LOOK = THROW_DOWN + 1
NUM_ACTIONS = LOOK + 1  # the classic table (stock and discard pile)
PICK = NUM_ACTIONS  # + slot 0..5
SWAP = PICK + 6  # + table hand 0..1
RENEW = SWAP + 2  # + 2 * table hand + (0 up, 1 down)
STOP = RENEW + 4
KEEP = STOP + 1
RESTART = KEEP + 1
SCORE = RESTART + 1
NUM_TABLE_ACTIONS = SCORE + 1

ACTION_NAMES: tuple[str, ...] = (
    tuple(f"discard {n}" for n in CARD_NAMES)
    + ("draw", "take", "knock", "throw_down", "look")
    + tuple(f"pick {j}" for j in range(1, 7))
    + ("swap 1", "swap 2", "renew 1 up", "renew 1 down", "renew 2 up", "renew 2 down", "stop", "keep", "restart",
       "score")
)
_INDEX = {name: i for i, name in enumerate(ACTION_NAMES)}


def action_name(action: int) -> str:
    """Index -> readable name, e.g. 37 -> ``"discard HK"``, 52 -> ``"draw"``."""
    try:
        a = int(action)
    except (TypeError, ValueError):
        raise ValueError(f"action {action!r} is not an integer action index") from None
    if not 0 <= a < NUM_TABLE_ACTIONS:
        raise ValueError(f"action {action!r} out of range 0..{NUM_TABLE_ACTIONS - 1}")
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
        f"unknown action name {name!r}: expected 'draw', 'take', 'knock', 'throw_down', 'look', "
        "'discard XX' with a card XX such as 'HK', or a table action ('pick 1'..'pick 6', 'swap 1', 'swap 2', "
        "'renew 1 up' .. 'renew 2 down', 'stop', 'keep', 'restart', 'score')"
    )
