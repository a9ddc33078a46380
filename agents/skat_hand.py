"""Hand evaluation of the rule-based Skat player (``agents.rule_skat``): bidding, pickup or hand,
discarding and declaring.

Everything here works on bit sets of card ids (see ``envs.skat.cards``) and on precomputed
tables, so that one decision costs tens of microseconds. The game facts (base values, null
values, matadors, card points, trumps) come from ``envs.skat``.

The models
----------
A hand is scored for each game family with a linear model whose terms are classic Skat hand
features, squashed by a logistic into the probability of winning the game:

* suit games: number of trumps (plus bonuses at 5, 6 and 7 trumps), each jack on its own, the ace
  and ten of trumps, side aces, side tens with their ace, guarded and blank side tens, void side
  suits, side losers (a losing-trick count over the top three places of each side suit:
  ace, ten, king), being forehand (leading the first trick) and the card points in the skat;
* grand: each jack and the number of jacks, the same side-suit features over all four suits plus
  long suits headed by the ace ("runs" beyond the third card);
* null: per suit the worst "gap" of its cards (a holding is safe when its i-th lowest card is no
  higher than the 2i-th rank: 7, 9, jack, king), the number of unsafe suits and whether a safe
  first lead exists.

The weights were fitted by logistic regression on simulated deals (9,000 deals, about 23,000
games): a random seat is made declarer of each plausible game, discards with the rule below and
plays the deal out against two copies of this player; "pre" weights predict the result from the
ten cards held in the auction (the skat still to come), "post" weights from the final ten cards
plus the skat's points. All features are sums over the trump part and the single suits, so each
model folds into lookup tables indexed by the bits of one suit (:class:`Model`).

Bidding
-------
The value a hand can reach is the value of each game it would play (a game is worth playing when
the expected tournament score ``p (v + 50) - (1 - p) (2v + 50)`` clears a small margin), counting
matadors on the ten cards held and one more level for a hand game (:func:`bid_reach`). A hand
"without n" bids the levels a missing top trump in the skat would take away only as far as the
chance of an overbid (see :func:`game_ev`) leaves the game worth it. The auction bids up to that
value and never past it.

Discarding
----------
For the chosen game the two cards put away maximise the post-pickup model, searched suit by suit
(each side suit may give 0, 1 or 2 cards; jacks and trumps are kept unless fewer than two side
cards remain). This saves blank tens, clears short suits (voids to ruff with) and puts points
into the skat, which count for the declarer. Null discards drop the most dangerous cards.
"""

from __future__ import annotations

import math

from envs.skat.actions import BASE_VALUES
from envs.skat.cards import (
    ACE,
    EIGHT,
    GRAND,
    JACK,
    KING,
    NINE,
    NULL,
    NUM_CARDS,
    ORDER,
    POINTS,
    QUEEN,
    SEVEN,
    TEN,
    TOTAL_POINTS,
    TRUMP_SEQUENCES,
    cards_of,
    points,
)
from envs.skat.scoring import WIN_BONUS
from envs.skat.scoring import matadors as signed_matadors
from envs.skat.tables import HAND_SIZE, SKAT_SIZE, TRUMPS, overbid_value

UNSEEN = NUM_CARDS - HAND_SIZE  # the cards a player does not hold: the two others' and the skat


def skat_guess(hand: int) -> float:
    """The card points to expect in an unseen skat: two of the 22 unseen cards."""
    return (TOTAL_POINTS - points(hand)) / (UNSEEN / SKAT_SIZE)


# --- features ------------------------------------------------------------------------------
# A suit byte: bits 0..7 are the ranks 7 8 9 T J Q K A of one suit (card id - 8 * suit); the
# jack bit is dropped outside null, the jacks being trumps.
_LOWS = sum(1 << r for r in (SEVEN, EIGHT, NINE, QUEEN, KING))
_NO_JACK = 0xFF ^ (1 << JACK)


def suit_byte(hand: int, suit: int) -> int:
    return hand >> (8 * suit) & 0xFF


