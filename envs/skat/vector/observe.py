"""Observation vectors and action masks of the batched Skat engine, equal to ``envs.skat.observation``
and the rules core's ``legal_mask`` (the layout is documented there; ``OBSERVATION_VERSION`` is
shared). Built from the state every step: the relative seats' card sets and features by one flat
select each (the deal index is the last dimension of the state, so a select of whole rows per deal
is cheaper than a gather or a chain of ``where`` across positions), card planes unpacked byte by
byte through a table, scalars by table rows selected straight into the vector (``index_select``
with ``out=``, no temporaries).
"""

from __future__ import annotations

import torch

from envs.skat import actions as A
from envs.skat.observation import OBSERVATION_SIZE, SCALAR_OFFSET
from envs.skat.rules import AUCTION, DECLARE, DISCARD, DONE, KONTRA, PLAY, RE, SKAT
from envs.skat.vector.engine import EMPTY, HANDS, NUM_CONTRACTS, PLAYED, SKAT_DEALT, SKAT_NOW, TRICK, Batch, pick
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
    S_BID,
    S_CARD_POINTS,
    S_CONTRACT_END,
    S_GAME_TYPE,
    S_KONTRA_ON,
    S_MAX_CALL,
    S_RAMSCH_ON,
    S_TOURNAMENT,
    S_TRICK_COUNT,
    S_VOIDS,
    Tables,
)

_PHASE_KEY = {AUCTION: K_BIDDER, SKAT: K_SKAT, DISCARD: K_CARDS, DECLARE: K_DECLARE, KONTRA: K_KONTRA, RE: K_RE,
              PLAY: K_CARDS, DONE: K_DONE}


class Context:
    """What every observation of one env shares: the one-hot rows with the table options set, and
    the row indices that read the relative seats' card sets and per-position features with one
    flat select each."""

    def __init__(self, T: Tables, options, n: int) -> None:
        self.aux_rows = T.aux_rows.clone()
        self.aux_rows[:, S_RAMSCH_ON] = float(options.ramsch)
        self.aux_rows[:, S_KONTRA_ON] = float(options.kontra)
        self.aux_rows[:, S_TOURNAMENT] = float(options.scoring == "tournament")
        self.ramsch = options.ramsch
        self.feature_base = T.feature_base[:, None, None]
        self.phase_keys = torch.tensor([_PHASE_KEY[ph] for ph in range(8)], dtype=torch.int64, device=T.device)
        # the rows of Batch.sets of the ten card planes, by key ((p * 2 + show skat) * 2 + ouvert) * 3 + declarer
        words = []
        for key in range(36):
            p, show, ouvert, d = key // 12, key // 6 % 2, key // 3 % 2, key % 3
            rel = [(p + r) % 3 for r in range(3)]
            words.append([HANDS + p, SKAT_NOW if show else EMPTY, SKAT_DEALT if show else EMPTY,
                          *(PLAYED + q for q in rel), *(TRICK + q for q in rel), HANDS + d if ouvert else EMPTY])
        # as flat indices into Batch.sets [12, N] less the deal index (added by slot_index): [36, 10]
        self.word_index = torch.tensor(words, dtype=torch.int64, device=T.device) * n
        # the same for Batch.pos viewed [18, N] (feature f of position q in row f * 3 + q) by relative
        # seat r (column f * 3 + r), per observer p: [3, 18]
        self.pos_index = torch.tensor([[(f * 3 + (p + r) % 3) * n for f in range(6) for r in range(3)]
                                       for p in range(3)], dtype=torch.int64, device=T.device)
        self.slot_index = torch.arange(n, dtype=torch.int64, device=T.device)[:, None]
        self.pos_base = T.feature_base.repeat_interleave(3)  # [15]
        self.void_flags = T.void_rows[:32, :5].contiguous()  # [32, 5]: the voids of one relative seat
        # byte b -> its 8 bits as 8 bytes of 0 or 1, read as one int64 (little-endian)
        bits = (torch.arange(256, device=T.device)[:, None] >> torch.arange(8, device=T.device)) & 1
        self.byte_flags = bits.to(torch.uint8).contiguous().view(torch.int64).view(-1)
        # per phase: whether the hand's cards are discards, whether the playable cards are plays
        self.card_phases = torch.tensor([[ph == DISCARD, ph == PLAY] for ph in range(8)], dtype=torch.int32,
                                        device=T.device)



def _rows(x: torch.Tensor, index: torch.Tensor, key: torch.Tensor, ctx: Context) -> torch.Tensor:
    """[N, k]: per deal n the entries ``x.view(-1)[index[key[n]] + n]`` of a tensor with the deal
    index last (one row select and one flat select: a gather across rows is several times slower)."""
    return x.view(-1).index_select(0, torch.add(index.index_select(0, key), ctx.slot_index).view(-1)).view(len(key), -1)


