"""Helpers shared by the batched engines (``envs.skat.vector``, ``envs.thirtyone.vector``).

``random_legal_actions`` samples one uniformly random legal action per row of a batched action
mask on the mask's device (the random player of benchmarks and tests). ``tune_malloc`` is an
opt-in process setting for CPU throughput: see its docstring.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

import torch


def random_legal_actions(mask: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
    """int64 [N]: for each row of the bool mask [N, A] (at most 255 legal actions) one legal
    action, uniformly: the k-th legal action for a uniform k, found by a binary search in the
    running count of legal actions (no random key per action, which costs far more)."""
    count = mask.view(torch.uint8).cumsum(1, dtype=torch.uint8)
    k = (torch.rand(mask.shape[0], generator=generator, device=mask.device) * count[:, -1]).to(torch.uint8)
    return torch.searchsorted(count, k[:, None], right=True).squeeze(1).clamp_(max=mask.shape[1] - 1)


_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


def tune_malloc(mmap_threshold: int = 32 << 20, trim_threshold: int = 1 << 30) -> bool:
    """Keep freed memory in the process (glibc only; a no-op returning False elsewhere).

    A batched step allocates a few MB (the observations) and frees the last step's: with glibc's
    defaults such blocks are mapped fresh from the kernel each time, and the page faults of
    touching them cost about as much as computing the observations. Raising the mmap and trim
    thresholds lets malloc reuse them (PyTorch's CPU tuning guide suggests jemalloc or tcmalloc
    for the same reason). Process-wide, so an explicit opt-in: the benchmarks and a batched
    trainer call it; the engine never does."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        ok = libc.mallopt(_M_MMAP_THRESHOLD, int(mmap_threshold)) == 1
        return libc.mallopt(_M_TRIM_THRESHOLD, int(trim_threshold)) == 1 and ok
    except (OSError, AttributeError):
        return False
