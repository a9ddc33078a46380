"""The CPU kernel of :func:`envs.vector.random_legal_actions`: the same actions from the same
uniform draws as its tensor version (the k-th legal action, k = int(u * legal count) in float32),
a loop over each mask row (count, then walk to the k-th) instead of tensor passes for a running
count, a product and a binary search."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, error_model="numpy")
def kth_legal(mask: np.ndarray, u: np.ndarray, out: np.ndarray) -> None:
    """``out[g]``: the legal action number ``int(u[g] * count)`` of row g of the bool ``mask``
    (the last action when the row has none, as the tensor version's clamped search gives)."""
    actions = mask.shape[1]
    for g in range(mask.shape[0]):
        count = 0
        for j in range(actions):
            count += mask[g, j]
        k = np.uint8(np.float32(u[g]) * np.float32(np.uint8(count)))
        chosen = actions - 1
        seen = 0
        for j in range(actions):
            if mask[g, j]:
                if seen == k:
                    chosen = j
                    break
                seen += 1
        out[g] = chosen
