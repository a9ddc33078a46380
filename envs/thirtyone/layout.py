"""The classic Thirty-One observation layout: the offsets of ``observation.py``'s table (one home).

``observation.py`` (the fast encoder, ``decode``), ``observation_ref.py`` (the reference encoder) and
``observation_table.py`` (the table layout, which starts with this one) import them from here.
"""

from envs.thirtyone.cards import NUM_CARDS

MAX_SEATS = 9
NUM_PLANES = 3 + MAX_SEATS + (MAX_SEATS - 1)
HAND, TOP, LOCKED, PILE_BY, HELD_BY = 0, 52, 104, 156, 624
SEATS = NUM_PLANES * NUM_CARDS  # 1040
SEAT_FEATURES = 8
PRESENT, OUT, LIVES, COUNTY, KNOCKED, DEALER, SCORE, TO_ACT = range(SEAT_FEATURES)
GLOBAL = SEATS + MAX_SEATS * SEAT_FEATURES  # 1112
(PHASE, STOCK, PILE, ANY_KNOCK, TURN, LAP, ROUND, ACTIVE, PLAYERS, VALUE, MIN_KNOCK, DECK32, POINTS,
 ROUND_EP, THREE_KIND, THREE_ACES) = (GLOBAL + i for i in (0, *range(3, 18)))  # fmt: skip
OBS_SIZE = GLOBAL + 18  # 1130
OBSERVATION_VERSION = 1  # bump when the layout changes: checkpoints record it