def unpack(words: torch.Tensor, ctx: Context) -> torch.Tensor:
    """uint8 [N, 32 * k]: the bits of the int32 card sets ``words`` [N, k] as 0 or 1 (little-endian
    bytes, each looked up as 8 flags in one int64: far fewer and cheaper element ops than per bit)."""
    flags = ctx.byte_flags.index_select(0, words.contiguous().view(torch.uint8).view(-1).long())
    return flags.view(torch.uint8).view(len(words), -1)


def rotate(x: torch.Tensor, p: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The rows of ``x`` [..., 3 positions, N] for relative seats 0, 1, 2 of observer ``p`` [N]
    (relative seat r is position (p + r) % 3). Selection by ``where``: faster than a gather here."""
    x0, x1, x2 = x.unbind(-2)
    first, second = p == 0, p == 1
    return (torch.where(first, x0, torch.where(second, x1, x2)), torch.where(first, x1, torch.where(second, x2, x0)),
            torch.where(first, x2, torch.where(second, x0, x1)))


def observe(b: Batch, T: Tables, ctx: Context) -> torch.Tensor:
    """float32 [N, OBSERVATION_SIZE]: the observation of the position to act (forehand once over)."""
    n = b.n
    (phase, p, bid, _, bidder, listener, declarer, contract, _, taken, level, _, _, _, _, leader, tcount,
     *_) = b.s.unbind(0)
    out = torch.empty(n, OBSERVATION_SIZE, dtype=torch.float32, device=b.device)
    # card planes: own hand, skat (declarer after pickup), played and trick cards by relative seat,
    # the declarer's open hand in ouvert games (row EMPTY where a plane is not shown), read with one
    # select; unpacked byte by byte through a table of 8 flags per byte, converted to float32 by
    # copying them into the vector
    show_skat = (declarer == p) * taken
    ouvert = pick(T.contract_ouvert, contract.clamp(min=0)) & (contract >= 0) & (phase >= PLAY)
    key = ((p * 2 + show_skat) * 2 + ouvert) * 3 + declarer.clamp(min=0)
    words = _rows(b.sets, ctx.word_index, key, ctx).to(torch.int32)  # [N, 10]
    out[:, :SCALAR_OFFSET].view(n, 10, 32).copy_(unpack(words, ctx).view(n, 10, 32))
    # scalars: one row of one-hots (position, phase, seats) with the table options, the contract's
    # one-hots, then the values
    s = out[:, SCALAR_OFFSET:]
    aux = ((((p * 8 + phase) * 3 + bidder) * 3 + listener) * 4 + declarer + 1) * 3 + leader
    torch.index_select(ctx.aux_rows, 0, aux, out=s)  # straight into the vector: no temporary
    if ctx.ramsch:  # no contract in play: Ramsch
        ck = torch.where(contract >= 0, contract + 1, torch.where(phase >= PLAY, NUM_CONTRACTS + 1, 0))
    else:
        ck = contract + 1
    torch.index_select(T.contract_rows, 0, ck * 3 + level, out=s[:, S_GAME_TYPE:S_CONTRACT_END])
    torch.index_select(T.feature_value, 0, bid, out=s[:, S_BID])
    rel = _rows(b.pos, ctx.pos_index, p, ctx)  # [N, feature * 3 + relative seat]
    values = pick(T.feature_value, (rel[:, :15] + ctx.pos_base).view(-1)).view(n, 15)
    s[:, S_MAX_CALL:S_MAX_CALL + 9] = values[:, :9]  # max call, passed, called
    s[:, S_CARD_POINTS:S_CARD_POINTS + 6] = values[:, 9:]  # card points, tricks won
    torch.index_select(T.trick_count_value, 0, tcount, out=s[:, S_TRICK_COUNT])
    s[:, S_VOIDS:] = ctx.void_flags.index_select(0, rel[:, 15:].reshape(-1)).view(n, 15)
    return out


def legal_mask(b: Batch, T: Tables, ctx: Context) -> torch.Tensor:
    """bool [N, NUM_ACTIONS]: the legal actions of the position to act (all True once over)."""
    (phase, cur, bid, stage, _, listener, _, _, game, taken, _, _, _, tl, led, *_) = b.s.unbind(0)
    auction = torch.where(stage == 3, K_STAGE3, torch.where(cur == listener, K_LISTENER, K_BIDDER + bid))
    key = torch.where(phase == AUCTION, auction,
                      pick(ctx.phase_keys, phase) + (phase == DECLARE) * (taken * (NB + 1) + bid))
    mask = T.mask_rows.index_select(0, key)
    hand = b.row_at(cur)  # HANDS is row 0
    follow = hand & pick(T.follow, game.clamp(min=0) * 5 + led)
    playable = torch.where((tl > 0) & (follow != 0), follow, hand)
    # the cards to discard (DISCARD) and to play (PLAY), zero in the other phases
    words = torch.stack((hand, playable), 1).to(torch.int32) * ctx.card_phases.index_select(0, phase)
    cards = unpack(words, ctx).view(b.n, 2, 32).view(torch.bool)
    mask[:, A.DISCARD:A.DISCARD + 32] |= cards[:, 0]
    mask[:, A.PLAY:] |= cards[:, 1]
    return mask
