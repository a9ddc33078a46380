"""PPO's policy head on the legal actions only: log p(taken action) and the entropy, forward and backward.

A card game offers few legal actions out of many: a Skat decision about 7.5 of 162, a Thirty-One
decision about 3 of 57. The dense head multiplies every row's hidden vector with all ``num_actions``
output weights and then masks most of them away, forward and backward (three matrix products and
about ten passes over ``rows x num_actions``). Here each row's legal logits alone are computed, as a
list in compressed-row form (:class:`LegalRows`), and the softmax, the entropy and their gradients
run over that list in compiled loops (numba): a 2,112-row Skat minibatch takes 0.65 ms instead of
3.6-4.4 ms with 64 hidden units, 2.5 instead of 8 with 256 (forward and backward).

The numbers are those of :func:`agents.networks.masked_logp_entropy` on the dense logits up to float
rounding (tests compare values and gradients, and ``gradcheck`` in float64); the weights stay the
last ``nn.Linear`` of the actor, so checkpoints do not change. PPO's acting in training draws from
the legal logits alone too (:func:`sample_legal`); evaluation and the shipped agents
(``agents.neural``) keep the dense head. Used on CPU where legal actions are under
:data:`COMPACT_BELOW` of the action space; elsewhere the dense head runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from numba import njit

from agents.gumbel import gumbel_noise
from agents.sparse import SparseRows

# Mean legal fraction under which the compact head is used. Skat's decisions have about 5% of their
# actions legal and Thirty-One's about 5.4%; both gain 3-6x on the head. At a quarter legal the dense
# head's products are as cheap as the list's gathers.
COMPACT_BELOW = 0.25


class LegalRows:
    """A batch's legal actions as :class:`agents.sparse.SparseRows` (``rows``: row ``i``'s legal actions
    are ``rows.col[rows.starts[i]:rows.ends[i]]``) and, per row, the position among them of the action
    that was taken. A row without a legal action counts every action as legal (as
    :func:`agents.networks.masked_logp_entropy` does), so it stays finite."""

    __slots__ = ("rows", "taken")

    def __init__(self, rows: SparseRows, taken: np.ndarray) -> None:
        self.rows, self.taken = rows, taken

    @classmethod
    def from_mask(cls, mask: np.ndarray, actions: np.ndarray) -> LegalRows:
        mask = np.asarray(mask, dtype=bool)
        actions = np.asarray(actions, dtype=np.int64)
        none_legal = ~mask.any(axis=1)
        if none_legal.any():
            mask = mask.copy()
            mask[none_legal] = True
        rows = np.arange(len(mask))
        illegal = ~mask[rows, actions]
        if illegal.any():
            bad = np.flatnonzero(illegal)
            raise ValueError(f"the taken action is not legal under its row's mask in {len(bad)} rows "
                             f"(first: row {bad[0]}, action {actions[bad[0]]}): a batch's actions must come "
                             "from its masks")
        crow = np.zeros(len(mask) + 1, np.int64)
        np.cumsum(mask.sum(axis=1), out=crow[1:])
        col, taken = np.empty(crow[-1], np.int16 if mask.shape[1] < 2**15 else np.int64), np.empty(len(mask), np.int64)
        _list_legal(mask, actions, crow, col, taken)
        return cls(SparseRows.from_crow(crow, col, np.ones(crow[-1], bool), mask.shape[1]), taken)

    def __len__(self) -> int:
        return len(self.rows)

    def index_select(self, dim: int, rows: torch.Tensor) -> LegalRows:
        """The given rows, in that order (a minibatch), as ``tensor.index_select(0, rows)``."""
        rows_np = np.asarray(rows)
        return LegalRows(self.rows.index_select(dim, rows), self.taken[rows_np])


def use_compact(mask: np.ndarray, weight: torch.Tensor) -> bool:
    """Whether the compact head pays for this batch's masks with the network whose ``weight`` is given
    (its compiled loops run on CPU, in float32 or float64)."""
    return (weight.device.type == "cpu" and weight.dtype in (torch.float32, torch.float64) and mask.ndim == 2
            and mask.size > 0 and mask.mean() < COMPACT_BELOW)


def legal_logp_entropy(hidden: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, legal: LegalRows
                       ) -> tuple[torch.Tensor, torch.Tensor]:
    """``masked_logp_entropy(hidden @ weight.T + bias, mask, actions)`` for the mask and actions that
    ``legal`` holds, computing the legal logits only; differentiable in all three tensors."""
    return _LegalLogpEntropy.apply(hidden, weight, bias, legal)


def sample_legal(hidden: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, mask: np.ndarray,
                 rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One action per row drawn from the head's distribution over the row's legal actions, and its
    log-probability (float32), computing the legal logits only. The draw is
    :func:`agents.networks.sample_actions`' Gumbel-max, with uniform numbers for the legal actions
    only (row by row, in action order; a row without a legal action takes one for each action and
    draws uniformly from all, as the masked dense head does): the dense draw would pick the same
    action from those numbers put at the legal places, up to near-ties that float rounding tips.
    Log-probabilities equal the dense head's up to float rounding. float32 networks only."""
    h = hidden.detach().contiguous().numpy()
    w = weight.detach().contiguous().numpy()
    b = bias.detach().contiguous().numpy()
    mask = np.ascontiguousarray(mask, dtype=bool)
    legal = mask.sum(axis=1)
    uniforms = rng.random(size=int(np.where(legal > 0, legal, mask.shape[1]).sum()))
    actions, logp = np.empty(len(h), np.int64), np.empty(len(h), np.float32)
    _sample(h, w, b, mask, uniforms, actions, logp)
    return actions, logp


