"""The rules of the batched Skat engine: the state of N deals as tensors, advanced one action each.

The same phases as ``envs.skat.rules`` (which stays the reference), computed for every deal at
once with masks and table lookups, no Python loop over deals. Positions as there: 0 forehand,
1 middlehand, 2 rearhand. A phase no deal is in is skipped (one host read per step).
"""

from __future__ import annotations

import torch

from envs.skat import actions as A
from envs.skat.cards import GRAND, NULL
from envs.skat.rules import AUCTION, DECLARE, DISCARD, DONE, KONTRA, PLAY, RE, SKAT
from envs.skat.scoring import DURCHMARSCH_SCORE
from envs.skat.vector.tables import NB, Tables

NUM_CONTRACTS = len(A.CONTRACTS)
# per-position features in Batch.pos[:, feature, position]
F_CALL, F_PASSED, F_CALLED, F_POINTS, F_TRICKS, F_VOIDS = range(6)
# card-set columns of Batch.sets
HANDS, PLAYED, TRICK, SKAT_NOW, SKAT_DEALT, EMPTY = 0, 3, 6, 9, 10, 11
_FIELDS = ("phase", "cur", "bid", "stage", "bidder", "listener", "declarer", "contract", "game", "taken", "level",
           "kq", "tpack", "tl", "led", "leader", "tcount")
# a new deal: middlehand calls to forehand, nothing bid, declared or played yet
FRESH = {"phase": AUCTION, "cur": 1, "bid": 0, "stage": 1, "bidder": 1, "listener": 0, "declarer": -1,
         "contract": -1, "game": -1, "taken": 0, "level": 0, "kq": 0, "tpack": 0, "tl": 0, "led": 0, "leader": 0,
         "tcount": 0}


class Batch:
    """N deals. Card sets are int64 bit sets (bit c = card c, as in ``envs.skat.cards``).

    ``sets[:, k]``: 0-2 hands, 3-5 cards played, 6-8 the card in the current trick (by position),
    9 the skat now (the two cards put away after a pickup), 10 the skat as dealt, 11 empty.
    ``pos[:, f, q]``: per position q the highest call (bid index + 1), passed, called, card
    points, tricks, voids shown (bit set of effective suits). Scalars: ``phase``, ``cur`` (the
    position to act; forehand once the deal is over), ``bid`` (bid index + 1, 0 none), ``stage``,
    ``bidder``, ``listener`` (auction), ``declarer``, ``contract``, ``game`` (-1 until declared;
    grand in Ramsch), ``taken`` (skat picked up), ``level`` (1 kontra, 2 re), ``kq`` (kontra queue
    as a position bit set), ``tpack`` (cards of the current trick, 5 bits each), ``tl`` (cards in
    it), ``led`` (its effective suit), ``leader``, ``tcount`` (tricks completed); the table:
    ``dealer`` (seat) and ``deals`` (deals dealt in the slot, for the dealer rotation).
    """

    __slots__ = ("n", "device", "sets", "pos", "dealt", "dealer", "deals", *_FIELDS)

    def __init__(self, n: int, device: torch.device) -> None:
        self.n, self.device = n, device
        self.sets = torch.zeros(n, 12, dtype=torch.int64, device=device)
        self.pos = torch.zeros(n, 6, 3, dtype=torch.int64, device=device)
        self.dealt = torch.zeros(n, 4, dtype=torch.int64, device=device)  # hands by position, skat
        self.dealer = torch.full((n,), 2, dtype=torch.int64, device=device)
        self.deals = torch.zeros(n, dtype=torch.int64, device=device)
        for f in _FIELDS:
            setattr(self, f, torch.full((n,), FRESH[f], dtype=torch.int64, device=device))
        self.phase.fill_(DONE)

    def new_deals(self, idx: torch.Tensor, hands: torch.Tensor, skat: torch.Tensor, dealer: torch.Tensor) -> None:
        """Start new deals in slots ``idx``: hands [M, 3] by position, skat [M], dealer seats [M]."""
        for f in _FIELDS:
            getattr(self, f).index_fill_(0, idx, FRESH[f])
        sets = torch.zeros(len(idx), 12, dtype=torch.int64, device=self.device)
        sets[:, HANDS:HANDS + 3] = hands
        sets[:, SKAT_NOW] = skat
        sets[:, SKAT_DEALT] = skat
        self.sets.index_copy_(0, idx, sets)
        self.pos.index_fill_(0, idx, 0)
        self.dealt.index_copy_(0, idx, torch.cat((hands, skat[:, None]), 1))
        self.dealer.index_copy_(0, idx, dealer)
        self.deals.index_add_(0, idx, torch.ones_like(idx))


