"""The Skat rules core: every table of ``envs.skat.variants``, as one small copyable state per deal.

Plain Python over bit sets, no RL imports, so search agents can simulate from any state. Seats are
*positions* of the deal: 0 forehand, 1 middlehand, 2 rearhand; the PettingZoo env maps table seats
onto them (``Table.seat_of``). ``SkatGame(**options)`` makes states; ``state.legal_actions()``,
``apply_action(a)``, ``clone()``, ``returns()`` are the protocol of ``envs.core``.

Design
------
* **Two kinds of table.** The *ISkO table* (``variant="isko"`` with today's options: scoring,
  kontra, ramsch, dealer) is exactly the rules core as it was: ``SkatState.x is None`` and every
  phase runs in ``state.py``, 162 actions, the frozen 391-vector. Every other table is an
  *extended* table: ``state.x`` holds an :class:`~envs.skat.rules.extras.Extras` with what only
  variants need, actions come from the extended table (``envs.skat.actions.NUM_ALL_ACTIONS``,
  whose first 162 are the ISkO actions), and each non-play phase is ``phases.py``.
* **A table is data.** ``table.py`` turns options into a :class:`Table` once: seats (3, 4 with the
  dealer sitting out, 2 with a dummy hand or Officers' Skat), the pack (32 or 36 cards, with its
  trick tables, ``envs.skat.pack``), hand, skat and trick sizes, the bid list, whether card play
  is *plain* (the fast path every table shares: hands played card by card, following suit).
* **Positions stay three.** Every per-position list has three entries (forehand, middlehand,
  rearhand) on every table, so the auction, tricks and observations never change shape:
  four players: the dealer sits out and gets position 3 only in ``scores``; two players: the dummy
  sits at rearhand (it passes in the auction, and is played by the defender: Strohmann; by itself
  from a face-down stack: Oma; not at all, tricks of two: the dummy hand); Officers' Skat: the two
  players are forehand (the non-dealer) and middlehand, tricks of two.
* **Phases** (``ALL_PHASE_NAMES``)::

      AUCTION -> SKAT (pickup | hand | tournee | guckser) -> [TURN] -> DISCARD xN -> DECLARE | ANNOUNCE
        -> [EXCHANGE (Revolution)] -> [KONTRA -> RE -> SUPRA -> RESUPRA] -> PLAY <-> ANSWER -> DONE
      AUCTION (all pass) -> DONE (passed in) | [SCHIEBEN (+ DISCARD)] x3 -> PLAY (Ramsch)
      no auction: Officers' Skat DECLARE; Raeuberskat SKAT with a fixed game; ramsch_only Ramsch

  ``ANSWER``: the other side accepts or rejects a concession or claim (``concede=True``).
* **Scoring** (``settle.py``): the Skat Order's values with the pack's matadors and trick count,
  North American values (``envs.skat.scoring_tournee``), the Ramsch house rules
  (``envs.skat.scoring.ramsch_result``), Seeger-Fabian 40 at three and two, 30 at four.
* **Lists** (several deals, Bierskat) are above the deal: ``envs.skat.series``.
* **Hidden information** is the observation's business; ``views.py`` says what each position
  sees of every hand and the skat (one home for the leak tests and every encoder).
"""

from envs.skat.deal import (  # noqa: F401  (DEAL_PATTERN, FOREHAND..REARHAND: re-exported, as before)
    DEAL_PATTERN,
    FOREHAND,
    MIDDLEHAND,
    POSITION_NAMES,
    REARHAND,
    deal,
    deal_from_deck,
    parse_deal,
)
from envs.skat.rules.game import SkatGame  # noqa: E402,I001  (after the state: it builds states)
from envs.skat.rules.state import (
    ALL_PHASE_NAMES,
    ANNOUNCE,
    ANSWER,
    AUCTION,
    DECLARE,
    DISCARD,
    DONE,
    EXCHANGE,
    KONTRA,
    PHASE_NAMES,
    PLAY,
    RE,
    RESUPRA,
    SCHIEBEN,
    SKAT,
    SUPRA,
    TURN,
    SkatState,
)
from envs.skat.rules.table import SITTING_OUT, Table, table_of

__all__ = [
    "ALL_PHASE_NAMES", "ANNOUNCE", "ANSWER", "AUCTION", "DEAL_PATTERN", "DECLARE", "DISCARD", "DONE", "EXCHANGE",
    "FOREHAND", "KONTRA", "MIDDLEHAND", "PHASE_NAMES", "PLAY", "POSITION_NAMES", "RE", "REARHAND", "RESUPRA",
    "SCHIEBEN", "SITTING_OUT", "SKAT", "SUPRA", "TURN", "SkatGame", "SkatState", "Table", "deal", "deal_from_deck",
    "parse_deal", "table_of",
]