def side_features(b: int) -> tuple[float, ...]:
    a, t, k = b >> ACE & 1, b >> TEN & 1, b >> KING & 1
    others = (b & _LOWS).bit_count()
    n = a + t + others
    covered = (a if n >= 1 else 0) + (t if n >= 2 else 0) + (k if n >= 3 else 0)
    losers = min(n, 3) - covered
    return (
        float(a),  # ace
        float(a and t),  # ten with its ace
        float(t and not a and others >= 1),  # guarded ten
        float(t and not a and others == 0),  # blank ten
        float(n == 0),  # void
        float(losers),  # losers among the top three places
        float(max(0, n - 3) if a else 0),  # long suit headed by the ace (cards beyond the third)
        float(n),  # length
    )


def trump_features(jacks: int, b: int) -> tuple[float, ...]:
    """Suit game: ``jacks`` 4 bits (CJ SJ HJ DJ), ``b`` the trump suit's byte."""
    n = jacks.bit_count() + (b & _NO_JACK).bit_count()
    return (
        float(n),
        float(n >= 5),
        float(n >= 6),
        float(n >= 7),
        float(jacks & 1),
        float(jacks >> 1 & 1),
        float(jacks >> 2 & 1),
        float(jacks >> 3 & 1),
        float(b >> ACE & 1),
        float(b >> TEN & 1),
    )


def grand_features(jacks: int) -> tuple[float, ...]:
    n = jacks.bit_count()
    return (float(n), float(jacks & 1), float(jacks >> 1 & 1), float(jacks >> 2 & 1), float(jacks >> 3 & 1),
            float(n >= 3))


def null_features(b: int) -> tuple[float, ...]:
    """One suit in null: its worst gap, whether it is unsafe, a safe lead (the lowest card is a 7
    or 8), and its length."""
    ranks = [r for r in range(8) if b >> r & 1]
    gap = max((r - 2 * i for i, r in enumerate(ranks)), default=0)
    gap = max(gap, 0)
    return (float(gap), float(gap > 0), float(bool(ranks) and ranks[0] <= EIGHT), float(gap >= 3),
            float(len(ranks)))


# Weights: (bias, forehand, skat points) + per-part weights. Fitted on simulated deals (see the
# module docstring); "pre" for the auction (ten cards, skat unseen), "post" for the final hand.
SUIT_PRE = {"bias": -1.33, "fore": 0.04, "skat": 0.000,
    "trump": (0.53, -0.07, -0.05, 0.48, 0.97, 0.73, 0.32, 0.17, 0.65, 0.53),
    "side": (1.05, 0.47, 0.37, 0.65, 0.13, -0.17, -0.01, -0.53)}
SUIT_POST = {"bias": -5.97, "fore": 0.06, "skat": 0.077,
    "trump": (0.63, 0.33, 0.06, 0.15, 1.45, 1.13, 0.48, 0.29, 0.94, 0.84),
    "side": (1.94, 0.49, 0.81, 0.00, 1.22, -0.31, -0.15, -0.63)}
GRAND_PRE = {"bias": 1.97, "fore": -0.10, "skat": 0.000,
    "trump": (0.72, 0.50, 0.09, 0.13, 0.01, 0.02),
    "side": (1.27, 0.54, 0.75, 0.76, 0.21, -0.07, 0.06, -0.72)}
GRAND_POST = {"bias": 0.21, "fore": -0.12, "skat": 0.092,
    "trump": (0.92, 0.68, 0.10, 0.09, 0.05, 0.04),
    "side": (1.83, 0.77, 1.13, 0.00, 0.82, -0.20, -0.01, -0.92)}
NULL_PRE = {"bias": -0.40, "fore": -0.21, "skat": 0.0, "suit": (0.05, -0.82, 0.90, -0.43, 0.00)}
NULL_POST = {"bias": 1.00, "fore": -0.23, "skat": 0.0, "suit": (-1.48, 0.84, 0.48, 1.11, -0.00)}


def _dot(w, f) -> float:
    return sum(a * b for a, b in zip(w, f, strict=True))


