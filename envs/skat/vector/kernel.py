"""The CPU kernel of the batched Skat engine's observations and action masks (``backend="numba"``).

The rules still advance as tensors (``engine.advance``); what this replaces is ``observe.observe``
and ``observe.legal_mask``, about half of a step on a CPU: as tensor operations they stream every
deal's rows through memory once per field, here each deal's observation row (391 floats) and mask
row (162 flags) is written once, from the same tables (``Tables``, ``observe.Context``).
``tests/test_skat_vector.py`` drives both backends against the reference AEC env bit for bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.skat import actions as A
from envs.skat.observation import OBSERVATION_SIZE, SCALAR_OFFSET
from envs.skat.rules import AUCTION, DECLARE, DISCARD, PLAY
from envs.skat.vector.engine import (
    BID,
    BIDDER,
    CONTRACT,
    CUR,
    DECLARER,
    EMPTY,
    GAME,
    HANDS,
    LEADER,
    LED,
    LEVEL,
    LISTENER,
    NUM_CONTRACTS,
    PHASE,
    PLAYED,
    SKAT_DEALT,
    SKAT_NOW,
    STAGE,
    TAKEN,
    TCOUNT,
    TL,
    TRICK,
)
from envs.skat.vector.tables import (
    K_BIDDER,
    K_LISTENER,
    K_STAGE3,
    NB,
    S_BID,
    S_CARD_POINTS,
    S_CONTRACT_END,
    S_GAME_TYPE,
    S_MAX_CALL,
    S_TRICK_COUNT,
    S_VOIDS,
)

NUM_SCALARS = OBSERVATION_SIZE - SCALAR_OFFSET
NUM_PLANES = SCALAR_OFFSET // 32
NIBBLE_FLOATS = np.array([[(v >> j) & 1 for j in range(4)] for v in range(16)], dtype=np.float32)  # 4 bits


@njit(cache=True, error_model="numpy")
def observe_mask(s, sets, pos, ramsch, contract_ouvert, aux_rows, contract_rows, feature_value, feature_base,
                 trick_count_value, void_flags, mask_rows, phase_keys, follow, nibble_floats, ended, obs, mask) -> None:
    """Every deal's observation (``observe.observe``) and mask (``observe.legal_mask``), of the
    position to act; zeros and no legal action in the deals that ended (``ended``)."""
    words = np.zeros(NUM_PLANES, np.int64)
    for g in range(s.shape[1]):
        if ended[g]:
            for j in range(OBSERVATION_SIZE):
                obs[g, j] = np.float32(0.0)
            for j in range(A.NUM_ACTIONS):
                mask[g, j] = False
            continue
        phase, p, bid = s[PHASE, g], s[CUR, g], s[BID, g]
        declarer, contract, taken, level = s[DECLARER, g], s[CONTRACT, g], s[TAKEN, g], s[LEVEL, g]
        # card planes: own hand, the skat (the declarer after the pickup), played and trick cards
        # by relative seat, the declarer's open hand in ouvert games
        show = declarer == p and taken != 0
        ouvert = contract >= 0 and contract_ouvert[contract] and phase >= PLAY
        words[0] = sets[HANDS + p, g]
        words[1] = sets[SKAT_NOW if show else EMPTY, g]
        words[2] = sets[SKAT_DEALT if show else EMPTY, g]
        for r in range(3):
            q = p + r if p + r < 3 else p + r - 3
            words[3 + r] = sets[PLAYED + q, g]
            words[6 + r] = sets[TRICK + q, g]
        words[9] = sets[HANDS + max(declarer, 0) if ouvert else EMPTY, g]
        for k in range(NUM_PLANES):
            w = words[k]
            for j in range(8):
                v = (w >> (4 * j)) & 15
                # all four read before any is written: one vector load and store (no aliasing to respect)
                f0, f1, f2, f3 = nibble_floats[v, 0], nibble_floats[v, 1], nibble_floats[v, 2], nibble_floats[v, 3]
                at = 32 * k + 4 * j
                obs[g, at], obs[g, at + 1], obs[g, at + 2], obs[g, at + 3] = f0, f1, f2, f3
        # scalars: the one-hot row of position, phase and seats with the table options, the
        # contract's row, then the values
        aux = ((((p * 8 + phase) * 3 + s[BIDDER, g]) * 3 + s[LISTENER, g]) * 4 + declarer + 1) * 3 + s[LEADER, g]
        for j in range(NUM_SCALARS):
            obs[g, SCALAR_OFFSET + j] = aux_rows[aux, j]
        if ramsch:  # no contract in play: Ramsch
            ck = contract + 1 if contract >= 0 else (NUM_CONTRACTS + 1 if phase >= PLAY else 0)
        else:
            ck = contract + 1
        for j in range(S_CONTRACT_END - S_GAME_TYPE):
            obs[g, SCALAR_OFFSET + S_GAME_TYPE + j] = contract_rows[ck * 3 + level, j]
        obs[g, SCALAR_OFFSET + S_BID] = feature_value[bid]
        for r in range(3):
            q = p + r if p + r < 3 else p + r - 3
            for f in range(3):  # max call, passed, called
                obs[g, SCALAR_OFFSET + S_MAX_CALL + 3 * f + r] = feature_value[pos[f, q, g] + feature_base[f]]
            for f in range(3, 5):  # card points, tricks won
                obs[g, SCALAR_OFFSET + S_CARD_POINTS + 3 * (f - 3) + r] = feature_value[pos[f, q, g] + feature_base[f]]
            for j in range(5):
                obs[g, SCALAR_OFFSET + S_VOIDS + 5 * r + j] = void_flags[pos[5, q, g], j]
        obs[g, SCALAR_OFFSET + S_TRICK_COUNT] = trick_count_value[s[TCOUNT, g]]
        # the mask: the phase's row, then the cards to discard or to play
        if phase == AUCTION:
            if s[STAGE, g] == 3:
                key = K_STAGE3
            elif p == s[LISTENER, g]:
                key = K_LISTENER
            else:
                key = K_BIDDER + bid
        else:
            key = phase_keys[phase] + ((taken * (NB + 1) + bid) if phase == DECLARE else 0)
        for j in range(A.NUM_ACTIONS):
            mask[g, j] = mask_rows[key, j]
        if phase == DISCARD:
            hand = sets[HANDS + p, g]
            for c in range(32):
                if (hand >> c) & 1:
                    mask[g, A.DISCARD + c] = True
        elif phase == PLAY:
            hand = sets[HANDS + p, g]
            playable = hand
            if s[TL, g] > 0:
                suited = hand & follow[max(s[GAME, g], 0) * 5 + s[LED, g]]
                if suited != 0:
                    playable = suited
            for c in range(32):
                if (playable >> c) & 1:
                    mask[g, A.PLAY + c] = True


class CpuKernel:
    """The host side: the tables as numpy arrays (the torch engine's, shared on the CPU)."""

    def __init__(self, T, ctx, ramsch: bool) -> None:
        npy = lambda t: t.cpu().numpy()  # noqa: E731
        self.ramsch = bool(ramsch)
        self.tables = (npy(T.contract_ouvert), npy(ctx.aux_rows), npy(T.contract_rows), npy(T.feature_value),
                       npy(T.feature_base), npy(T.trick_count_value), npy(ctx.void_flags), npy(T.mask_rows),
                       npy(ctx.phase_keys), npy(T.follow), NIBBLE_FLOATS)

    def warm(self) -> None:
        """Compile the kernel (or load it from numba's cache) now, on two throwaway deals."""
        import torch

        from envs.skat.vector.engine import Batch

        self.observe(Batch(2, torch.device("cpu")), np.zeros(2, np.bool_), np.zeros((2, OBSERVATION_SIZE), np.float32),
                     np.zeros((2, A.NUM_ACTIONS), np.bool_))

    def observe(self, b, ended: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> None:
        observe_mask(b.s.numpy(), b.sets.numpy(), b.pos.numpy(), self.ramsch, *self.tables, ended, obs, mask)
