"""The phases of a Thirty-One state and the exchange kinds (one home; ``rules`` re-exports them).

THROW..OVER are the classic game's (the classic observation encodes 0..2); the others belong to the
games with cards on the table (``envs.thirtyone.table``).
"""

THROW, DRAW, DISCARD, OVER, TURN, PLACE, CHOOSE, MORE, RENEWED, RESTART = range(10)
PHASE_NAMES = ("throw_down", "draw", "discard", "over", "turn", "place", "choose", "more", "renewed", "restart")
STOCK, WIDOW, POOL, SWITCH = range(4)  # exchange kinds, the values of the ``exchange`` option
EXCHANGES = ("stock", "widow", "pool", "switch")
