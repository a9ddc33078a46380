"""The rules of the batched Thirty-One engine: N games as tensors, the seat index first and the game
index last, advanced one action each. Mirrors ``envs.thirtyone.rules`` (the reference) for the
options :data:`SUPPORTED`; the round boundaries (scoring, eliminations, the next deal, a blitz on
the deal) run on the games concerned only, in a loop that ends when no game needs another deal.
"""

from __future__ import annotations

from functools import cache

import torch

from envs.thirtyone import actions as A
from envs.thirtyone.cards import NUM_CARDS
from envs.thirtyone.rules import DISCARD, DRAW, OVER
from envs.thirtyone.scoring import BLITZ
from envs.thirtyone.vector.tables import SUIT_BITS, Tables

HALF_BITS = (1 << 26) - 1

# rows of Batch.s
FIELDS = ("phase", "cur", "dealer", "knocker", "locked", "turn", "round", "n_out", "stock_n", "pile_n", "ordered",
          "alive")
PHASE, CUR, DEALER, KNOCKER, LOCKED, TURN, ROUND, N_OUT, STOCK_N, PILE_N, ORDERED, ALIVE = range(len(FIELDS))
DEAL_SETS = {PHASE: DRAW, KNOCKER: -1, LOCKED: -1, TURN: 0, PILE_N: 1}  # the rows a deal sets to constants


