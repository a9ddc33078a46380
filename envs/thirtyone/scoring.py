"""Hand values and the outcome of a round: lives lost (the lives game) or points won (the points game).

These public helpers are what the rules core itself uses, so they are the one home of the scoring
rules:

* :func:`hand_value`: the best single-suit total of a hand (three-of-a-kind, three-aces and
  straight-flush bonuses optional). 31 (an ace and two ten-point cards of one suit) is a *blitz*;
  with the ``three_aces=32`` option three aces ("Feuer") are a blitz too: every value of 31 or more
  is one. (Stop the Bus ranks hands by three-card brag instead: ``envs.thirtyone.brag``.)
* :func:`lives_lost`: who loses how many lives at the end of a round.
* :func:`points_won`: the no-elimination points game (lowest 1, middle 2, highest 3; knocker
  0/1/4; blitz 6; ties take the best place).
* :func:`pot_shares`: who takes how much of a pot (the pot game, and the kitty of the token rewards).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations

from envs.thirtyone.brag import brag_value_ids
from envs.thirtyone.cards import ACE, NUM_CARDS, RANK, SUIT, VALUE, cards_of, parse_cards

BLITZ = 31  # a hand worth this much (or more) ends the round at once
NO_BLITZ = float("inf")  # brag rankings: no hand ends the round at once
KNOCKER_TIES = ("safe", "double")


def _straight_flush(ids: Sequence[int]) -> bool:
    """Three cards of one suit in sequence among ``ids`` (the ace high only: A-K-Q, not A-2-3)."""
    by_suit: dict[int, set[int]] = {}
    for c in ids:
        by_suit.setdefault(SUIT[c], set()).add(RANK[c])
    return any(r + 1 in ranks and r + 2 in ranks for ranks in by_suit.values() if len(ranks) >= 3 for r in ranks)


def _value_ids(ids: Sequence[int], three_of_a_kind: float | None, three_aces: float | None,
               straight_flush: float | None = None) -> float:
    sums = [0, 0, 0, 0]
    for c in ids:
        sums[SUIT[c]] += VALUE[c]
    best = float(max(sums))
    if straight_flush is not None and len(ids) >= 3 and best < straight_flush and _straight_flush(ids):
        best = float(straight_flush)
    if len(ids) >= 3 and (three_of_a_kind is not None or three_aces is not None):
        counts: dict[int, int] = {}
        for c in ids:
            counts[RANK[c]] = counts.get(RANK[c], 0) + 1
        for rank, k in counts.items():
            if k >= 3:
                bonus = three_aces if rank == ACE and three_aces is not None else three_of_a_kind
                if bonus is not None:
                    best = max(best, float(bonus))
    return best


def hand_value(
    cards: str | Iterable[str | int],
    *,
    three_of_a_kind: float | None = None,
    three_aces: float | None = None,
    straight_flush: float | None = None,
) -> float:
    """The value of a hand: the best total of the cards held in one suit.

    ``cards`` are card names (``"HK H8 H5"`` or ``["HK", "H8", "H5"]``) or ids. Examples:
    ``HK H8 H5`` = 23, ``SQ D9 D8`` = 17, ``CA S6 S4`` = 11, ``CJ H7 S4`` = 10, ``SA SK SQ`` = 31.
    ``three_of_a_kind`` (30 or 30.5) values three cards of a rank; ``three_aces`` (32) values three
    aces above a blitz (it takes precedence over ``three_of_a_kind`` for aces); ``straight_flush``
    (30) values three cards of one suit in sequence, ace high (A-K-Q is 31 anyway: a blitz).
    """
    ids = cards_of(parse_cards(cards))  # a card given twice is a ValueError
    if not ids:
        raise ValueError("hand_value needs at least one card")
    return _value_ids(ids, three_of_a_kind, three_aces, straight_flush)


def _three_card_values(three_of_a_kind: float | None, three_aces: float | None,
                       straight_flush: float | None = None) -> dict[int, float]:
    """The value of all 22,100 three-card hands by bit set (the same rules as ``_value_ids``)."""
    out = {}
    for a, b, c in combinations(range(NUM_CARDS), 3):
        sa, sb, sc, va, vb, vc = SUIT[a], SUIT[b], SUIT[c], VALUE[a], VALUE[b], VALUE[c]
        if sa == sb == sc:
            v = va + vb + vc
            if straight_flush is not None and v < straight_flush and _straight_flush((a, b, c)):
                v = straight_flush
        elif sa == sb:
            v = max(va + vb, vc)
        elif sa == sc:
            v = max(va + vc, vb)
        elif sb == sc:
            v = max(vb + vc, va)
        else:
            v = max(va, vb, vc)
            if RANK[a] == RANK[b] == RANK[c]:
                bonus = three_aces if RANK[a] == ACE and three_aces is not None else three_of_a_kind
                if bonus is not None:
                    v = max(v, bonus)
        out[(1 << a) | (1 << b) | (1 << c)] = float(v)
    return out


def _brag_values() -> dict[int, float]:
    return {(1 << a) | (1 << b) | (1 << c): float(brag_value_ids([a, b, c]))
            for a, b, c in combinations(range(NUM_CARDS), 3)}


class HandValuer:
    """Memoised hand values by bit set, for the rules core's hot paths (one per option set).

    ``ranking="brag"``: three-card-brag values (``envs.thirtyone.brag``), no blitz; a four-card
    hand is worth its best three cards."""

    __slots__ = ("three_of_a_kind", "three_aces", "straight_flush", "ranking", "blitz", "memo")

    _shared: dict[tuple[float | None, float | None, float | None, str], dict[int, float]] = {}

    def __init__(self, three_of_a_kind: float | None = None, three_aces: float | None = None,
                 straight_flush: float | None = None, ranking: str = "thirty_one") -> None:
        self.three_of_a_kind = three_of_a_kind
        self.three_aces = three_aces
        self.straight_flush = straight_flush
        self.ranking = ranking
        self.blitz = NO_BLITZ if ranking == "brag" else BLITZ
        key = (three_of_a_kind, three_aces, straight_flush, ranking)
        self.memo = HandValuer._shared.setdefault(key, {})
        if not self.memo:  # every 3-card hand, once per option set, so hot paths never miss
            if ranking == "brag":
                self.memo.update(_brag_values())
            else:
                self.memo.update(_three_card_values(three_of_a_kind, three_aces, straight_flush))

    def value(self, mask: int) -> float:
        """Value of the hand held as bit set ``mask``."""
        v = self.memo.get(mask)
        if v is None:
            ids = cards_of(mask)
            if self.ranking == "brag":  # four cards: the best three; fewer than three (a seat out): nothing
                v = max(self.memo[mask ^ (1 << c)] for c in ids) if len(ids) == 4 else 0.0
            else:
                v = _value_ids(ids, self.three_of_a_kind, self.three_aces, self.straight_flush)
            self.memo[mask] = v
        return v

    def best_after_discard(self, mask: int, locked: int = -1) -> float:
        """Best value of the 3-card hand left after one legal discard from the 4-card ``mask``."""
        best = 0.0
        m = mask
        while m:
            low = m & -m
            m ^= low
            if low.bit_length() - 1 != locked:
                v = self.value(mask ^ low)
                if v > best:
                    best = v
        return best


def _check_knocker(values: Sequence[float], knocker: int | None) -> None:
    if knocker is not None and not 0 <= knocker < len(values):
        raise ValueError(f"knocker {knocker} is not an index into the {len(values)} values")


def lives_lost(
    values: Sequence[float],
    knocker: int | None = None,
    *,
    knocker_penalty: int = 2,
    knocker_tie: str = "safe",
    blitz: float = BLITZ,
) -> list[int]:
    """Lives each player loses at the end of a round, given the hand values of the players in it.

    * A blitz (any value of ``blitz`` = 31 or more) ends the round: every player without one loses
      a life, the knocker included, whatever the values.
    * Otherwise (showdown) the lowest hand loses a life; all players tied for lowest lose one.
    * The ``knocker`` (index into ``values``) with the single lowest hand loses ``knocker_penalty``.
      Tied for lowest: ``"safe"`` (default; pagat: "If there is a tie involving the knocker, the
      other player(s) lose a life, but the knocker is safe") or ``"double"`` (West Lansing Cut
      Throat: "the knocker tying for the lowest score will lose two tokens. All others with the same
      total as the knocker will not lose a token"): ``lives_lost([18, 18, 25], 0,
      knocker_tie="double") == [2, 0, 0]``.
    """
    if knocker_tie not in KNOCKER_TIES:
        raise ValueError(f"knocker_tie must be one of {KNOCKER_TIES}, got {knocker_tie!r}")
    if knocker_penalty not in (1, 2):
        raise ValueError(f"knocker_penalty must be 1 or 2, got {knocker_penalty!r}")
    if not values:
        return []
    _check_knocker(values, knocker)
    if max(values) >= blitz:
        return [0 if v >= blitz else 1 for v in values]
    low = min(values)
    lost = [1 if v == low else 0 for v in values]
    if knocker is not None and lost[knocker]:
        if sum(lost) == 1:
            lost[knocker] = knocker_penalty
        elif knocker_tie == "double":  # the knocker pays; the others tied with the knocker are safe
            lost = [0] * len(values)
            lost[knocker] = knocker_penalty
        else:
            lost[knocker] = 0
    return lost


def pot_shares(pot: int, winners: Sequence[int], size: int) -> list[int]:
    """Tokens each of ``size`` players takes from ``pot`` when the players at indices ``winners``
    (in order from the dealer's left) share it: ``pot // k`` each, the odd tokens one each to the
    first winners. ``pot_shares(7, [1, 2], 3) == [0, 4, 3]``."""
    if not winners:
        raise ValueError("a pot needs at least one winner")
    out = [0] * size
    share, odd = divmod(pot, len(winners))
    for i, w in enumerate(winners):
        out[w] = share + (1 if i < odd else 0)
    return out


def points_won(values: Sequence[float], knocker: int | None = None, blitz: float = BLITZ) -> list[int]:
    """Points each player wins in the points (no-elimination) game.

    A blitz scores 6 for each blitzing hand and 0 for the others. Otherwise each player's place is
    1 + the number of strictly higher hands (ties take the best place): first place is "highest"
    (3 points, knocker 4), last place (a single lowest hand) is "lowest" (1, knocker 0), any other
    place is "middle" (2, knocker 1).
    """
    if not values:
        return []
    _check_knocker(values, knocker)
    if max(values) >= blitz:
        return [6 if v >= blitz else 0 for v in values]
    n = len(values)
    out = []
    for i, v in enumerate(values):
        place = 1 + sum(1 for w in values if w > v)
        tier = 2 if place == 1 else (0 if place == n else 1)  # 2 highest, 1 middle, 0 lowest
        out.append((4, 1, 0)[2 - tier] if i == knocker else (3, 2, 1)[2 - tier])
    return out


def place_reward(place: float, n: int) -> float:
    """The placement reward: linear from +1 (first of ``n``) to -1 (last); shared places averaged."""
    return 1.0 - 2.0 * (place - 1) / (n - 1)


def elimination_reward(n: int, already_out: int, out_now: int, scheme: str = "win") -> float:
    """Reward of each of ``out_now`` players eliminated together after ``already_out`` others:
    ``"win"`` -1/(n-1); ``"placement"`` they share the places n - already_out - out_now + 1 ..
    n - already_out."""
    if scheme == "win":
        return -1.0 / (n - 1)
    return place_reward(n - already_out - (out_now - 1) / 2, n)


def final_rewards(scores: Sequence[float], scheme: str = "win") -> list[float]:
    """Rewards of a finished points game from the totals (the single leader has won)."""
    n, top = len(scores), max(scores)
    if scheme == "win":
        return [1.0 if x == top else -1.0 / (n - 1) for x in scores]
    return [place_reward(1 + sum(1 for y in scores if y > x) + (scores.count(x) - 1) / 2, n) for x in scores]