def advance(b: Batch, a: torch.Tensor, T: Tables, kontra: bool, ramsch: bool) -> torch.Tensor:
    """Apply ``a[n]`` in every deal n that is not over (deals over are left alone). Returns the
    deals that ended in this step (played out, or passed in); ``b.phase`` is DONE for them."""
    n = b.n
    phase, p = b.phase, b.cur
    counts = torch.bincount(phase, minlength=8).tolist()
    onehot = T.ar3 == p[:, None]  # [N, 3]: the acting position
    new_phase, new_cur = phase, p
    ended = torch.zeros(n, dtype=torch.bool, device=b.device)
    start_play = torch.zeros_like(ended)
    bit = T.action_bit[a]  # the card of a play or discard (0 for other actions)
    is_play = phase == PLAY
    bit_play = bit * is_play
    d_hand, d_skat = bit, bit - bit_play

    if counts[SKAT]:
        is_skat = phase == SKAT
        pickup = is_skat & (a == A.PICKUP)
        cards = b.sets[:, SKAT_NOW] * pickup
        d_hand, d_skat = d_hand + cards, d_skat + cards
        b.taken = b.taken + pickup
        new_phase = torch.where(is_skat, torch.where(pickup, DISCARD, DECLARE), new_phase)
    if counts[DISCARD]:
        second = (phase == DISCARD) & (b.sets[:, SKAT_NOW] != 0)  # the skat held one card: now two
        new_phase = torch.where(second, DECLARE, new_phase)

    if counts[PLAY]:
        card = T.action_card[a]
        g = b.game.clamp(min=0)
        first = b.tl == 0
        led = torch.where(first, T.eff[g * 32 + card], b.led)
        hand = b.sets.gather(1, p[:, None]).squeeze(1)
        void = is_play & ~first & ((hand & T.follow[g * 5 + led]) == 0)
        b.pos[:, F_VOIDS].bitwise_or_(onehot * (void.long() << led)[:, None])
        tpack = torch.where(first, card, b.tpack * 32 + card)
        complete = is_play & (b.tl == 2)
        wp = T.winner_points[g * 32768 + tpack]
        w = T.mod3[b.leader + (wp & 3)]
        won = (T.ar3 == w[:, None]) & complete[:, None]
        b.pos[:, F_TRICKS].add_(won)
        b.pos[:, F_POINTS].add_(won * (wp >> 2)[:, None])
        b.tcount = b.tcount + complete
        b.leader = torch.where(complete, w, b.leader)
        b.led, b.tpack = led, tpack  # only read inside a trick, where they were set by its first card
        b.tl = torch.where(complete, 0, b.tl + is_play)
        new_cur = torch.where(is_play, torch.where(complete, w, T.mod3[p + 1]), new_cur)
        over = complete & ((b.tcount == 10) | ((g == NULL) & (w == b.declarer)))
        new_phase = torch.where(over, DONE, new_phase)
        ended |= over

    if counts[AUCTION]:
        is_auc = phase == AUCTION
        passes = is_auc & (a == A.PASS)
        holds = is_auc & (a == A.HOLD)
        bids = is_auc & (a < A.HOLD)  # bid index a (A.BID is 0)
        calls = holds | bids
        bid = torch.where(bids, a + 1, b.bid)
        b.pos[:, F_PASSED].bitwise_or_(onehot & passes[:, None])
        called = onehot & calls[:, None]
        b.pos[:, F_CALLED].bitwise_or_(called)
        b.pos[:, F_CALL] = torch.where(called, bid[:, None], b.pos[:, F_CALL])
        stage, bidder, listener = b.stage, b.bidder, b.listener
        is_bidder = p == bidder
        survivor = torch.where(is_bidder, listener, bidder)  # who stays in when p passes
        s1 = passes & (stage == 1)
        s2 = passes & (stage == 2)
        to3 = s2 & is_bidder & (b.bid == 0)  # middlehand and rearhand passed: forehand may still bid
        end2 = s2 & ~to3
        bid3 = bids & (stage == 3)
        pass3 = passes & (stage == 3)
        b.declarer = torch.where(end2, survivor, torch.where(bid3, 0, b.declarer))
        b.listener = torch.where(s1, survivor, listener)
        b.bidder = torch.where(s1, 2, bidder)
        b.stage = torch.where(s1, 2, torch.where(to3, 3, stage))
        b.bid = bid
        cur = torch.where(holds, bidder, torch.where(bids & ~bid3, listener, torch.where(s1, 2, 0)))
        cur = torch.where(end2, survivor, cur)
        new_cur = torch.where(is_auc, cur, new_cur)
        new_phase = torch.where(end2 | bid3, SKAT, new_phase)
        if ramsch:
            b.game = torch.where(pass3, GRAND, b.game)
            start_play |= pass3
        else:
            new_phase = torch.where(pass3, DONE, new_phase)
            ended |= pass3

    # cards move: hand of p (play, discard, pickup), played and trick (play), skat (discard, pickup)
    delta = torch.stack((d_hand, bit_play, bit_play), 1)
    b.sets[:, :9].view(n, 3, 3).bitwise_xor_(onehot[:, None, :] * delta[:, :, None])
    b.sets[:, SKAT_NOW].bitwise_xor_(d_skat)
    if counts[PLAY]:
        b.sets[:, TRICK:TRICK + 3].mul_(~complete[:, None])

    next_kontra = None
    if counts[DECLARE]:
        is_decl = phase == DECLARE
        contract = (a - A.DECLARE).clamp(0, NUM_CONTRACTS - 1)
        b.contract = torch.where(is_decl, contract, b.contract)
        b.game = torch.where(is_decl, T.contract_game[contract], b.game)
        if kontra:  # the defenders who made or held a call may double, forehand first
            defenders = b.pos[:, F_CALLED] * (T.ar3 != b.declarer[:, None])
            b.kq = torch.where(is_decl, (defenders << T.ar3).sum(1), b.kq)
            next_kontra = is_decl
        else:
            start_play |= is_decl
    if counts[KONTRA]:
        is_k = phase == KONTRA
        doubled = is_k & (a == A.KONTRA)
        b.level = torch.where(doubled, 1, b.level)
        new_phase = torch.where(doubled, RE, new_phase)
        new_cur = torch.where(doubled, b.declarer, new_cur)
        declined = is_k & ~doubled
        next_kontra = declined if next_kontra is None else next_kontra | declined
    if counts[RE]:
        is_re = phase == RE
        b.level = torch.where(is_re & (a == A.RE), 2, b.level)
        start_play |= is_re
    if next_kontra is not None:
        asked = next_kontra & (b.kq != 0)
        new_phase = torch.where(asked, KONTRA, new_phase)
        new_cur = torch.where(asked, T.low_pos[b.kq], new_cur)
        b.kq = torch.where(asked, b.kq & (b.kq - 1), b.kq)
        start_play |= next_kontra & ~asked
    new_phase = torch.where(start_play, PLAY, new_phase)
    new_cur = torch.where(start_play | ended, 0, new_cur)
    b.phase, b.cur = new_phase, new_cur
    return ended