@cache
def deal_sets(device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """:data:`DEAL_SETS` as tensors on ``device``: the rows [R] and their values [R, 1]."""
    return (torch.tensor(list(DEAL_SETS), device=device),
            torch.tensor(list(DEAL_SETS.values()), device=device)[:, None])


class Batch:
    """N games of n players. Card sets are int64 bit sets over the 52 card ids of
    ``envs.thirtyone.cards``. Per seat [n, N]: ``hand``, ``known`` (taken from the pile, not yet
    discarded), ``disc`` (the seat's cards in the discard pile), ``tokens`` (lives + free ride).
    ``s[f]`` [N] (rows named by :data:`FIELDS`): phase (DRAW, DISCARD, OVER), the seat to act, the
    dealer, the knocker (-1), the card taken this turn (-1), turns this round, rounds dealt, players
    out, stock and pile sizes, an ordered stock (a chosen deck's first round), the seats still in
    (bit set). ``stock`` and ``pile`` [52, N] hold card ids
    (the pile bottom first; the stock drawn from a random place, or from its end when ordered).
    ``game_major``: the same shapes as transposed views of [N, rows] storage."""

    __slots__ = ("n", "seats", "device", "s", "hand", "known", "disc", "tokens", "stock", "pile", "log")

    def __init__(self, n: int, seats: int, device: torch.device, game_major: bool = False) -> None:
        self.n, self.seats, self.device = n, seats, device

        def z(rows: int) -> torch.Tensor:  # game_major: each game's entries side by side in memory (the CPU kernel)
            if game_major:
                return torch.zeros(n, rows, dtype=torch.int64, device=device).t()
            return torch.zeros(rows, n, dtype=torch.int64, device=device)

        self.s = z(len(FIELDS))
        self.s[PHASE] = OVER
        self.hand, self.known, self.disc, self.tokens = z(seats), z(seats), z(seats), z(seats)
        self.stock, self.pile = z(NUM_CARDS), z(NUM_CARDS)
        self.log: list[tuple] | None = None  # the random choices, when recorded (see the env)


def hand_value(hand: torch.Tensor, T: Tables) -> torch.Tensor:
    """The best single-suit total of each hand (``scoring.hand_value`` without the bonus options)."""
    suits = (hand[None] >> T.suit_shift.view(-1, *[1] * hand.dim())) & SUIT_BITS
    return T.suit_sum.index_select(0, suits.reshape(-1)).view(suits.shape).amax(0)


def lives_lost(values: torch.Tensor, inround: torch.Tensor, knocker: torch.Tensor, penalty: int,
               double_tie: bool) -> torch.Tensor:
    """``scoring.lives_lost`` for every game at once: values [n, K] of the seats, ``inround`` [n, K],
    the knocker's seat (-1 none) [K] -> lives lost per seat [n, K] (0 for seats not in the round)."""
    seats = torch.arange(values.shape[0], device=values.device)[:, None]
    blitz = ((values >= BLITZ) & inround).any(0)
    low = torch.where(inround, values, 1 << 20).min(0).values
    lost = ((values == low) & inround).long()
    is_knocker = seats == knocker
    caught = (is_knocker & (lost == 1)).any(0)  # the knocker is among the lowest
    alone = lost.sum(0) == 1
    # alone: the knocker pays the penalty; tied: "safe" spares the knocker, "double" makes the
    # knocker pay the penalty and spares the others
    tied = torch.where(is_knocker, penalty, 0) if double_tie else torch.where(is_knocker, 0, lost)
    lost = torch.where(caught & alone, torch.where(is_knocker, penalty, lost), torch.where(caught, tied, lost))
    return torch.where(blitz, ((values < BLITZ) & inround).long(), lost)


def deal(b: Batch, idx: torch.Tensor, deck: torch.Tensor, ordered: torch.Tensor, T: Tables) -> torch.Tensor:
    """Deal a round in games ``idx`` from ``deck`` [52, K] (card ids in dealing order), as
    ``ThirtyOneState._start_round``: three cards each one at a time from the dealer's left, the next
    card turned up, the rest the stock. Returns the games (positions in ``idx``) dealt a blitz."""
    s = b.s.index_select(1, idx)
    alive, dealer = s[ALIVE], s[DEALER]
    n = b.seats
    layout = alive * n + dealer
    cards = deck.gather(0, T.deal_at.index_select(0, layout).t())  # [3n + 1, K]: by card k and seat, the up card
    inround = T.seated.index_select(0, alive).t()
    hand = T.bit.index_select(0, cards[:3 * n].reshape(-1)).view(3, n, -1).sum(0) * inround
    up = cards[3 * n]
    if b.log is not None:
        for slot, size, cards_dealt in zip(idx.tolist(), (NUM_CARDS - T.dealt_stock[alive]).tolist(),
                                           deck.t().tolist(), strict=True):
            b.log.append(("deal", slot, cards_dealt[:size]))
    b.hand.index_copy_(1, idx, hand)
    b.known.index_fill_(1, idx, 0)
    b.disc.index_copy_(1, idx, (T.seat_ids == dealer) * T.bit.index_select(0, up))
    b.stock.index_copy_(1, idx, deck.flip(0))  # reversed: the ordered stock is drawn from its end
    b.pile.index_fill_(1, idx, 0)
    b.pile[0].index_copy_(0, idx, up)
    rows, values = deal_sets(b.device)
    s.index_copy_(0, rows, values.expand(len(rows), len(idx)))
    s[CUR] = T.next_seat.index_select(0, layout)
    s[ROUND] += 1
    s[STOCK_N] = T.dealt_stock.index_select(0, alive)
    s[ORDERED] = ordered
    b.s.index_copy_(1, idx, s)
    return ((hand_value(hand, T) >= BLITZ) & inround).any(0)


class Rules:
    """The options the engine reads, from a validated ``ThirtyOneOptions``."""

    def __init__(self, o) -> None:
        self.n = o.num_players
        self.round_episode = o.episode == "round"
        self.scheme = o.reward_scheme
        self.start_tokens = o.lives + (1 if o.free_ride else 0)
        self.free_ride = o.free_ride
        self.lives = o.lives
        self.penalty = o.knocker_penalty
        self.double_tie = o.knocker_tie == "double"
        self.after_first_round = o.knock_allowed == "after_first_round"
        self.min_knock = o.min_knock_score
        self.max_turns = o.max_turns


def knock_open(b: Batch, T: Tables, R: Rules, hand: torch.Tensor) -> torch.Tensor:
    """[N] bool: the player to act, holding ``hand``, may knock (nobody has, the turn allows it, the
    hand is good enough)."""
    s = b.s
    ok = s[KNOCKER] < 0
    if R.after_first_round:
        ok &= s[TURN] >= T.active.index_select(0, s[ALIVE])
    if R.min_knock is not None:
        ok &= hand_value(hand, T) >= R.min_knock
    return ok


def end_rounds(b: Batch, idx: torch.Tensor, knocker: torch.Tensor, T: Tables, R: Rules
               ) -> tuple[torch.Tensor, torch.Tensor]:
    """Score the rounds that ended in games ``idx`` (``ThirtyOneState._end_round``): lives lost,
    eliminations (a round that would leave nobody is void), the winner. Returns the rewards [n, K]
    and which games are over; the dealer moves on in the others."""
    n = b.seats
    s, hand, tokens = b.s.index_select(1, idx), b.hand.index_select(1, idx), b.tokens.index_select(1, idx)
    alive = s[ALIVE]
    inround = T.seated.index_select(0, alive).t()
    lost = lives_lost(hand_value(hand, T), inround, knocker, R.penalty, R.double_tie)
    seats = T.seat_ids
    if R.round_episode:
        b.tokens.index_copy_(1, idx, (tokens - lost).clamp(min=0))
        over = torch.ones(len(idx), dtype=torch.bool, device=b.device)
        s[PHASE] = OVER
        b.s.index_copy_(1, idx, s)
        return -lost.to(torch.float32), over
    out = (lost > 0) & (tokens <= lost) & inround
    now = out.sum(0)
    void = now == inround.sum(0)  # nobody would be left: the round's losses are void
    out &= ~void
    now = now * ~void
    b.tokens.index_copy_(1, idx, torch.where(void, tokens, (tokens - lost).clamp(min=0)))
    elimination = T.elimination[R.scheme].index_select(0, s[N_OUT] * (n + 1) + now)
    rewards = out * elimination
    alive = alive & ~(out.long() << seats).sum(0)
    over = T.active.index_select(0, alive) == 1
    rewards = rewards + (over & T.seated.index_select(0, alive).t()) * 1.0
    s[ALIVE] = alive
    s[N_OUT] += now
    s[PHASE] = torch.where(over, OVER, s[PHASE])
    s[DEALER] = torch.where(over, s[DEALER], T.next_seat.index_select(0, alive * n + s[DEALER]))
    b.s.index_copy_(1, idx, s)
    return rewards.to(torch.float32), over


def settle_rounds(b: Batch, idx: torch.Tensor, knocker: torch.Tensor, T: Tables, R: Rules, new_deck,
                  rewards: torch.Tensor | None, fresh: torch.Tensor | None = None, seat=None) -> torch.Tensor:
    """End the rounds of games ``idx``, deal the next ones, and go on while a deal is a blitz.
    Returns the games that are over. ``new_deck(k)`` -> [52, k] card orders. ``fresh``: slots
    that start a game (``seat(slots)`` seats it), dealt with the others; a fresh game that the
    blitzes of its first deals end, or that loses a player to them, is seated and dealt again (as
    the AEC env's reset does), and pays no rewards."""
    over_all = torch.zeros(b.n, dtype=torch.bool, device=b.device)
    first = None
    if fresh is not None and len(fresh):
        first = torch.zeros(b.n, dtype=torch.bool, device=b.device).index_fill_(0, fresh, True)
        seat(fresh)
    dealing = fresh
    while len(idx) or (dealing is not None and len(dealing)):
        if len(idx):
            r, over = end_rounds(b, idx, knocker, T, R)
            if first is not None:
                starting = first.index_select(0, idx)
                r = r * ~starting
                bad = starting & (over | (b.s[N_OUT].index_select(0, idx) > 0))
                over = over & ~starting
            if rewards is not None:
                rewards.index_add_(1, idx, r)
            over_all[idx[over]] = True
            idx = idx[~over]
            if first is not None and bool(bad.any()):
                again = idx[bad[~over]]
                idx = idx[~bad[~over]]
                seat(again)
                dealing = again if dealing is None else torch.cat((dealing, again))
        if dealing is not None and len(dealing):
            idx, dealing = torch.cat((idx, dealing)), None
        if not len(idx):
            break
        blitz = deal(b, idx, new_deck(len(idx)), torch.zeros(len(idx), dtype=torch.bool, device=b.device), T)
        idx = idx[blitz]
        knocker = torch.full_like(idx, -1)
    return over_all


def advance(b: Batch, a: torch.Tensor, T: Tables, R: Rules, rand: torch.Tensor, new_deck,
            fresh: torch.Tensor | None = None, seat=None) -> tuple[torch.Tensor, torch.Tensor]:
    """Apply ``a[n]`` in every game that is not over. Returns the rewards [n, N] of this step and
    the games that ended. ``rand`` [N] uniform in [0, 1): where a random draw takes its card.
    ``fresh`` (over: their actions do nothing) start new games in the deals of the step (see
    :func:`settle_rounds`)."""
    n = b.seats
    s = b.s
    phase, p, locked = s[PHASE], s[CUR], s[LOCKED]
    onehot = (T.seat_ids == p).long()
    drawing = phase == DRAW
    draw = drawing & (a == A.DRAW)
    take = drawing & (a == A.TAKE)
    knock = drawing & (a == A.KNOCK)
    discard = phase == DISCARD
    # draw: a random place of the stock (its end when ordered); the last card fills the gap
    stock_n, pile_n = s[STOCK_N], s[PILE_N]
    last = (stock_n - 1).clamp(min=0)
    i = torch.where(draw & (s[ORDERED] == 0), (rand * stock_n).long(), last)
    drawn = b.stock.gather(0, i[None])[0]
    if b.log is not None:
        b.log += [("draw", slot, c) for slot, c in zip(draw.nonzero().squeeze(1).tolist(), drawn[draw].tolist(),
                                                        strict=True)]
    b.stock.scatter_(0, i[None], b.stock.gather(0, last[None]))
    # take: the top of the pile
    top = b.pile.gather(0, (pile_n - 1).clamp(min=0)[None])[0]
    gained = torch.where(draw, drawn, torch.where(take, top, NUM_CARDS))
    gain_bit = T.bit.index_select(0, gained)
    taken_bit = gain_bit * take
    card = a.clamp(0, NUM_CARDS)
    lost_bit = T.bit.index_select(0, card) * discard
    b.hand += onehot * (gain_bit - lost_bit)
    b.disc &= ~taken_bit
    b.disc |= onehot * lost_bit
    b.known |= onehot * taken_bit
    b.known &= ~(onehot * lost_bit)
    b.pile.scatter_(0, torch.where(take, pile_n - 1, pile_n).clamp(max=NUM_CARDS - 1)[None],
                    torch.where(discard, card, top)[None])
    s[STOCK_N] = stock_n - draw.long()
    s[PILE_N] = pile_n - take.long() + discard.long()
    s[LOCKED] = torch.where(take, top, torch.where(discard, -1, locked))
    s[KNOCKER] = torch.where(knock, p, s[KNOCKER])
    s[TURN] += knock | discard
    s[PHASE] = torch.where(draw | take, DISCARD, phase)
    # a discard that makes 31 ends the round; otherwise the turn passes (after a knock too)
    blitz = discard & (hand_value(b.hand.gather(0, p[None])[0], T) >= BLITZ)
    passing = (knock | discard) & ~blitz
    nxt = T.next_seat.index_select(0, s[ALIVE] * n + p)
    knocker = s[KNOCKER]
    showdown = passing & (knocker >= 0) & (nxt == knocker)
    capped = passing & (knocker < 0) & (s[TURN] >= R.max_turns) if R.max_turns is not None else passing & False
    goes_on = passing & ~showdown & ~capped
    refill = goes_on & (s[STOCK_N] == 0)  # the stock ran out: the pile under its top card
    if bool(refill.any()):
        top = b.pile.gather(0, (s[PILE_N] - 1)[None].clamp(min=0))[0]
        b.stock = torch.where(refill, b.pile, b.stock)
        s[STOCK_N] = torch.where(refill, s[PILE_N] - 1, s[STOCK_N])
        b.pile[0] = torch.where(refill, top, b.pile[0])
        s[PILE_N] = torch.where(refill, 1, s[PILE_N])
        b.disc &= torch.where(refill, T.bit.index_select(0, top), -1)
        s[ORDERED] = s[ORDERED] * ~refill
    s[CUR] = torch.where(goes_on, nxt, p)
    s[PHASE] = torch.where(goes_on, DRAW, s[PHASE])
    rewards = torch.zeros(n, b.n, dtype=torch.float32, device=b.device)
    ending = blitz | showdown | capped
    idx = ending.nonzero().squeeze(1)
    over = settle_rounds(b, idx, torch.where(capped, -1, knocker)[idx], T, R, new_deck, rewards, fresh, seat)
    return rewards, over
