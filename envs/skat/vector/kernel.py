"""The CPU kernel of the batched Skat engine (``backend="numba"``): ``engine.advance``,
``observe.observe`` and ``observe.legal_mask`` in scalar form, one deal after the other.

As tensor operations, each field of every deal streams through memory once per operation (a few
hundred per step); here each deal is advanced while its state is in the cache and its observation
row (391 floats) and mask row (162 flags) are written once, from the same tables (``Tables``,
``observe.Context``). New deals, their random cards and the scores stay tensor operations (a
deal ends every ten steps or so). ``tests/test_skat_vector.py`` drives both backends against the
reference AEC env, and against each other (the same seed deals the same cards), bit for bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.skat import actions as A
from envs.skat.cards import GRAND, NULL
from envs.skat.observation import OBSERVATION_SIZE, SCALAR_OFFSET
from envs.skat.rules import AUCTION, DECLARE, DISCARD, DONE, KONTRA, PLAY, RE, SKAT
from envs.skat.vector.engine import (
    BID,
    BIDDER,
    CONTRACT,
    CUR,
    DECLARER,
    EMPTY,
    F_CALL,
    F_CALLED,
    F_PASSED,
    F_POINTS,
    F_TRICKS,
    F_VOIDS,
    GAME,
    HANDS,
    KQ,
    LEADER,
    LED,
    LEVEL,
    LISTENER,
    NUM_CONTRACTS,
    PHASE,
    PLAYED,
    SKAT_DEALT,
    SKAT_NOW,
    SKAT_POINTS,
    STAGE,
    TAKEN,
    TCOUNT,
    TL,
    TPACK,
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
        last = feature_value.shape[0] - 1  # (only actions left unchecked, validate=False, could pass it)
        for r in range(3):
            q = p + r if p + r < 3 else p + r - 3
            for f in range(3):  # max call, passed, called
                at = min(pos[f, q, g] + feature_base[f], last)
                obs[g, SCALAR_OFFSET + S_MAX_CALL + 3 * f + r] = feature_value[at]
            for f in range(3, 5):  # card points, tricks won
                at = min(pos[f, q, g] + feature_base[f], last)
                obs[g, SCALAR_OFFSET + S_CARD_POINTS + 3 * (f - 3) + r] = feature_value[at]
            for j in range(5):
                obs[g, SCALAR_OFFSET + S_VOIDS + 5 * r + j] = void_flags[pos[5, q, g], j]
        obs[g, SCALAR_OFFSET + S_TRICK_COUNT] = trick_count_value[min(s[TCOUNT, g], 10)]
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


@njit(cache=True, error_model="numpy")
def advance(s, sets, pos, actions, kontra, ramsch, action_bit, action_card, action_points, eff, follow, winner_points,
            contract_game, low_pos, ended) -> None:
    """``engine.advance`` deal by deal: apply ``actions[g]`` in every deal g that is not over (a
    deal over is dealt anew after this step: left alone), ``ended[g]`` when it ends now."""
    for g in range(s.shape[1]):
        ended[g] = False
        phase = s[PHASE, g]
        if phase == DONE:
            continue
        p, a = s[CUR, g], actions[g]
        bid, stage, bidder, listener = s[BID, g], s[STAGE, g], s[BIDDER, g], s[LISTENER, g]
        declarer, contract, game, taken, level = s[DECLARER, g], s[CONTRACT, g], s[GAME, g], s[TAKEN, g], s[LEVEL, g]
        kq, tpack, tl, led, leader, tcount = s[KQ, g], s[TPACK, g], s[TL, g], s[LED, g], s[LEADER, g], s[TCOUNT, g]
        skat_points = s[SKAT_POINTS, g]
        new_phase, new_cur = phase, p
        start_play = over = next_kontra = complete = False
        bit = action_bit[a]  # the card of a play or discard (0 for other actions)
        bit_play = bit if phase == PLAY else 0
        d_hand, d_skat = bit, bit - bit_play
        if phase == SKAT:
            if a == A.PICKUP:
                cards = sets[SKAT_NOW, g]
                d_hand, d_skat = d_hand + cards, d_skat + cards
                taken += 1
                skat_points = 0
                new_phase = DISCARD
            else:
                new_phase = DECLARE
        elif phase == DISCARD:
            skat_points += action_points[a]
            if sets[SKAT_NOW, g] != 0:  # the skat held one card: now two
                new_phase = DECLARE
        elif phase == PLAY:
            card = action_card[a]
            gm = max(game, 0)
            first = tl == 0
            if first:
                led = eff[gm * 32 + card]
            elif sets[HANDS + p, g] & follow[gm * 5 + led] == 0:
                pos[F_VOIDS, p, g] |= 1 << led
            tpack = card if first else tpack * 32 + card
            complete = tl == 2
            if complete:
                wp = winner_points[gm * 32768 + tpack]
                w = leader + (wp & 3)
                w = w - 3 if w >= 3 else w
                pos[F_TRICKS, w, g] += 1
                pos[F_POINTS, w, g] += wp >> 2
                tcount += 1
                leader, tl, new_cur = w, 0, w
                if tcount == 10 or (gm == NULL and w == declarer):
                    new_phase, over = DONE, True
            else:
                tl += 1
                new_cur = p + 1 if p < 2 else 0
        elif phase == AUCTION:
            passes, holds, bids = a == A.PASS, a == A.HOLD, a < A.HOLD  # bid index a (A.BID is 0)
            old_bid = bid
            if bids:
                bid = a + 1
            if passes:
                pos[F_PASSED, p, g] |= 1
            if holds or bids:
                pos[F_CALLED, p, g] |= 1
                pos[F_CALL, p, g] = bid
            is_bidder = p == bidder
            survivor = listener if is_bidder else bidder  # who stays in when p passes
            s1, s2 = passes and stage == 1, passes and stage == 2
            to3 = s2 and is_bidder and old_bid == 0  # middlehand and rearhand passed: forehand may still bid
            end2 = s2 and not to3
            bid3, pass3 = bids and stage == 3, passes and stage == 3
            if end2:
                declarer = survivor
            elif bid3:
                declarer = 0
            cur = bidder if holds else (listener if bids and not bid3 else (2 if s1 else 0))
            new_cur = survivor if end2 else cur
            if s1:
                listener, bidder, stage = survivor, 2, 2
            elif to3:
                stage = 3
            if end2 or bid3:
                new_phase = SKAT
            if pass3:
                if ramsch:
                    game, start_play = GRAND, True
                else:
                    new_phase, over = DONE, True
        elif phase == DECLARE:
            contract = min(max(a - A.DECLARE, 0), NUM_CONTRACTS - 1)
            game = contract_game[contract]
            if kontra:  # the defenders who made or held a call may double, forehand first
                kq = 0
                for q in range(3):
                    if q != declarer:
                        kq += pos[F_CALLED, q, g] << q
                next_kontra = True
            else:
                start_play = True
        elif phase == KONTRA:
            if a == A.KONTRA:
                level, new_phase, new_cur = 1, RE, declarer
            else:
                next_kontra = True
        elif phase == RE:
            if a == A.RE:
                level = 2
            start_play = True
        # cards move: hand of p (play, discard, pickup), played and trick (play), skat (discard, pickup)
        sets[HANDS + p, g] ^= d_hand
        sets[PLAYED + p, g] ^= bit_play
        sets[TRICK + p, g] ^= bit_play
        sets[SKAT_NOW, g] ^= d_skat
        if complete:
            for q in range(3):
                sets[TRICK + q, g] = 0
        if next_kontra:
            if kq != 0:
                new_phase, new_cur = KONTRA, low_pos[kq]
                kq &= kq - 1
            else:
                start_play = True
        if start_play:
            new_phase = PLAY
        if start_play or over:
            new_cur = 0
        s[PHASE, g], s[CUR, g], s[BID, g], s[STAGE, g], s[BIDDER, g], s[LISTENER, g] = (
            new_phase, new_cur, bid, stage, bidder, listener)
        s[DECLARER, g], s[CONTRACT, g], s[GAME, g], s[TAKEN, g], s[LEVEL, g], s[KQ, g] = (
            declarer, contract, game, taken, level, kq)
        s[TPACK, g], s[TL, g], s[LED, g], s[LEADER, g], s[TCOUNT, g], s[SKAT_POINTS, g] = (
            tpack, tl, led, leader, tcount, skat_points)
        ended[g] = over


class CpuKernel:
    """The host side: the tables as numpy arrays (the torch engine's, shared on the CPU)."""

    def __init__(self, T, ctx, kontra: bool, ramsch: bool) -> None:
        npy = lambda t: t.cpu().numpy()  # noqa: E731
        self.kontra, self.ramsch = bool(kontra), bool(ramsch)
        self.rules = (npy(T.action_bit), npy(T.action_card), npy(T.action_points), npy(T.eff), npy(T.follow),
                      npy(T.winner_points), npy(T.contract_game), npy(T.low_pos))
        self.tables = (npy(T.contract_ouvert), npy(ctx.aux_rows), npy(T.contract_rows), npy(T.feature_value),
                       npy(T.feature_base), npy(T.trick_count_value), npy(ctx.void_flags), npy(T.mask_rows),
                       npy(ctx.phase_keys), npy(T.follow), NIBBLE_FLOATS)

    def warm(self) -> None:
        """Compile the kernel (or load it from numba's cache) now, on two throwaway deals."""
        import torch

        from envs.skat.vector.engine import Batch

        b = Batch(2, torch.device("cpu"))
        self.advance(b, np.zeros(2, np.int64), np.zeros(2, np.bool_))
        self.observe(b, np.zeros(2, np.bool_), np.zeros((2, OBSERVATION_SIZE), np.float32),
                     np.zeros((2, A.NUM_ACTIONS), np.bool_))

    def advance(self, b, actions: np.ndarray, ended: np.ndarray) -> None:
        advance(b.s.numpy(), b.sets.numpy(), b.pos.numpy(), actions, self.kontra, self.ramsch, *self.rules, ended)

    def observe(self, b, ended: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> None:
        observe_mask(b.s.numpy(), b.sets.numpy(), b.pos.numpy(), self.ramsch, *self.tables, ended, obs, mask)
