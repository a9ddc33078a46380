"""The Gumbel-max draw of :func:`agents.networks.sample_actions`, compiled: noise for legal actions only.

``rng.gumbel(size=...)`` spends two logarithms on each of a row's 162 (Skat) or 57 (Thirty-One)
actions, most of them illegal; that was a third of a self-play collection step. Here the same
uniform numbers are drawn (``rng.random``: numpy's Gumbel is ``-log(-log(1 - u))`` of the very
same doubles, one per entry) and the logarithms are taken only where an action is legal, with the
C library's ``log`` as numpy's Gumbel takes them: the draws, and so the actions, are the ones the
plain numpy formula gives, bit for bit (``tests/test_agents_ppo.py`` checks it). numpy redraws a
Gumbel whose uniform is exactly 0.0 (a 2**-53 chance per entry); this does not.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def gumbel_noise(uniform: float) -> np.float32:
    """numpy's Gumbel of the uniform ``rng.random`` drew, cast as the plain formula casts it."""
    return np.float32(-math.log(-math.log(1.0 - uniform)))


@njit(cache=True)
def gumbel_argmax(log_probs: np.ndarray, uniforms: np.ndarray, legal_above: float, out: np.ndarray) -> None:
    """``out[i]``: argmax over j of ``log_probs[i, j] + float32(-log(-log(1 - uniforms[i, j])))``, taken
    over the entries above ``legal_above`` (all of the row's entries where none is)."""
    for i in range(log_probs.shape[0]):
        best, arg, legal = -np.inf, 0, False
        for j in range(log_probs.shape[1]):
            if log_probs[i, j] > legal_above:
                value = log_probs[i, j] + gumbel_noise(uniforms[i, j])
                if not legal or value > best:
                    best, arg, legal = value, j, True
        if not legal:
            for j in range(log_probs.shape[1]):
                value = log_probs[i, j] + gumbel_noise(uniforms[i, j])
                if j == 0 or value > best:
                    best, arg = value, j
        out[i] = arg
