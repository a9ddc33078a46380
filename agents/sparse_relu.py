"""A ReLU MLP's forward pass for a few rows, reading only the weights of the non-zero inputs.

Why: a playing agent runs its network on one row at a time, and then a wide MLP costs what its weights
cost to read from memory, not its arithmetic. The endgame expert's 1024 x 3 MLP (agents/endgame_expert.py)
holds 10 MB of float32 weights; between two of its decisions the rest of the program pushes them out of
the cache, so torch's dense forward took about 1.0 ms per row. Its inputs are about 15% non-zero (card
planes and features) and its ReLU layers 11-19% (measured on 540 late card-play rows, 2026-12-04), so
a layer that adds up only the weight rows of its non-zero inputs reads a sixth of the weights: about
0.3 ms per row in the same conditions.

The result is the dense forward's up to float rounding (the same products, summed in input order), so
the argmax of a policy's logits agrees except on exact ties. :class:`SparseReluForward` keeps transposed
copies of the weights and rebuilds them when a parameter changes in place (an optimizer step, a
``load_state_dict``), so it may be built once beside the module it reads.
"""

from __future__ import annotations

import numpy as np
import torch
from numba import njit
from torch import nn

# Most rows per call that take the sparse path: a batch reads every weight anyway, and then a dense
# matrix product is faster.
MAX_ROWS = 16


def playing_batch(x: torch.Tensor) -> bool:
    """A few CPU rows without autograd: a playing agent's call, where per-row compiled code beats torch."""
    return x.shape[0] <= MAX_ROWS and not torch.is_grad_enabled() and x.device.type == "cpu"


@njit(cache=True, nogil=True)
def _layer(x: np.ndarray, weight_t: np.ndarray, bias: np.ndarray, relu: bool) -> np.ndarray:
    rows, width = x.shape[0], bias.shape[0]
    out = np.empty((rows, width), np.float32)
    for r in range(rows):
        acc = bias.copy()
        for i in range(x.shape[1]):
            v = x[r, i]
            if v != 0.0:
                w = weight_t[i]
                for o in range(width):
                    acc[o] += v * w[o]
        if relu:
            for o in range(width):
                if acc[o] < 0.0:
                    acc[o] = 0.0
        out[r] = acc
    return out


class SparseReluForward:
    """``forward(x)`` of ``layers`` (``Linear, ReLU, ..., Linear``) for rows of float32 input, without
    autograd. :meth:`applies` says whether a batch should take this path."""

    def __init__(self, layers: nn.Sequential) -> None:
        modules = list(layers)
        linear = modules[0::2]
        if not (len(modules) % 2 == 1 and all(isinstance(m, nn.Linear) for m in linear)
                and all(isinstance(m, nn.ReLU) for m in modules[1::2])):
            raise ValueError("SparseReluForward needs Linear, ReLU, ..., Linear layers")
        self._linear: list[nn.Linear] = linear
        self._key: tuple = ()
        self._weights: list[tuple[np.ndarray, np.ndarray]] = []
        _layer(np.zeros((1, 1), np.float32), np.zeros((1, 1), np.float32), np.zeros(1, np.float32), True)
        # ^ compiles (or loads from numba's cache) now, not at the first decision

    @staticmethod
    def applies(x: torch.Tensor) -> bool:
        return playing_batch(x)

    def _current(self) -> list[tuple[np.ndarray, np.ndarray]]:
        key = tuple((p.data_ptr(), p._version) for m in self._linear for p in (m.weight, m.bias))
        if key != self._key:
            self._weights = [(np.ascontiguousarray(m.weight.detach().numpy().T, np.float32),
                              m.bias.detach().numpy().astype(np.float32)) for m in self._linear]
            self._key = key
        return self._weights

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        h = np.ascontiguousarray(x.detach().numpy(), np.float32)
        weights = self._current()
        for k, (weight_t, bias) in enumerate(weights):
            h = _layer(h, weight_t, bias, k < len(weights) - 1)
        return torch.from_numpy(h)