class Model:
    """A linear model folded into lookup tables: ``score(...)`` is a sum of table entries."""

    __slots__ = ("bias", "fore", "skat", "side", "trump", "jacks", "null")

    def __init__(self, family: str, w: dict) -> None:
        self.bias, self.fore, self.skat = w["bias"], w["fore"], w["skat"]
        self.side = self.trump = self.jacks = self.null = None
        if family == "suit":
            self.side = tuple(_dot(w["side"], side_features(b)) for b in range(256))
            self.trump = tuple(_dot(w["trump"], trump_features(j, b)) for b in range(256) for j in range(16))
        elif family == "grand":
            self.side = tuple(_dot(w["side"], side_features(b)) for b in range(256))
            self.jacks = tuple(_dot(w["trump"], grand_features(j)) for j in range(16))
        else:
            self.null = tuple(_dot(w["suit"], null_features(b)) for b in range(256))


MODELS = {
    ("suit", False): Model("suit", SUIT_PRE), ("suit", True): Model("suit", SUIT_POST),
    ("grand", False): Model("grand", GRAND_PRE), ("grand", True): Model("grand", GRAND_POST),
    ("null", False): Model("null", NULL_PRE), ("null", True): Model("null", NULL_POST),
}


def model(game: int, post: bool) -> Model:
    return MODELS["null" if game == NULL else ("grand" if game == GRAND else "suit"), post]


def jacks_of(hand: int) -> int:
    """The jacks held as 4 bits: CJ SJ HJ DJ (the jack of suit s is card 8 s + JACK)."""
    j = hand >> JACK
    return (j & 1) | (j >> 7 & 2) | (j >> 14 & 4) | (j >> 21 & 8)


def score(hand: int, game: int, post: bool, forehand: bool, skat_points: float) -> float:
    """Logit of winning ``game`` (0..3 suit, 4 grand, 5 null) with this ten-card hand."""
    if game == NULL:
        m = MODELS["null", post]
        t = m.null
        s = m.bias + t[hand & 0xFF] + t[hand >> 8 & 0xFF] + t[hand >> 16 & 0xFF] + t[hand >> 24 & 0xFF]
        return s + m.fore * forehand
    nj = _NO_JACK
    if game == GRAND:
        m = MODELS["grand", post]
        t = m.side
        s = m.bias + m.jacks[jacks_of(hand)] + t[hand & nj] + t[hand >> 8 & nj] + t[hand >> 16 & nj]
        s += t[hand >> 24 & nj]
    else:
        m = MODELS["suit", post]
        t = m.side
        s = m.bias + m.trump[jacks_of(hand) | suit_byte(hand, game) << 4]
        for suit in range(4):
            if suit != game:
                s += t[hand >> (8 * suit) & nj]
    return s + m.fore * forehand + m.skat * skat_points


def prob(logit: float) -> float:
    if logit < -30:
        return 0.0
    return 1.0 / (1.0 + math.exp(-logit))


# --- game values and expectations ------------------------------------------------------------
def matadors(cards: int, game: int) -> int:
    """Matadors with or without (absolute count) on ``cards``; the count lives in envs.skat.scoring."""
    return abs(signed_matadors(game, cards))


def expected_score(p: float, value: int) -> float:
    """Tournament (Seeger-Fabian) expectation of the declarer: won v + 50, lost -2v - 50."""
    return p * (value + WIN_BONUS) - (1.0 - p) * (2 * value + WIN_BONUS)


# KEEP_LEVEL[k]: chance that none of k given cards among the unseen ones lies in the skat
KEEP_LEVEL = tuple(math.comb(UNSEEN - k, SKAT_SIZE) / math.comb(UNSEEN, SKAT_SIZE) for k in range(12))


def game_ev(p: float, cards: int, game: int, hand_game: bool, bid: int, skat_seen: bool) -> float:
    """Expected tournament score of declaring ``game`` (not null) at ``bid`` with winning chance p.

    The value counts matadors on ``cards``; while the skat is unseen, a hand "without n" loses
    levels when the skat holds one of the n missing top trumps, which overbids the game when the
    bid needs those levels. An overbid game is lost at the lowest multiple of the base that
    reaches the bid."""
    base = BASE_VALUES[game]
    m = matadors(cards, game)
    value = base * (m + 1 + hand_game)
    charged = overbid_value(game, bid)
    if value < bid:
        return -2.0 * charged - WIN_BONUS
    need = charged // base - hand_game  # matador level (matadors + 1) the bid needs
    ok = 1.0
    if not skat_seen and need > 2 and not cards >> TRUMP_SEQUENCES[game][0] & 1:
        ok = KEEP_LEVEL[need - 1]
    return ok * expected_score(p, value) - (1.0 - ok) * (2.0 * charged + WIN_BONUS)


