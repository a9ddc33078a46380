"""When the Thirty-One rule agent knocks: one home for its thresholds.

The per-game agent (``agents.rule_thirtyone``), its batched form (``agents.rule_thirtyone_arrays``)
and the search agent's rollouts (``agents.search_thirtyone.rollout``) read them from here.
"""

from __future__ import annotations

from envs.thirtyone.brag import FLUSH, PAIR

KNOCK_FIRST_LAP = {2: 21, 3: 20, 4: 19, 5: 18, 6: 18}
KNOCK_LATE = 17  # 7 or more players
KNOCK_PER_LAP = 3
KNOCK_CAP = 28
KNOCK_TABLE_BONUS = 2  # every turn sees table cards, or no lives are at stake: knock later
# brag: a pair of eights on the first lap, a pair of queens on the second, then a flush
KNOCK_BRAG = (PAIR * 13**3 + 6 * 13**2, PAIR * 13**3 + 10 * 13**2, FLUSH * 13**3)


def knock_threshold(players: int, lap: int, last_life: bool = False) -> float:
    """The least hand value this agent knocks with."""
    base = KNOCK_FIRST_LAP.get(players, KNOCK_LATE)
    return min(base + KNOCK_PER_LAP * lap, KNOCK_CAP) - (1 if last_life else 0)
