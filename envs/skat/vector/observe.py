"""Observation vectors and action masks of the batched Skat engine, equal to ``envs.skat.observation``
and the rules core's ``legal_mask`` (the layout is documented there; ``OBSERVATION_VERSION`` is
shared). Built from the state every step: card planes by one gather and a bit unpack, scalars by
one scatter of the one-hots and a few table lookups.
"""

from __future__ import annotations

import torch

from envs.skat import actions as A
from envs.skat.observation import OBSERVATION_SIZE, SCALAR_OFFSET
from envs.skat.rules import AUCTION, DECLARE, DISCARD, DONE, KONTRA, PLAY, RE, SKAT
from envs.skat.vector.engine import F_VOIDS, HANDS, NUM_CONTRACTS, Batch
from envs.skat.vector.tables import (
    K_BIDDER,
    K_CARDS,
    K_DECLARE,
    K_DONE,
    K_KONTRA,
    K_LISTENER,
    K_RE,
    K_SKAT,
    K_STAGE3,
    NB,
    Tables,
)

FLOAT_ONE_BITS = 0x3F800000  # 1.0f: a card plane bit becomes this bit pattern
_PHASE_KEY = {AUCTION: K_BIDDER, SKAT: K_SKAT, DISCARD: K_CARDS, DECLARE: K_DECLARE, KONTRA: K_KONTRA, RE: K_RE,
              PLAY: K_CARDS, DONE: K_DONE}


def scalar_template(T: Tables, options) -> torch.Tensor:
    """The scalars every observation of this table shares (the table options), zeros elsewhere."""
    s = torch.zeros(OBSERVATION_SIZE - SCALAR_OFFSET, dtype=torch.float32, device=T.device)
    s[53], s[54], s[55] = float(options.ramsch), float(options.kontra), float(options.scoring == "tournament")
    return s


def phase_keys(T: Tables) -> torch.Tensor:
    return torch.tensor([_PHASE_KEY[ph] for ph in range(8)], dtype=torch.int64, device=T.device)


def observe(b: Batch, T: Tables, template: torch.Tensor, ramsch: bool) -> torch.Tensor:
    """float32 [N, OBSERVATION_SIZE]: the observation of the position to act (forehand once over)."""
    n, p, phase, declarer, contract = b.n, b.cur, b.phase, b.declarer, b.contract
    out = torch.empty(n, OBSERVATION_SIZE, dtype=torch.float32, device=b.device)
    # card planes: own hand, skat (declarer after pickup), played and trick cards by relative seat,
    # the declarer's open hand in ouvert games
    show_skat = (declarer == p) & (b.taken == 1)
    ouvert = T.contract_ouvert[contract.clamp(min=0)] & (contract >= 0) & (phase >= PLAY)
    key = p * 8 + show_skat * 4 + torch.where(ouvert, declarer + 1, 0)
    words = b.sets.gather(1, T.plane_index[key]).to(torch.int32)
    bits = words[:, :, None] * T.unpack_mult  # bit i of a word to bit 31 (int32 wraps)
    bits >>= 31  # -1 where set
    torch.bitwise_and(bits.view(n, SCALAR_OFFSET), FLOAT_ONE_BITS, out=out.view(torch.int32)[:, :SCALAR_OFFSET])
    # scalars
    s = out[:, SCALAR_OFFSET:]
    s.copy_(template.expand(n, -1))
    aux = ((((p * 8 + phase) * 3 + b.bidder) * 3 + b.listener) * 4 + declarer + 1) * 3 + b.leader
    if ramsch:
        ck = torch.where(contract >= 0, contract + 1, torch.where(phase >= PLAY, NUM_CONTRACTS + 1, 0))
    else:
        ck = contract + 1
    onehots = torch.cat((T.aux_index[aux], T.contract_index[ck * 3 + b.level]), 1)
    s.scatter_(1, onehots, 1.0)
    s[:, 11] = T.feature_value[b.bid]  # overwrites the dummy target of absent one-hots
    rel = b.pos.gather(2, T.rot[p][:, None, :].expand(n, 6, 3))
    values = T.feature_value[rel[:, :F_VOIDS] + T.feature_base[:, None]]
    s[:, 12:21] = values[:, :3].reshape(n, 9)
    s[:, 43:49] = values[:, 3:5].reshape(n, 6)
    s[:, 49] = T.trick_count_value[b.tcount]
    s[:, 56:71] = T.void_value[rel[:, F_VOIDS]].view(n, 15)
    return out


def legal_mask(b: Batch, T: Tables, keys: torch.Tensor) -> torch.Tensor:
    """bool [N, NUM_ACTIONS]: the legal actions of the position to act (all True once over)."""
    phase = b.phase
    auction = torch.where(b.stage == 3, K_STAGE3, torch.where(b.cur == b.listener, K_LISTENER, K_BIDDER + b.bid))
    key = torch.where(phase == AUCTION, auction, keys[phase] + (phase == DECLARE) * (b.taken * (NB + 1) + b.bid))
    mask = T.mask_rows[key]
    hand = b.sets.gather(1, HANDS + b.cur[:, None]).squeeze(1)
    follow = hand & T.follow[b.game.clamp(min=0) * 5 + b.led]
    playable = torch.where((b.tl > 0) & (follow != 0), follow, hand)
    cards = (playable[:, None] & T.pow32) != 0
    mask[:, A.PLAY:].bitwise_or_(cards & (phase == PLAY)[:, None])
    mask[:, A.DISCARD:A.DISCARD + 32].bitwise_or_(cards & (phase == DISCARD)[:, None])
    return mask