class _LegalLogpEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, hidden: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, legal: LegalRows
                ) -> tuple[torch.Tensor, torch.Tensor]:
        h = hidden.detach().contiguous().numpy()
        w = weight.detach().contiguous().numpy()
        b = bias.detach().contiguous().numpy()
        starts, ends, col = legal.rows.starts, legal.rows.ends, legal.rows.col
        taken = starts + legal.taken
        shifted = np.empty(len(col), h.dtype)
        probs = np.empty(len(col), h.dtype)
        logp, entropy, mean_shifted = (np.empty(len(h), h.dtype) for _ in range(3))
        _forward(h, w, b, starts, ends, col, taken, np.array([-87.0, 0.0], h.dtype), shifted, probs, logp,
                 entropy, mean_shifted)
        ctx.arrays = (h, w, starts, ends, col, taken, shifted, probs, mean_shifted)
        return torch.from_numpy(logp), torch.from_numpy(entropy)

    @staticmethod
    def backward(ctx: Any, grad_logp: torch.Tensor, grad_entropy: torch.Tensor
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, None]:
        h, w, starts, ends, col, taken, shifted, probs, mean_shifted = ctx.arrays
        grad_h, grad_w, grad_b = np.zeros_like(h), np.zeros_like(w), np.zeros(len(w), h.dtype)
        _backward(h, w, starts, ends, col, taken, shifted, probs, mean_shifted,
                  grad_logp.detach().to(torch.from_numpy(h).dtype).contiguous().numpy(),
                  grad_entropy.detach().to(torch.from_numpy(h).dtype).contiguous().numpy(), grad_h, grad_w, grad_b)
        return torch.from_numpy(grad_h), torch.from_numpy(grad_w), torch.from_numpy(grad_b), None


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _logit(h, w, b, i, a, width):  # pragma: no cover
    # Summed in any order (SIMD lanes): 4x faster than one running sum, which waits on each
    # addition; it differs from a matrix product's order in float rounding only.
    z = h[i, 0] * 0
    for d in range(width):
        z += h[i, d] * w[a, d]
    return b[a] + z


@njit(cache=True, nogil=True)
def _forward(h, w, b, starts, ends, col, taken, consts, shifted, probs, logp, entropy, mean_shifted
             ):  # pragma: no cover
    floor, zero = consts[0], consts[1]  # in the inputs' float type
    num_rows, width = h.shape
    for i in range(num_rows):
        start, end = starts[i], ends[i]
        top = zero
        for k in range(start, end):
            a = col[k]
            z = _logit(h, w, b, i, a, width)
            shifted[k] = z
            if k == start or z > top:
                top = z
        total = zero
        for k in range(start, end):
            v = shifted[k] - top
            shifted[k] = v
            # exp(-87) is still a normal float: a legal action further down gets ~1e-38, as in the dense head
            p = np.exp(v if v > floor else floor)
            probs[k] = p
            total += p
        mean = zero
        for k in range(start, end):
            probs[k] /= total
            mean += probs[k] * shifted[k]
        log_total = np.log(total)
        logp[i] = shifted[taken[i]] - log_total
        entropy[i] = log_total - mean
        mean_shifted[i] = mean


@njit(cache=True, nogil=True)
def _backward(h, w, starts, ends, col, taken, shifted, probs, mean_shifted, grad_logp, grad_entropy,
              grad_h, grad_w, grad_b):  # pragma: no cover
    num_rows, width = h.shape
    for i in range(num_rows):
        g_logp, g_entropy, mean = grad_logp[i], grad_entropy[i], mean_shifted[i]
        for k in range(starts[i], ends[i]):
            # d logp_taken / dz_k = [k taken] - p_k;  d entropy / dz_k = -p_k (z_k - sum_j p_j z_j)
            g = -probs[k] * (g_entropy * (shifted[k] - mean) + g_logp)
            if k == taken[i]:
                g += g_logp
            a = col[k]
            grad_b[a] += g
            for d in range(width):
                grad_h[i, d] += g * w[a, d]
                grad_w[a, d] += g * h[i, d]


@njit(cache=True, nogil=True)
def _list_legal(mask, actions, crow, col, taken):  # pragma: no cover
    for i in range(mask.shape[0]):
        at = crow[i]
        for a in range(mask.shape[1]):
            if mask[i, a]:
                if a == actions[i]:
                    taken[i] = at - crow[i]  # the taken action's position among its row's legal ones
                col[at] = a
                at += 1


@njit(cache=True, nogil=True)
def _sample(h, w, b, mask, uniforms, actions, logp):  # pragma: no cover
    num_rows, width = h.shape
    num_actions = w.shape[0]
    logits = np.empty(num_actions, h.dtype)
    drawn = 0
    for i in range(num_rows):
        any_legal = False
        for a in range(num_actions):
            any_legal |= mask[i, a]
        top = -np.inf
        for a in range(num_actions):
            if mask[i, a] or not any_legal:
                # no legal action: uniform, as the dense mask
                z = _logit(h, w, b, i, a, width) if any_legal else np.float32(0.0)
                logits[a] = z
                top = max(top, z)
        total = 0.0
        for a in range(num_actions):
            if mask[i, a] or not any_legal:
                total += np.exp(np.float64(logits[a] - top))
        log_total = top + np.log(total)
        best, arg = -np.inf, -1
        for a in range(num_actions):
            if mask[i, a] or not any_legal:
                # in float32, as the dense draw adds the noise to its log-probabilities
                value = (logits[a] - np.float32(log_total)) + gumbel_noise(uniforms[drawn])
                drawn += 1
                if arg < 0 or value > best:
                    best, arg = value, a
        actions[i] = arg
        logp[i] = logits[arg] - np.float32(log_total)
