"""The batch loop: ``RuleSkatAgent.act`` for every row of an ISkO observation batch, in numba.

The dispatch of ``act`` (and of ``skat_play.choose_card``) is written out in the loop itself rather
than in functions of its own: numba re-optimises everything a compiled function calls, so each level
of calls above the rules costs a cold compile about as much as all the rules together.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from agents.rule_skat_kernel.bidding import MAX_OPTIONS, auction, declare, discard, kontra, re, skat
from agents.rule_skat_kernel.decode import (
    D_BID,
    D_GAME_TYPE,
    D_HAND,
    D_PHASE,
    D_POSITION,
    D_SIZE,
    D_SKAT_PUT,
    decode_row,
)
from agents.rule_skat_kernel.hand import first
from agents.rule_skat_kernel.jit import entry
from agents.rule_skat_kernel.play import null_declarer, null_defender, ramsch_play
from agents.rule_skat_kernel.seen import S_DECL, S_G, S_K, S_RAMSCH, S_SIZE, fill_seen
from agents.rule_skat_kernel.trump_play import follow_trump_game, lead_declarer, lead_defender
from envs.skat import actions as A
from envs.skat.cards import NULL, NUM_CARDS
from envs.skat.rules import AUCTION, DECLARE, DISCARD, FOREHAND, KONTRA, PLAY, SKAT


class Work(NamedTuple):
    """The rows the kernel writes as it decides (it allocates nothing: see ``jit``)."""

    D: np.ndarray  # the decoded observation (decode.D_*)
    S: np.ndarray  # what the seat knows at card play (seen.S_*)
    evs: np.ndarray  # the games of a hand or the pickup candidates: winning chance or expected score
    gs: np.ndarray  # ... their game type
    hgs: np.ndarray  # ... hand game
    drops: np.ndarray  # ... the cards put away
    ous: np.ndarray  # ... ouvert
    gain: np.ndarray  # [2, 4] best_discard: per side suit, the gain of the best one- and two-card drop
    pick: np.ndarray  # [4, 4] ... whether there is one and which cards: one card, then two


def work() -> Work:
    """Fresh scratch rows for one call of :func:`decide_all`."""
    def ints(*shape: int) -> np.ndarray:
        return np.zeros(shape, np.int64)

    return Work(D=ints(D_SIZE), S=ints(S_SIZE), evs=np.zeros(MAX_OPTIONS), gs=ints(MAX_OPTIONS),
                hgs=ints(MAX_OPTIONS), drops=ints(MAX_OPTIONS), ous=ints(MAX_OPTIONS), gain=np.zeros((2, 4)),
                pick=ints(4, 4))


@entry
def decide_all(T, W, observations: np.ndarray, masks: np.ndarray, out: np.ndarray) -> None:
    """``out[i]``: the decision of row i (observations [N, 391], bool masks [N, 162]); -1 for
    a row with nothing legal (the caller reports it)."""
    D, S = W.D, W.S
    for i in range(observations.shape[0]):
        mask = masks[i]
        n_legal = 0
        lowest_legal = -1
        for a in range(A.NUM_ACTIONS):
            if mask[a]:
                if n_legal == 0:
                    lowest_legal = a
                n_legal += 1
        if n_legal <= 1:  # forced
            out[i] = lowest_legal
            continue
        decode_row(observations[i], D)
        phase = D[D_PHASE]
        hand, bid, g = D[D_HAND], D[D_BID], D[D_GAME_TYPE]
        fore = 1 if D[D_POSITION] == FOREHAND else 0
        if phase == PLAY:
            legal = np.int64(0)
            for c in range(NUM_CARDS):
                if mask[A.PLAY + c]:
                    legal |= 1 << c
            if legal & (legal - 1) == 0:
                card = first(legal)
            else:
                fill_seen(T, D, legal, S)
                if S[S_RAMSCH]:
                    card = ramsch_play(T, S)
                elif S[S_G] == NULL:
                    card = null_declarer(T, S) if S[S_DECL] == 0 else null_defender(T, S)
                elif S[S_K]:
                    card = follow_trump_game(T, S)
                else:
                    card = lead_declarer(T, S) if S[S_DECL] == 0 else lead_defender(T, S)
            action = A.PLAY + card
        elif phase == AUCTION:
            action = auction(T, W, hand, fore, bid, mask)
        elif phase == SKAT:
            action = skat(T, W, hand, fore, bid)
        elif phase == DISCARD:
            action = A.DISCARD + discard(T, W, hand, D[D_SKAT_PUT], bid, fore)
        elif phase == DECLARE:
            action = declare(T, W, hand, D[D_SKAT_PUT], bid, fore, mask)
        elif phase == KONTRA:
            action = A.KONTRA if kontra(T, hand, g) else A.PASS
        else:
            action = A.RE if re(T, hand, D[D_SKAT_PUT], g, fore) else A.PASS
        if action < 0 or action >= A.NUM_ACTIONS or not mask[action]:  # the safety net of act
            action = lowest_legal
        out[i] = action