def card_points(cards: torch.Tensor, T: Tables) -> torch.Tensor:
    """Card points of bit sets, byte by byte."""
    total = T.points_byte[cards & 255]
    for k in (1, 2, 3):
        total = total + T.points_byte[256 * k + (cards >> 8 * k & 255)]
    return total


def matadors(cards: torch.Tensor, game: torch.Tensor, T: Tables) -> torch.Tensor:
    """|matadors| (with or without) of the declarer's cards in suit and grand games."""
    g = game.clamp(max=GRAND)
    bits = cards[:, None] >> T.seq[g] & 1
    differs = (bits ^ bits[:, :1]) | T.seq_pad[g]
    return (1 - differs).cumprod(1).sum(1)


def score(b: Batch, idx: torch.Tensor, T: Tables, system: str) -> torch.Tensor:
    """Scores by position [M, 3] of the deals ``idx``, played out in this step (``settle`` and
    ``seat_scores`` of the declarer's game, or the Ramsch rules). Ramsch gives the skat's points to
    the winner of the last trick, in ``b.pos`` too (the final observation shows them)."""
    sets, pos = b.sets[idx], b.pos[idx]
    contract, declarer, leader = b.contract[idx], b.declarer[idx], b.leader[idx]
    skat = sets[:, SKAT_NOW]
    skat_points = card_points(skat, T)
    is_ramsch = contract < 0
    points = pos[:, F_POINTS] + (T.ar3 == leader[:, None]) * (skat_points * is_ramsch)[:, None]
    tricks = pos[:, F_TRICKS]
    b.pos[idx, F_POINTS] = points
    # Ramsch: a Durchmarsch wins; else the most points lose them, doubled per player without a trick
    sweep = tricks == 10
    top = points.max(1).values
    factor = 1 << (tricks == 0).sum(1)
    ramsch = torch.where(points == top[:, None], -(top * factor)[:, None], 0)
    ramsch = torch.where(sweep.any(1)[:, None], sweep * DURCHMARSCH_SCORE, ramsch)
    # the declarer's game
    d = declarer.clamp(min=0)
    mine = T.ar3 == d[:, None]
    c = contract.clamp(min=0)
    cards = ((sets[:, HANDS:HANDS + 3] | sets[:, PLAYED:PLAYED + 3]) * mine).sum(1) | skat | sets[:, SKAT_DEALT]
    d_points = (points * mine).sum(1) + skat_points
    d_tricks = (tricks * mine).sum(1)
    game = T.contract_game[c]
    mat = torch.where(game == NULL, 1, matadors(cards, game, T))
    pclass = (d_points >= 31).long() + (d_points >= 61) + (d_points >= 90)
    tclass = (d_tricks >= 1).long() + (d_tricks >= 10)
    key = ((c * 12 + mat) * 4 + pclass) * 3 + tclass
    value, made = T.value[key], T.made[key]
    bid = b.bid[idx]
    overbid = value < T.bid_value[bid]
    value = torch.where(overbid, T.overbid_value[c * (NB + 1) + bid], value)
    won = (made & ~overbid).long()
    x = value * (1 << b.level[idx]) * T.declarer_sign[won]
    rel = T.mod3[T.ar3 + 3 - d[:, None]]  # position relative to the declarer
    game_scores = T.score_a[system][won].gather(1, rel) * x[:, None] + T.score_b[system][won].gather(1, rel)
    return torch.where(is_ramsch[:, None], ramsch, game_scores)


assert (A.BID, KONTRA, RE) == (0, 4, 5)
