"""Mostly-zero observation batches in sparse form, for a cheaper first layer in the PPO update.

Card-game observations are mostly zeros: a Thirty-One vector has about 27 non-zero entries of
1130 (one-hot cards, seats a table does not have), a Skat vector about 38 of 391. A dense first
layer still multiplies every zero, forward and backward, and in a Thirty-One PPO update that is
over half of the time. With the batch in compressed-row form the layer costs ``non-zeros x width``
instead: the same numbers up to float rounding, and the weights stay an ordinary ``nn.Linear``
(checkpoints do not change).

:func:`observation_batch` decides per batch: sparse only when few entries are non-zero, so denser
observations keep the dense path.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import torch

# Compressed-row tensors are "beta" in torch, which says so once per process; the two products
# used here (sparse @ dense, forward and backward) are covered by tests against the dense layer.
warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta", category=UserWarning)

# Non-zero fraction under which the sparse path is used. Measured on the first layer of PPO's update
# (2,048 rows, 128 outputs, forward and backward, torch 2.13): at 5% of non-zeros the sparse path
# takes 0.3x the dense time, at 10% 0.5-0.7x, and the two meet at 13-20% (one or two threads, 391 or
# 1,130 inputs). Thirty-One's observations are about 2.4% non-zero, Skat's 6-10%.
SPARSE_BELOW = 0.12


class SparseRows:
    """Rows of an observation batch as CSR: ``crow`` (rows + 1), ``col`` and ``val`` per non-zero."""

    __slots__ = ("crow", "col", "val", "num_cols", "_csr", "_csr_t")

    def __init__(self, crow: np.ndarray, col: np.ndarray, val: np.ndarray, num_cols: int) -> None:
        self.crow, self.col, self.val, self.num_cols = crow, col, val, num_cols
        self._csr: torch.Tensor | None = None
        self._csr_t: torch.Tensor | None = None

    @classmethod
    def from_dense(cls, obs: np.ndarray, flat: np.ndarray | None = None) -> SparseRows:
        """``flat``: ``np.flatnonzero(obs != 0)`` where the caller has it already."""
        num_rows, num_cols = obs.shape
        if flat is None:
            flat = np.flatnonzero(obs != 0)  # through a bool array: 5x faster than on the floats
        rows, cols = np.divmod(flat, num_cols)
        crow = np.zeros(num_rows + 1, np.int64)
        np.cumsum(np.bincount(rows, minlength=num_rows), out=crow[1:])
        return cls(crow, cols.astype(np.int16 if num_cols < 2**15 else np.int64), obs.ravel()[flat], num_cols)

    def __len__(self) -> int:
        return len(self.crow) - 1

    def __getitem__(self, rows: np.ndarray | torch.Tensor) -> SparseRows:
        """The given rows, in that order (a minibatch)."""
        rows = np.asarray(rows)
        starts = self.crow[rows]
        counts = self.crow[rows + 1] - starts
        crow = np.zeros(len(rows) + 1, np.int64)
        np.cumsum(counts, out=crow[1:])
        take = np.repeat(starts - crow[:-1], counts) + np.arange(crow[-1])
        return SparseRows(crow, self.col[take], self.val[take], self.num_cols)

    def index_select(self, dim: int, rows: torch.Tensor) -> SparseRows:
        """``tensor.index_select(0, rows)``'s counterpart, so a minibatch is gathered alike from both kinds."""
        if dim != 0:
            raise ValueError(f"SparseRows selects rows (dim 0), not dim {dim}")
        return self[rows]

    def to_dense(self) -> torch.Tensor:
        return self.csr().to_dense()

    def csr(self) -> torch.Tensor:
        if self._csr is None:
            self._csr = _csr_tensor(self.crow, self.col, self.val, (len(self), self.num_cols))
        return self._csr

    def csr_transposed(self) -> torch.Tensor:
        """The transpose (columns x rows), also as CSR: the weight gradient is ``X^T @ grad``."""
        if self._csr_t is None:
            order = np.argsort(self.col, kind="stable")  # a radix sort for int16 columns
            rows = np.repeat(np.arange(len(self)), np.diff(self.crow))
            crow = np.zeros(self.num_cols + 1, np.int64)
            np.cumsum(np.bincount(self.col, minlength=self.num_cols), out=crow[1:])
            self._csr_t = _csr_tensor(crow, rows[order], self.val[order], (self.num_cols, len(self)))
        return self._csr_t


def _csr_tensor(crow: np.ndarray, col: np.ndarray, val: np.ndarray, size: tuple[int, int]) -> torch.Tensor:
    # Built from arrays that are valid by construction, so torch's invariant checks are skipped.
    return torch.sparse_csr_tensor(torch.from_numpy(crow), torch.from_numpy(col.astype(np.int64)),
                                   torch.from_numpy(val), size, check_invariants=False)


def observation_batch(obs: np.ndarray) -> SparseRows | torch.Tensor:
    """The batch as :class:`SparseRows` when under :data:`SPARSE_BELOW` of it is non-zero, else a tensor."""
    obs = np.ascontiguousarray(obs, dtype=np.float32)
    flat = np.flatnonzero(obs != 0)
    if obs.ndim == 2 and len(flat) < SPARSE_BELOW * obs.size:
        return SparseRows.from_dense(obs, flat)
    return torch.from_numpy(obs)


class _SparseLinear(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, rows: SparseRows, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        ctx.rows = rows
        return torch.addmm(bias, rows.csr(), weight.t().contiguous())

    @staticmethod
    def backward(ctx: Any, grad_out: torch.Tensor) -> tuple[None, torch.Tensor, torch.Tensor]:
        grad_weight = torch.sparse.mm(ctx.rows.csr_transposed(), grad_out).t().contiguous()
        return None, grad_weight, grad_out.sum(0)


def linear(inputs: SparseRows | torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """``inputs @ weight.T + bias`` for a dense or a :class:`SparseRows` batch (differentiable in weight, bias)."""
    if isinstance(inputs, SparseRows):
        return _SparseLinear.apply(inputs, weight, bias)
    return torch.nn.functional.linear(inputs, weight, bias)
