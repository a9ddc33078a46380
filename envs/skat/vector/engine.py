"""The rules of the batched Skat engine: the state of N deals as tensors, advanced one action each.

The same phases as ``envs.skat.rules`` (which stays the reference), computed for every deal at
once with masks and table lookups, no Python loop over deals. Positions as there: 0 forehand,
1 middlehand, 2 rearhand. A phase no deal is in is skipped (one host read per step).

Layout, chosen for few and contiguous kernels: the deal index is the last dimension of every
tensor; the scalar fields of a deal are the rows of one tensor ``Batch.s`` (read as views, written
back with one ``stack``), so that starting new deals or reading the finished ones is one op.
"""

from __future__ import annotations

import torch

from envs.skat import actions as A
from envs.skat.cards import GRAND, NULL
from envs.skat.rules import AUCTION, DECLARE, DISCARD, DONE, KONTRA, PLAY, RE, SKAT
from envs.skat.vector.tables import Tables

NUM_CONTRACTS = len(A.CONTRACTS)
# rows of Batch.s
FIELDS = ("phase", "cur", "bid", "stage", "bidder", "listener", "declarer", "contract", "game", "taken", "level",
          "kq", "tpack", "tl", "led", "leader", "tcount", "skat_points", "dealer", "deals")
(PHASE, CUR, BID, STAGE, BIDDER, LISTENER, DECLARER, CONTRACT, GAME, TAKEN, LEVEL, KQ, TPACK, TL, LED, LEADER, TCOUNT,
 SKAT_POINTS, DEALER, DEALS) = range(len(FIELDS))
# a new deal: middlehand calls to forehand, nothing bid, declared or played yet
FRESH = {"phase": AUCTION, "cur": 1, "bid": 0, "stage": 1, "bidder": 1, "listener": 0, "declarer": -1,
         "contract": -1, "game": -1, "taken": 0, "level": 0, "kq": 0, "tpack": 0, "tl": 0, "led": 0, "leader": 0,
         "tcount": 0, "skat_points": 0, "dealer": 2, "deals": 0}
# Batch.pos[feature, position]
F_CALL, F_PASSED, F_CALLED, F_POINTS, F_TRICKS, F_VOIDS = range(6)
# rows of Batch.sets
HANDS, PLAYED, TRICK, SKAT_NOW, SKAT_DEALT, EMPTY = 0, 3, 6, 9, 10, 11
# row of Batch.dealt after the three hands by position
DEALT_SKAT = 3


class Batch:
    """N deals; every tensor has the deal index last. Card sets are int64 bit sets (bit c = card c,
    as in ``envs.skat.cards``).

    ``s[f]`` [N] (rows named by :data:`FIELDS`): ``phase``; ``cur`` the position to act (forehand
    once the deal is over); ``bid`` the bid index + 1 (0 none); ``stage``, ``bidder``,
    ``listener`` of the auction; ``declarer``; ``contract``; ``game`` (-1 until declared, grand in
    Ramsch); ``taken`` (skat picked up); ``level`` (1 kontra, 2 re); ``kq`` (the kontra queue as a
    position bit set); ``tpack`` (the cards of the current trick, 5 bits each), ``tl`` (how many),
    ``led`` (its effective suit), ``leader``, ``tcount`` (tricks completed); ``skat_points`` (of
    the skat now); the table's ``dealer`` seat and ``deals`` dealt in the slot (the rotation).
    ``sets[k]``: 0-2 hands, 3-5 cards played, 6-8 the card in the current trick (by position),
    9 the skat now (the two cards put away after a pickup), 10 the skat as dealt, 11 empty.
    ``pos[f, q]``: per position q the highest call (bid index + 1), passed, called, card points,
    tricks, voids shown (bit set of effective suits). ``dealt``: hands by position and skat.
    ``slots``: the deal indices 0..N-1 (row r of a tensor viewed flat starts at r * N).
    """

    __slots__ = ("n", "device", "s", "sets", "pos", "dealt", "fresh", "slots")

    def __init__(self, n: int, device: torch.device) -> None:
        self.n, self.device = n, device
        self.fresh = torch.tensor([FRESH[f] for f in FIELDS], dtype=torch.int64, device=device)[:, None]
        self.s = self.fresh.repeat(1, n)
        self.s[PHASE] = DONE
        self.sets = torch.zeros(12, n, dtype=torch.int64, device=device)
        self.pos = torch.zeros(6, 3, n, dtype=torch.int64, device=device)
        self.dealt = torch.zeros(4, n, dtype=torch.int64, device=device)
        self.slots = torch.arange(n, dtype=torch.int64, device=device)  # + row * n: flat index of row's entries

    def row_at(self, rows: torch.Tensor) -> torch.Tensor:
        """``sets[rows[n], n]`` for every deal n (one flat select: faster than a gather across rows)."""
        return self.sets.view(-1).index_select(0, torch.add(self.slots, rows, alpha=self.n))

    def field(self, f: int) -> torch.Tensor:
        return self.s[f]

    def new_deals(self, idx: torch.Tensor, cards: torch.Tensor, skat_points: torch.Tensor,
                  dealer: torch.Tensor) -> None:
        """New deals in slots ``idx``: cards [4, M] (hands by position, skat), the skat's card points,
        dealer seats [M]."""
        m = len(idx)
        fresh = self.fresh.expand(len(FIELDS), m).clone()
        fresh[SKAT_POINTS] = skat_points
        fresh[DEALER] = dealer
        fresh[DEALS] = self.s[DEALS, idx] + 1
        self.s.index_copy_(1, idx, fresh)
        sets = torch.zeros(12, m, dtype=torch.int64, device=self.device)
        sets[HANDS:HANDS + 3] = cards[:3]
        sets[SKAT_NOW] = sets[SKAT_DEALT] = cards[DEALT_SKAT]
        self.sets.index_copy_(1, idx, sets)
        self.pos.index_fill_(2, idx, 0)
        self.dealt.index_copy_(1, idx, cards)


