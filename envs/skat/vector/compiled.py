"""The observation as a pure function for ``torch.compile`` (``compile=True``).

The eager version in ``envs.skat.vector.observe`` writes into a preallocated vector through dtype
views, which ``torch.compile`` cannot trace; this returns a new tensor and let Inductor fuse the
whole observation into a few loops over the batch (faster on a CPU, after a compilation of some
tens of seconds per batch size and process). Same results bit for bit (``tests/test_skat_vector.py``
checks them when SKAT31_COMPILE_TESTS=1, and the long run with ``--compile``). The action mask
stays eager: compiled, its bool row lookups ran twenty times slower.
"""

from __future__ import annotations

from typing import Any

import torch

from envs.skat.rules import PLAY
from envs.skat.vector.engine import F_VOIDS, NUM_CONTRACTS, SKAT_DEALT, SKAT_NOW, TRICK, Batch
from envs.skat.vector.observe import Context, rotate
from envs.skat.vector.tables import (
    S_BID,
    S_BIDDER,
    S_CARD_POINTS,
    S_CONTRACT_END,
    S_DECLARER,
    S_GAME_TYPE,
    S_LEADER,
    S_MAX_CALL,
    S_PHASE,
    S_TOURNAMENT,
    S_TRICK_COUNT,
    S_VOIDS,
    Tables,
)

# the scalar layout the concatenation below follows
assert (S_BID, S_MAX_CALL, S_BIDDER, S_GAME_TYPE, S_CARD_POINTS, S_TRICK_COUNT, S_LEADER, S_VOIDS) == (
    S_PHASE + 8, S_BID + 1, S_MAX_CALL + 9, S_DECLARER + 3, S_CONTRACT_END, S_CARD_POINTS + 6, S_TRICK_COUNT + 1,
    S_TOURNAMENT + 1)


def observe_pure(s: torch.Tensor, sets: torch.Tensor, pos: torch.Tensor, t: dict[str, torch.Tensor],
                 ramsch: bool) -> torch.Tensor:
    """``envs.skat.vector.observe.observe`` from the state tensors and tables ``t``."""
    (phase, p, bid, _, bidder, listener, declarer, contract, _, taken, level, _, _, _, _, leader, tcount,
     *_) = s.unbind(0)
    n = s.shape[1]
    show = (declarer == p) & (taken == 1)
    ouvert = t["contract_ouvert"][contract.clamp(min=0)] & (contract >= 0) & (phase >= PLAY)
    mine, left, right = rotate(sets[:TRICK + 3].view(3, 3, n), p)
    open_hand = torch.where(ouvert, sets.gather(0, declarer.clamp(min=0)[None])[0], 0)
    words = torch.stack((mine[0], sets[SKAT_NOW] * show, sets[SKAT_DEALT] * show, mine[1], left[1], right[1],
                         mine[2], left[2], right[2], open_hand), 1)
    planes = ((words[:, :, None] >> t["bit_index"]) & 1).to(torch.float32).view(n, -1)
    base = t["aux_rows"][((((p * 8 + phase) * 3 + bidder) * 3 + listener) * 4 + declarer + 1) * 3 + leader]
    if ramsch:
        ck = torch.where(contract >= 0, contract + 1, torch.where(phase >= PLAY, NUM_CONTRACTS + 1, 0))
    else:
        ck = contract + 1
    rel = rotate(pos, p)
    values = t["feature_value"][torch.stack([r[:F_VOIDS] for r in rel], -1) + t["feature_base"]]  # [5, N, 3]
    values = values.permute(1, 0, 2).reshape(n, F_VOIDS * 3)
    voids = t["void_rows"][rel[0][F_VOIDS] | rel[1][F_VOIDS] << 5 | rel[2][F_VOIDS] << 10]
    scalars = torch.cat((base[:, :S_BID], t["feature_value"][bid][:, None], values[:, :9],
                         base[:, S_BIDDER:S_GAME_TYPE], t["contract_rows"][ck * 3 + level], values[:, 9:],
                         t["trick_count_value"][tcount][:, None], base[:, S_LEADER:S_VOIDS], voids), 1)
    return torch.cat((planes, scalars), 1)


class Compiled:
    """The compiled observation of one env (compiled on first use, per batch size)."""

    def __init__(self, T: Tables, ctx: Context, ramsch: bool) -> None:
        self.tables: dict[str, Any] = {
            "contract_ouvert": T.contract_ouvert, "aux_rows": ctx.aux_rows, "contract_rows": T.contract_rows,
            "feature_value": T.feature_value, "feature_base": ctx.feature_base,
            "trick_count_value": T.trick_count_value, "void_rows": T.void_rows,
            "bit_index": torch.arange(32, dtype=torch.int64, device=T.device),
        }
        self.ramsch = ramsch
        self._observe = torch.compile(observe_pure, dynamic=False)

    def observe(self, b: Batch) -> torch.Tensor:
        return self._observe(b.s, b.sets, b.pos, self.tables, self.ramsch)