def bid_reach(p: float, cards: int, game: int, hand_game: bool, margin: float) -> int:
    """The highest value this game may be bid to: its expected score at that bid stays >= margin."""
    base = BASE_VALUES[game]
    for level in range(matadors(cards, game) + 1, 1, -1):
        bid = base * (level + hand_game)
        if game_ev(p, cards, game, hand_game, bid, False) >= margin:
            return bid
    return 0


def null_safe(hand: int) -> bool:
    """No suit with a gap (ouvert-safe), and a first lead exists."""
    for s in range(4):
        if null_features(suit_byte(hand, s))[1]:
            return False
    return True


# --- discarding ----------------------------------------------------------------------------
def best_discard(hand: int, game: int, n_drop: int) -> tuple[int, float]:
    """The ``n_drop`` cards (a bit set) to put away for ``game`` and the resulting post-model logit
    without the forehand term (skat points included)."""
    m = model(game, True)
    if game == NULL:
        best, best_s = 0, -1e9
        cards = cards_of(hand)
        for i, a in enumerate(cards):
            if n_drop == 1:
                s = score(hand ^ (1 << a), game, True, False, 0.0)
                if s > best_s:
                    best, best_s = 1 << a, s
                continue
            for b in cards[i + 1:]:
                s = score(hand ^ (1 << a) ^ (1 << b), game, True, False, 0.0)
                if s > best_s:
                    best, best_s = (1 << a) | (1 << b), s
        return best, best_s
    trumps = TRUMPS[game]
    side = hand & ~trumps
    if side.bit_count() < n_drop:  # keep everything but the lowest trumps
        drop = side
        order = ORDER[game]
        tr = sorted(cards_of(hand & trumps), key=lambda c: (order[c], POINTS[c]))
        for c in tr[: n_drop - side.bit_count()]:
            drop |= 1 << c
        kept = hand ^ drop
        return drop, score(kept, game, True, False, 0.0) + m.skat * points(drop)
    # per side suit: the best drop of 0, 1 or 2 cards (score change + skat points)
    t = m.side
    options = []  # per suit: {k: (gain, drop_mask)}
    for suit in range(4):
        if suit == game:
            continue
        b = hand >> (8 * suit) & _NO_JACK
        base = t[b]
        opt = {0: (0.0, 0)}
        cs = [r for r in range(8) if b >> r & 1]
        for i, r in enumerate(cs):
            g1 = t[b ^ (1 << r)] - base + m.skat * POINTS[suit * 8 + r]
            if 1 not in opt or g1 > opt[1][0]:
                opt[1] = (g1, 1 << (suit * 8 + r))
            if n_drop >= 2:
                for r2 in cs[i + 1:]:
                    g2 = t[b ^ (1 << r) ^ (1 << r2)] - base + m.skat * (POINTS[suit * 8 + r] + POINTS[suit * 8 + r2])
                    if 2 not in opt or g2 > opt[2][0]:
                        opt[2] = (g2, (1 << (suit * 8 + r)) | (1 << (suit * 8 + r2)))
        options.append(opt)
    best_gain, best_drop = -1e9, 0
    if n_drop == 1:
        for opt in options:
            if 1 in opt and opt[1][0] > best_gain:
                best_gain, best_drop = opt[1]
    else:
        for i, oi in enumerate(options):
            if 2 in oi and oi[2][0] > best_gain:
                best_gain, best_drop = oi[2]
            if 1 in oi:
                for oj in options[i + 1:]:
                    if 1 in oj and oi[1][0] + oj[1][0] > best_gain:
                        best_gain, best_drop = oi[1][0] + oj[1][0], oi[1][1] | oj[1][1]
    kept = hand ^ best_drop
    return best_drop, score(kept, game, True, False, 0.0) + m.skat * points(best_drop)
