"""Three-card-brag hand rankings, the hand values of Stop the Bus (``ranking="brag"``).

From the text: "three of a kind (a 'prial') as the best hand, followed by a running flush, then a run,
then a flush, then a pair followed by a high card. If a hand is otherwise similar then the card is
ranked by high card or high pair, then by middle card or kicker, then low card. Suits are irrelevant."

Aces are high (A-A-A is the best prial, A-K-Q the best run); A-2-3 is a run with the ace low, the
lowest run (its top card is the 3). A hand's value is one int, :func:`brag_value`, so that higher is
better and equal hands tie, as the 31 count's values do: ``category * 13**3 + a * 13**2 + b * 13 + c``
with the tie-break ranks ``a, b, c`` (0 = a two .. 12 = an ace) of the category.
"""

from __future__ import annotations

from collections.abc import Iterable

from envs.thirtyone.cards import ACE, RANK, RANKS, SUIT, cards_of, parse_cards

HIGH_CARD, PAIR, FLUSH, RUN, RUNNING_FLUSH, PRIAL = range(6)
CATEGORY_NAMES = ("high card", "pair", "flush", "run", "running flush", "prial")
BRAG_MAX = PRIAL * 13**3 + ACE * 13**2  # the value of A-A-A, the best hand


def _key(ranks: list[int], flush: bool) -> tuple[int, int, int, int]:
    """(category, a, b, c) of three card ranks (any order)."""
    hi, mid, lo = sorted(ranks, reverse=True)
    if hi == mid == lo:
        return PRIAL, hi, 0, 0
    run_top = -1
    if hi - mid == 1 and mid - lo == 1:
        run_top = hi
    elif (hi, mid, lo) == (ACE, 1, 0):  # A-2-3: the ace low, the lowest run (top card the 3)
        run_top = 1
    if run_top >= 0:
        return (RUNNING_FLUSH if flush else RUN), run_top, 0, 0
    if flush:
        return FLUSH, hi, mid, lo
    if hi == mid or mid == lo:
        pair, kicker = (hi, lo) if hi == mid else (lo, hi)
        return PAIR, pair, kicker, 0
    return HIGH_CARD, hi, mid, lo


def _code(key: tuple[int, int, int, int]) -> int:
    cat, a, b, c = key
    return cat * 13**3 + a * 13**2 + b * 13 + c


def brag_value_ids(ids: list[int]) -> int:
    """The brag value of exactly three card ids (higher is better)."""
    if len(ids) != 3:
        raise ValueError(f"a brag hand has exactly three cards, got {len(ids)}")
    return _code(_key([RANK[c] for c in ids], SUIT[ids[0]] == SUIT[ids[1]] == SUIT[ids[2]]))


def brag_value(cards: str | Iterable[str | int]) -> int:
    """The brag value of three cards (``"HA DK C7"`` or names / ids); higher is better, equal hands tie.

    With four cards (between a pick and the discard) it is the best three of them."""
    ids = cards_of(parse_cards(cards))
    if len(ids) == 4:
        return max(brag_value_ids([c for c in ids if c != x]) for x in ids)
    return brag_value_ids(ids)


def brag_name(value: int) -> str:
    """A readable name of a brag value, e.g. ``pair of 8s, K kicker`` or ``run Q-K-A``."""
    cat, rest = divmod(int(value), 13**3)
    a, rest = divmod(rest, 13**2)
    b, c = divmod(rest, 13)
    r = RANKS
    if cat == PRIAL:
        return f"prial of {r[a]}s"
    if cat in (RUN, RUNNING_FLUSH):
        top = "A-2-3" if a == 1 else f"{r[a - 2]}-{r[a - 1]}-{r[a]}"
        return f"{CATEGORY_NAMES[cat]} {top}"
    if cat == PAIR:
        return f"pair of {r[a]}s, {r[b]} kicker"
    return f"{CATEGORY_NAMES[cat]} {r[a]}-{r[b]}-{r[c]}"
