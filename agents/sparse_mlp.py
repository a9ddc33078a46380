"""An MLP's forward pass for a few rows, reading only the weights of the non-zero inputs.

Why: a playing agent runs its network on one row at a time, and then a network costs what its weights
cost to read from memory, not its arithmetic. The endgame expert's 1024 x 3 ReLU MLP
(agents/endgame_expert.py) holds 10 MB of float32 weights; between two of its decisions the rest of the
program (the env, the other seats, a search) pushes them out of the cache, so torch's dense forward took
about 1.0 ms per row. Its inputs are about 15% non-zero (card planes and features) and its ReLU layers
11-19% (measured on 540 late card-play rows, 2026-12-04), so a layer that adds up only the weight rows
of its non-zero inputs reads a sixth of the weights. A tanh network (the PPO base) gains in its first
layer only: a Skat observation has about 38 non-zeros in 391.

A layer needs its weights by input (``in x out``), and ``nn.Linear`` keeps them by output. Rather than a
copy, which must be refreshed whenever the weights change (and checking that costs as much as the
saving), :class:`SparseInputMLP` makes each ``weight`` a transposed view of an ``in x out`` buffer: the
module, its optimizer, ``load_state_dict`` and ``state_dict`` see an ordinary parameter, and the compiled
layer reads the same memory, so it can never be stale. The result is the dense forward's up to float
rounding (the same products, summed in input order; tanh is numpy's, as in ``agents.networks.Tanh``).
"""

from __future__ import annotations

import numpy as np
import torch
from numba import njit
from torch import nn

from agents.networks import Tanh

# Most rows per call that take the sparse path: a batch reads every weight anyway, and then a dense
# matrix product is faster.
MAX_ROWS = 16
_NONE, _RELU, _TANH = 0, 1, 2


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


class SparseInputMLP:
    """``layers(x)`` (``Linear, act, ..., Linear``; act ReLU or :class:`agents.networks.Tanh`) for a few
    rows of float32 input without autograd; :meth:`applies` says whether a call should take this path.

    Construction re-lays the Linear weights (values unchanged): build it when the network is built,
    before an optimizer holds the parameters."""

    def __init__(self, layers: nn.Sequential) -> None:
        modules = list(layers)
        linear, acts = modules[0::2], modules[1::2]
        if not (len(modules) % 2 == 1 and all(isinstance(m, nn.Linear) and m.bias is not None for m in linear)
                and all(isinstance(m, (nn.ReLU, Tanh)) for m in acts)):
            raise ValueError("SparseInputMLP needs Linear (with bias), ReLU or Tanh, ..., Linear layers")
        self._acts = [_RELU if isinstance(m, nn.ReLU) else _TANH for m in acts] + [_NONE]
        self._linear = linear
        self._params: list[nn.Parameter] = []
        self._arrays: list[tuple[np.ndarray, np.ndarray]] = []
        for m in linear:
            by_input = m.weight.detach().t().contiguous()
            m.weight = nn.Parameter(by_input.t(), requires_grad=m.weight.requires_grad)
            self._params += [m.weight, m.bias]
            self._arrays.append((by_input.numpy(), m.bias.detach().numpy()))
        _layer(np.zeros((1, 1), np.float32), np.zeros((1, 1), np.float32), np.zeros(1, np.float32), True)
        # ^ compiles (or loads from numba's cache) now, not at the first decision

    def applies(self, x: torch.Tensor) -> bool:
        """A playing call, and the module still holds the parameters laid out here (``.to()``, ``.half()``
        or a replaced parameter make new ones: then the module's own forward runs)."""
        if not playing_batch(x):
            return False
        params = self._params
        return all(m._parameters["weight"] is params[2 * k] and m._parameters["bias"] is params[2 * k + 1]
                   for k, m in enumerate(self._linear))

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        h = np.ascontiguousarray(x.detach().numpy(), np.float32)
        for (weight_t, bias), act in zip(self._arrays, self._acts, strict=True):
            h = _layer(h, weight_t, bias, act == _RELU)
            if act == _TANH:
                h = np.tanh(h)
        return torch.from_numpy(h)