def pick(table: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """``table[index]`` for a 1-d table (index_select: several times faster than indexing)."""
    return table.index_select(0, index)


def advance(b: Batch, a: torch.Tensor, T: Tables, kontra: bool, ramsch: bool) -> torch.Tensor:
    """Apply ``a[n]`` in every deal n that is not over (deals over are left alone). Returns the
    deals that ended in this step (played out, or passed in); their phase is then DONE."""
    n = b.n
    (phase, p, bid, stage, bidder, listener, declarer, contract, game, taken, level, kq, tpack, tl, led, leader,
     tcount, skat_points, dealer, deals) = b.s.unbind(0)
    counts = torch.bincount(phase, minlength=8).tolist()
    onehot = (T.ar3[:, None] == p).long()  # [3, N]: 1 at the acting position
    new_phase, new_cur = phase, p
    ended = torch.zeros(n, dtype=torch.bool, device=b.device)
    start_play = torch.zeros_like(ended)
    bit = pick(T.action_bit, a)  # the card of a play or discard (0 for other actions)
    is_play = phase == PLAY
    bit_play = bit * is_play
    d_hand, d_skat = bit, bit - bit_play

    if counts[SKAT]:
        is_skat = phase == SKAT
        pickup = is_skat & (a == A.PICKUP)
        cards = b.sets[SKAT_NOW] * pickup
        d_hand, d_skat = d_hand + cards, d_skat + cards
        taken = taken + pickup
        skat_points = skat_points * ~pickup
        new_phase = torch.where(is_skat, torch.where(pickup, DISCARD, DECLARE), new_phase)
    if counts[DISCARD]:
        is_discard = phase == DISCARD
        second = is_discard & (b.sets[SKAT_NOW] != 0)  # the skat held one card: now two
        skat_points = skat_points + pick(T.action_points, a) * is_discard
        new_phase = torch.where(second, DECLARE, new_phase)

    if counts[PLAY]:
        card = pick(T.action_card, a)
        g = game.clamp(min=0)
        first = tl == 0
        led = torch.where(first, pick(T.eff, g * 32 + card), led)
        hand = b.row_at(p)  # HANDS is row 0
        void = is_play & ~first & ((hand & pick(T.follow, g * 5 + led)) == 0)
        b.pos[F_VOIDS].bitwise_or_(onehot * (void.long() << led))
        tpack = torch.where(first, card, tpack * 32 + card)  # led and tpack are only read inside a trick
        complete = is_play & (tl == 2)
        wp = pick(T.winner_points, g * 32768 + tpack)
        w = pick(T.mod3, leader + (wp & 3))
        won = (T.ar3[:, None] == w) & complete
        b.pos[F_TRICKS].add_(won)
        b.pos[F_POINTS].add_(won * (wp >> 2))
        tcount = tcount + complete
        leader = torch.where(complete, w, leader)
        tl = torch.where(complete, 0, tl + is_play)
        new_cur = torch.where(is_play, torch.where(complete, w, pick(T.mod3, p + 1)), new_cur)
        over = complete & ((tcount == 10) | ((g == NULL) & (w == declarer)))
        new_phase = torch.where(over, DONE, new_phase)
        ended |= over

    if counts[AUCTION]:
        is_auc = phase == AUCTION
        passes = is_auc & (a == A.PASS)
        holds = is_auc & (a == A.HOLD)
        bids = is_auc & (a < A.HOLD)  # bid index a (A.BID is 0)
        old_bid = bid
        bid = torch.where(bids, a + 1, bid)
        b.pos[F_PASSED].bitwise_or_(onehot * passes)
        called = onehot * (holds | bids)
        b.pos[F_CALLED].bitwise_or_(called)
        b.pos[F_CALL].copy_(torch.where(called == 1, bid, b.pos[F_CALL]))
        is_bidder = p == bidder
        survivor = torch.where(is_bidder, listener, bidder)  # who stays in when p passes
        s1 = passes & (stage == 1)
        s2 = passes & (stage == 2)
        to3 = s2 & is_bidder & (old_bid == 0)  # middlehand and rearhand passed: forehand may still bid
        end2 = s2 & ~to3
        bid3 = bids & (stage == 3)
        pass3 = passes & (stage == 3)
        declarer = torch.where(end2, survivor, torch.where(bid3, 0, declarer))
        cur = torch.where(holds, bidder, torch.where(bids & ~bid3, listener, torch.where(s1, 2, 0)))
        new_cur = torch.where(is_auc, torch.where(end2, survivor, cur), new_cur)
        listener = torch.where(s1, survivor, listener)
        bidder = torch.where(s1, 2, bidder)
        stage = torch.where(s1, 2, torch.where(to3, 3, stage))
        new_phase = torch.where(end2 | bid3, SKAT, new_phase)
        if ramsch:
            game = torch.where(pass3, GRAND, game)
            start_play |= pass3
        else:
            new_phase = torch.where(pass3, DONE, new_phase)
            ended |= pass3

    # cards move: hand of p (play, discard, pickup), played and trick (play), skat (discard, pickup)
    delta = torch.stack((d_hand, bit_play, bit_play))
    b.sets[:9].view(3, 3, n).bitwise_xor_(onehot[None] * delta[:, None])
    b.sets[SKAT_NOW].bitwise_xor_(d_skat)
    if counts[PLAY]:
        b.sets[TRICK:TRICK + 3].mul_(~complete)

    next_kontra = None
    if counts[DECLARE]:
        is_decl = phase == DECLARE
        chosen = (a - A.DECLARE).clamp(0, NUM_CONTRACTS - 1)
        contract = torch.where(is_decl, chosen, contract)
        game = torch.where(is_decl, pick(T.contract_game, chosen), game)
        if kontra:  # the defenders who made or held a call may double, forehand first
            defenders = b.pos[F_CALLED] * (T.ar3[:, None] != declarer)
            kq = torch.where(is_decl, (defenders << T.ar3[:, None]).sum(0), kq)
            next_kontra = is_decl
        else:
            start_play |= is_decl
    if counts[KONTRA]:
        is_k = phase == KONTRA
        doubled = is_k & (a == A.KONTRA)
        level = torch.where(doubled, 1, level)
        new_phase = torch.where(doubled, RE, new_phase)
        new_cur = torch.where(doubled, declarer, new_cur)
        declined = is_k & ~doubled
        next_kontra = declined if next_kontra is None else next_kontra | declined
    if counts[RE]:
        is_re = phase == RE
        level = torch.where(is_re & (a == A.RE), 2, level)
        start_play |= is_re
    if next_kontra is not None:
        asked = next_kontra & (kq != 0)
        new_phase = torch.where(asked, KONTRA, new_phase)
        new_cur = torch.where(asked, pick(T.low_pos, kq), new_cur)
        kq = torch.where(asked, kq & (kq - 1), kq)
        start_play |= next_kontra & ~asked
    new_phase = torch.where(start_play, PLAY, new_phase)
    new_cur = torch.where(start_play | ended, 0, new_cur)
    b.s = torch.stack((new_phase, new_cur, bid, stage, bidder, listener, declarer, contract, game, taken, level, kq,
                       tpack, tl, led, leader, tcount, skat_points, dealer, deals))
    return ended


def card_points(cards: torch.Tensor, T: Tables) -> torch.Tensor:
    """Card points of bit sets, byte by byte."""
    total = pick(T.points_byte, cards & 255)
    for k in (1, 2, 3):
        total = total + pick(T.points_byte, 256 * k + (cards >> 8 * k & 255))
    return total


assert (A.BID, KONTRA, RE) == (0, 4, 5)
assert HANDS == 0  # row_at(position) is the hand of a position
