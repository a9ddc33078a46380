"""The phases of a deal, by number (one home: the state, the extended phases, scoring and views import them).

The first eight are the ISkO table's (its observation one-hot is over :data:`PHASE_NAMES`); the
others occur only on extended tables (see the package docstring).
"""

from __future__ import annotations

from typing import Any

AUCTION, SKAT, DISCARD, DECLARE, KONTRA, RE, PLAY, DONE = range(8)
SUPRA, RESUPRA, ANSWER, SCHIEBEN, TURN, ANNOUNCE, EXCHANGE = range(8, 15)
PHASE_NAMES = ("auction", "skat", "discard", "declare", "kontra", "re", "play", "done")  # the ISkO table's
ALL_PHASE_NAMES = PHASE_NAMES + ("supra", "resupra", "answer", "schieben", "turn", "announce", "exchange")

# A ``SkatState`` as the modules it calls see it (they do not import it: the state imports nothing
# that imports it back).
State = Any
