"""Tables and heuristics of the rule-based Skat player (``agents.rule_skat``).

Everything here works on bit sets of card ids (see ``envs.skat.cards``) and on precomputed
tables, so that one decision costs tens of microseconds.

Hand evaluation (bidding, pickup or hand, discarding, declaring)
------------------------------------------------------------------
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

The value a hand can reach is the value of each game it would play (a game is worth playing when
the expected tournament score ``p (v + 50) - (1 - p) (2v + 50)`` clears a small margin), counting
matadors on the ten cards held and one more level for a hand game (:func:`bid_reach`). A hand
"without n" bids the levels a missing top trump in the skat would take away only as far as the
chance of an overbid (see :func:`game_ev`) leaves the game worth it. The auction bids up to that
value and never past it.

Discarding: for the chosen game the two cards put away maximise the post-pickup model, searched
suit by suit (each side suit may give 0, 1 or 2 cards; jacks and trumps are kept unless fewer than
two side cards remain). This saves blank tens, clears short suits (voids to ruff with) and puts
points into the skat, which count for the declarer. Null discards drop the most dangerous cards.

Card play (suit games and grand)
---------------------------------
Following a trick, every legal card gets an expected value: the card points of the trick (with
the card) times ``2 P(our side takes the trick) - 1``, minus what the card is worth kept in hand
(trumps and jacks, boss cards, a ten's guard; freeing a suit when holding trumps is a plus).
``P`` is computed from the cards still out, the known voids and each hand's size with
hypergeometric odds (a player who cannot follow may ruff). This single rule gives the classic
plays: take tricks cheaply when last, play a sure winner (or ruff) in second seat when it pays,
otherwise play low; bring the ace and ten of trumps home on safe tricks; as a defender, smear
(schmieren) a ten or ace onto a trick the partner holds safely, an endangered ten first.

Leading as declarer: draw trumps with the boss trump, or with the cheapest trump (a low jack
before the ace or ten of trumps) while holding at least as many trumps as both defenders, or
five; cash side aces (and tens whose ace is gone) while the defenders still follow; never lead
a ten into an outstanding ace; otherwise lead low from short suits to ruff later; once the
defenders have no trump left, give up side losers before the sure trump tricks. Leading as a
defender: cash side aces the declarer still follows, lead suits the partner can ruff, "short way,
long suit; long way, short suit" (declarer on the left: lead the long suit, declarer on the right:
the short one), avoid suits the declarer is void in and avoid leading trumps.

Null: the declarer leads the card least likely to win the trick (odds that both defenders can
get under it), follows with the highest card that stays under the trick's best card, and throws
the most endangered card when void (more cards out below it than its own below it; never the low
card guarding higher ones). Defenders lead low in suits the declarer still holds, duck
under the declarer's card and otherwise play or throw high cards.

Ramsch (everyone for himself, fewest points): play the highest card that stays under the trick,
take unavoidable tricks cheaply, throw aces and tens when void, lead cards least likely to win.

The player keeps track of played cards (from the observation) and of voids (a player who did
not follow the led suit), which it rebuilds trick by trick from its own consecutive observations.
"""

from __future__ import annotations

import math

from envs.bitset import cards_of
from envs.skat.cards import EFF_SUIT, FOLLOW, GRAND, NULL, ORDER, POINTS, TRUMP, TRUMP_SEQUENCES
from envs.skat.scoring import matadors as scoring_matadors

FULL = (1 << 32) - 1
ACE, TEN, KING, QUEEN, JACK = 7, 3, 6, 5, 4
# Card-play constants, in card points; tuned in simulated rule-vs-rule deals.
KEEP_TRUMP, KEEP_TRUMP_POINTS, KEEP_TRUMP_RANK = 3.0, 0.4, 0.5  # a trump's worth kept in hand
RESPONSE = 3.0  # points expected from a player still to play to the trick
WAY = 1.5  # defender's lead, per card of the suit: long suit if the declarer sits left, else short
DEF_CASH, DEF_PARTNER_RUFF, DEF_TRUMP_LEAD = 20.0, 12.0, -15.0  # defender's lead scores
DRAW_ALWAYS = 5  # the declarer draws trumps with this many, even against more

# --- trick tables ------------------------------------------------------------------------------
# HIGHER[g][c]: cards of c's effective suit above c. BEATERS[g][c]: cards that beat c when c
# leads the trick so far (higher in its suit, or any trump over a plain card).
TRUMPS = tuple(FOLLOW[g][TRUMP] if g != NULL else 0 for g in range(6))


def _rel_tables():
    higher, lower, beaters = [], [], []
    for g in range(6):
        eff, order = EFF_SUIT[g], ORDER[g]
        h, lo, b = [0] * 32, [0] * 32, [0] * 32
        for c in range(32):
            for x in range(32):
                if eff[x] == eff[c]:
                    if order[x] > order[c]:
                        h[c] |= 1 << x
                    elif order[x] < order[c]:
                        lo[c] |= 1 << x
            b[c] = h[c] | (TRUMPS[g] if eff[c] != TRUMP else 0)
        higher.append(tuple(h))
        lower.append(tuple(lo))
        beaters.append(tuple(b))
    return tuple(higher), tuple(lower), tuple(beaters)


HIGHER, LOWER, BEATERS = _rel_tables()
# TRUMP_RANK[c]: place of a card among the trumps of a suit game, 0 (seven) .. 10 (club jack)
TRUMP_RANK = tuple((10 - (c >> 3)) if c & 7 == 4 else (0, 1, 2, 5, 0, 3, 4, 6)[c & 7] for c in range(32))


def _void_table():
    """VOIDP[N][k][h]: chance that a hand of h cards drawn from N unknown ones misses k given cards."""
    t = []
    for n in range(33):
        row = []
        for k in range(n + 1):
            row.append(tuple(math.comb(n - k, h) / math.comb(n, h) if h <= n else 0.0 for h in range(11)))
        t.append(tuple(row))
    return tuple(t)


VOIDP = _void_table()


def p_holds_any(n_pool: int, k: int, h: int) -> float:
    """Chance a hand of ``h`` cards out of ``n_pool`` unknown ones holds one of ``k`` given cards."""
    if k <= 0 or h <= 0:
        return 0.0
    if h >= n_pool:
        return 1.0
    return 1.0 - VOIDP[n_pool][k][h]


bits = cards_of  # iteration over a bit set of cards


def mask_points(mask: int) -> int:
    return sum(POINTS[c] for c in bits(mask))


def lowest(mask: int, order: tuple[int, ...]) -> int:
    best, bo = -1, 99
    for c in bits(mask):
        if order[c] < bo:
            best, bo = c, order[c]
    return best


def highest(mask: int, order: tuple[int, ...]) -> int:
    best, bo = -1, -99
    for c in bits(mask):
        if order[c] > bo:
            best, bo = c, order[c]
    return best


# --- hand evaluation -----------------------------------------------------------------------
# Side-suit byte: bits 0..7 are the ranks 7 8 9 T J Q K A of one suit (the jack bit is ignored
# outside null).
_LOWS = 0b01100111  # 7 8 9 Q K


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


N_SIDE = 8


def trump_features(jacks: int, b: int) -> tuple[float, ...]:
    """Suit game: ``jacks`` 4 bits (CJ SJ HJ DJ), ``b`` the trump suit's byte."""
    n = jacks.bit_count() + (b & 0xEF).bit_count()
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


N_TRUMP = 10


def grand_features(jacks: int) -> tuple[float, ...]:
    n = jacks.bit_count()
    return (float(n), float(jacks & 1), float(jacks >> 1 & 1), float(jacks >> 2 & 1), float(jacks >> 3 & 1),
            float(n >= 3))


N_GRAND = 6


def null_features(b: int) -> tuple[float, ...]:
    """One suit in null: its worst gap, whether it is unsafe, a safe lead (the lowest card is a 7
    or 8), and its length."""
    ranks = [r for r in range(8) if b >> r & 1]
    gap = max((r - 2 * i for i, r in enumerate(ranks)), default=0)
    gap = max(gap, 0)
    return (float(gap), float(gap > 0), float(bool(ranks) and ranks[0] <= 1), float(gap >= 3), float(len(ranks)))


N_NULL = 5

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


def jacks_of(hand: int) -> int:
    return (hand >> 4 & 1) | (hand >> 11 & 2) | (hand >> 18 & 4) | (hand >> 25 & 8)


def score(hand: int, game: int, post: bool, forehand: bool, skat_points: float) -> float:
    """Logit of winning ``game`` (0..3 suit, 4 grand, 5 null) with this ten-card hand."""
    if game == NULL:
        m = MODELS["null", post]
        t = m.null
        s = m.bias + t[hand & 0xFF] + t[hand >> 8 & 0xFF] + t[hand >> 16 & 0xFF] + t[hand >> 24 & 0xFF]
        return s + m.fore * forehand
    if game == GRAND:
        m = MODELS["grand", post]
        t = m.side
        s = m.bias + m.jacks[jacks_of(hand)] + t[hand & 0xEF] + t[hand >> 8 & 0xEF] + t[hand >> 16 & 0xEF]
        s += t[hand >> 24 & 0xEF]
    else:
        m = MODELS["suit", post]
        t = m.side
        s = m.bias + m.trump[jacks_of(hand) | (hand >> (8 * game) & 0xFF) << 4]
        for suit in range(4):
            if suit != game:
                s += t[hand >> (8 * suit) & 0xEF]
    return s + m.fore * forehand + m.skat * skat_points


def prob(logit: float) -> float:
    if logit < -30:
        return 0.0
    return 1.0 / (1.0 + math.exp(-logit))


BASE = (12, 11, 10, 9, 24)
NULL_VALUE = {(False, False): 23, (True, False): 35, (False, True): 46, (True, True): 59}  # (hand, ouvert)


def matadors(cards: int, game: int) -> int:
    """Matadors with or without (absolute count) on ``cards``; the count lives in envs.skat.scoring."""
    return abs(scoring_matadors(game, cards))


def game_value(cards: int, game: int, hand_game: bool) -> int:
    if game == NULL:
        return NULL_VALUE[hand_game, False]
    return BASE[game] * (matadors(cards, game) + 1 + hand_game)


def expected_score(p: float, value: int) -> float:
    """Tournament (Seeger-Fabian) expectation of the declarer: won v + 50, lost -2v - 50."""
    return p * (value + 50) - (1.0 - p) * (2 * value + 50)


# KEEP_LEVEL[k]: chance that none of k given cards among the 22 unseen lies in the skat
KEEP_LEVEL = tuple(math.comb(22 - k, 2) / math.comb(22, 2) for k in range(12))


def game_ev(p: float, cards: int, game: int, hand_game: bool, bid: int, skat_seen: bool) -> float:
    """Expected tournament score of declaring ``game`` (not null) at ``bid`` with winning chance p.

    The value counts matadors on ``cards``; while the skat is unseen, a hand "without n" loses
    levels when the skat holds one of the n missing top trumps, which overbids the game when the
    bid needs those levels. An overbid game is lost at the lowest multiple of the base that
    reaches the bid."""
    base = BASE[game]
    m = matadors(cards, game)
    value = base * (m + 1 + hand_game)
    charged = base * -(-bid // base)
    if value < bid:
        return -2.0 * charged - 50.0
    need = charged // base - hand_game  # matador level (matadors + 1) the bid needs
    ok = 1.0
    if not skat_seen and need > 2 and not cards >> TRUMP_SEQUENCES[game][0] & 1:
        ok = KEEP_LEVEL[need - 1]
    return ok * expected_score(p, value) - (1.0 - ok) * (2.0 * charged + 50.0)


def bid_reach(p: float, cards: int, game: int, hand_game: bool, margin: float) -> int:
    """The highest value this game may be bid to: its expected score at that bid stays >= margin."""
    base = BASE[game]
    for level in range(matadors(cards, game) + 1, 1, -1):
        bid = base * (level + hand_game)
        if game_ev(p, cards, game, hand_game, bid, False) >= margin:
            return bid
    return 0


def null_safe(hand: int) -> bool:
    """No suit with a gap (ouvert-safe), and a first lead exists."""
    for s in range(4):
        b = hand >> (8 * s) & 0xFF
        if null_features(b)[1]:
            return False
    return True


# --- discarding ----------------------------------------------------------------------------
def best_discard(hand: int, game: int, n_drop: int) -> tuple[int, float]:
    """The ``n_drop`` cards (a bit set) to put away for ``game`` and the resulting post-model logit
    without the forehand term (skat points included)."""
    m = MODELS["null" if game == NULL else ("grand" if game == GRAND else "suit"), True]
    if game == NULL:
        best, best_s = 0, -1e9
        cards = bits(hand)
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
        tr = sorted(bits(hand & trumps), key=lambda c: (order[c], POINTS[c]))
        for c in tr[: n_drop - side.bit_count()]:
            drop |= 1 << c
        kept = hand ^ drop
        return drop, score(kept, game, True, False, 0.0) + m.skat * mask_points(drop)
    # per side suit: the best drop of 0, 1 or 2 cards (score change + skat points)
    t = m.side
    options = []  # per suit: {k: (gain, drop_mask)}
    for suit in range(4):
        if suit == game:
            continue
        b = hand >> (8 * suit) & 0xEF
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
    return best_drop, score(kept, game, True, False, 0.0) + m.skat * mask_points(best_drop)


# --- card play -----------------------------------------------------------------------------
class Seen:
    """What one seat knows at a card-play decision (relative seats: 0 me, 1 next, 2 the one after).

    ``cand[r]`` are the cards seat r may still hold (cards out minus its known voids; exact for an
    ouvert declarer); ``sizes[r]`` how many cards it holds; ``decl`` the relative declarer (-1 in
    Ramsch)."""

    __slots__ = ("g", "hand", "legal", "trick", "leader", "decl", "out", "cand", "npool", "sizes", "ramsch")

    def __init__(self, g: int, hand: int, legal: int, trick: list[int], leader: int, decl: int, out: int,
                 cand: list[int], sizes: list[int], ramsch: bool) -> None:
        self.g, self.hand, self.legal, self.trick, self.leader = g, hand, legal, trick, leader
        self.decl, self.out, self.cand, self.sizes, self.ramsch = decl, out, cand, sizes, ramsch
        self.npool = [0, cand[1].bit_count(), cand[2].bit_count()]

    def p_any(self, r: int, cards: int) -> float:
        """Chance seat r holds at least one of ``cards``."""
        return p_holds_any(self.npool[r], (self.cand[r] & cards).bit_count(), self.sizes[r])

    def p_void(self, r: int, e: int) -> float:
        return 1.0 - self.p_any(r, FOLLOW[self.g][e])

    def p_beat(self, r: int, top: int, e: int) -> float:
        """Chance seat r (still to play) beats ``top`` in a trick led in effective suit ``e``."""
        g = self.g
        cand, n, h = self.cand[r], self.npool[r], self.sizes[r]
        suit = cand & FOLLOW[g][e]
        ns = suit.bit_count()
        beat = BEATERS[g][top]
        if EFF_SUIT[g][top] == e:
            pf = p_holds_any(n, (suit & beat).bit_count(), h)
            if e == TRUMP or g == NULL:
                return pf
            pv = 1.0 - p_holds_any(n, ns, h)
            if pv <= 0.0:
                return pf
            return pf + pv * p_holds_any(n - ns, (cand & TRUMPS[g]).bit_count(), h)
        pv = 1.0 - p_holds_any(n, ns, h)  # top ruffed a plain lead: r beats only by over-ruffing
        if pv <= 0.0:
            return 0.0
        return pv * p_holds_any(n - ns, (cand & beat).bit_count(), h)

    def team(self, r: int) -> bool:
        return r == 0 or (self.decl != 0 and r != self.decl)


def trick_winner_index(g: int, trick: list[int]) -> int:
    wi = 0
    for i in range(1, len(trick)):
        if BEATERS[g][trick[wi]] >> trick[i] & 1:
            wi = i
    return wi


def keep_value(S: Seen, c: int) -> float:
    """What card c is worth kept in hand (trick-taking games), in card points."""
    g = S.g
    out = S.out
    if TRUMPS[g] >> c & 1:
        v = KEEP_TRUMP + KEEP_TRUMP_POINTS * POINTS[c] + KEEP_TRUMP_RANK * TRUMP_RANK[c]
        if c & 7 == JACK:
            v += 2.0 + (3 - (c >> 3)) * 0.5
        if not HIGHER[g][c] & out:
            v += 3.0
        if not out & TRUMPS[g]:
            v = 4.0 + 0.5 * POINTS[c]
        return v
    e = EFF_SUIT[g][c]
    mine = S.hand & FOLLOW[g][e]
    n_mine = mine.bit_count()
    if not HIGHER[g][c] & out:  # boss of its suit: a later trick, unless an opponent ruffs it
        risk = _ruff_risk(S, e, (1, 2) if S.decl == 0 else (S.decl,)) if out & TRUMPS[g] else 0.0
        v = (1.0 - risk) * (4.0 + 0.6 * POINTS[c]) - risk * 0.8 * POINTS[c]
    elif c & 7 == TEN:
        v = 3.0 if n_mine >= 2 else 0.5
    else:
        v = 0.5
        ten = (c & ~7) | TEN
        if mine >> ten & 1 and HIGHER[g][ten] & out and n_mine <= 3:
            v = 3.0  # the guard of a ten whose ace is out
    if n_mine == 1 and S.hand & TRUMPS[g]:
        v -= 2.0  # freeing the suit lets us ruff it
    return v


def follow_trump_game(S: Seen) -> int:
    g, trick = S.g, S.trick
    k = len(trick)
    e = EFF_SUIT[g][trick[0]]
    wi = trick_winner_index(g, trick)
    w = trick[wi]
    w_rel = (S.leader + wi) % 3
    tp = POINTS[trick[0]] + (POINTS[trick[1]] if k > 1 else 0)
    after = (1,) if k == 1 else ()
    opps_after = [r for r in after if not S.team(r)]
    mates_after = [r for r in after if r and S.team(r)]
    extra = RESPONSE if after else 0.0
    w_beaters = BEATERS[g][w]
    w_ours = S.team(w_rel)
    best, best_v = -1, -1e9
    for c in bits(S.legal):
        if w_beaters >> c & 1:
            p = 1.0
            for r in opps_after:
                p *= 1.0 - S.p_beat(r, c, e)
        elif w_ours:
            p = 1.0
            for r in opps_after:
                p *= 1.0 - S.p_beat(r, w, e)
        else:
            p = 0.0
            for r in mates_after:
                p = S.p_beat(r, w, e)
        v = (2.0 * p - 1.0) * (tp + POINTS[c] + extra) - keep_value(S, c)
        if v > best_v or (v == best_v and ORDER[g][c] < ORDER[g][best]):
            best, best_v = c, v
    return best


def _ruff_risk(S: Seen, e: int, opps: tuple[int, ...]) -> float:
    """Chance one of ``opps`` is void in e and holds a trump."""
    g = S.g
    risk = 0.0
    for r in opps:
        pv = S.p_void(r, e)
        if pv > 0.0:
            ns = (S.cand[r] & FOLLOW[g][e]).bit_count()
            risk = max(risk, pv * p_holds_any(S.npool[r] - ns, (S.cand[r] & TRUMPS[g]).bit_count(), S.sizes[r]))
    return risk


def lead_declarer(S: Seen) -> int:
    g, hand, out = S.g, S.hand, S.out
    trumps = TRUMPS[g]
    order = ORDER[g]
    my_tr = hand & trumps
    opp_tr = (out & trumps).bit_count()
    if my_tr and opp_tr:
        top = highest(my_tr, order)
        if not HIGHER[g][top] & out:
            return top
        n_tr = my_tr.bit_count()
        if (n_tr >= opp_tr and n_tr >= 2) or n_tr >= DRAW_ALWAYS:  # draw with the cheapest trump
            return min(bits(my_tr), key=lambda c: (POINTS[c], order[c]))
    best, best_s = -1, -1e9
    for c in bits(hand):
        if trumps >> c & 1:
            if not opp_tr:  # sure tricks: kept to ruff with while side losers are given up
                s = -10.0 + POINTS[c] * 0.1
            elif not HIGHER[g][c] & out:
                s = 12.0
            else:
                s = -8.0 - POINTS[c]
        else:
            e = EFF_SUIT[g][c]
            risk = _ruff_risk(S, e, (1, 2)) if opp_tr else 0.0
            if not HIGHER[g][c] & out:
                s = 20.0 + POINTS[c] * (1.0 - 2.5 * risk) - 10.0 * risk
            elif c & 7 == TEN:
                s = -25.0
            else:
                n_mine = (hand & FOLLOW[g][e]).bit_count()
                s = -POINTS[c] - 0.1 * order[c]
                if n_mine == 1 and my_tr:
                    s += 3.0
                ten = (c & ~7) | TEN
                if hand >> ten & 1 and HIGHER[g][ten] & out and n_mine <= 2:
                    s -= 5.0  # keep the ten guarded
                s -= 5.0 * risk
        if s > best_s:
            best, best_s = c, s
    return best


def lead_defender(S: Seen) -> int:
    g, hand, out = S.g, S.hand, S.out
    trumps = TRUMPS[g]
    order = ORDER[g]
    d = S.decl
    partner = 3 - d
    decl_tr = S.p_any(d, trumps)
    best, best_s = -1, -1e9
    for c in bits(hand):
        boss = not HIGHER[g][c] & out
        if trumps >> c & 1:
            s = DEF_TRUMP_LEAD - POINTS[c] - 0.1 * order[c]
            if decl_tr == 0.0:
                s = 5.0 if boss else -5.0 - POINTS[c]
        else:
            e = EFF_SUIT[g][c]
            suit = FOLLOW[g][e]
            p_dv = S.p_void(d, e)
            ruff = p_dv * decl_tr
            n_mine = (hand & suit).bit_count()
            if boss:
                s = DEF_CASH + POINTS[c] - (40.0 + 2 * POINTS[c]) * ruff
            else:
                s = -POINTS[c] - 0.1 * order[c]
                if not S.cand[partner] & suit and S.cand[partner] & trumps:
                    s += DEF_PARTNER_RUFF * (1.0 - p_dv)  # the partner ruffs it
                s -= 25.0 * ruff
                if c & 7 == TEN:
                    s -= 15.0
                s += WAY * n_mine if d == 1 else -WAY * n_mine
                ten = (c & ~7) | TEN
                if hand >> ten & 1 and HIGHER[g][ten] & out and n_mine <= 2:
                    s -= 4.0
        if s > best_s:
            best, best_s = c, s
    return best


# --- null ----------------------------------------------------------------------------------
def _null_under(S: Seen, r: int, c: int) -> float:
    """Chance seat r can stay under c (holds a lower card of its suit, or is void in it)."""
    suit = FOLLOW[NULL][c >> 3]
    pv = 1.0 - S.p_any(r, suit)
    return min(1.0, pv + S.p_any(r, LOWER[NULL][c]))


def null_declarer(S: Seen) -> int:
    trick, legal = S.trick, S.legal
    if not trick:
        best, best_r = -1, 9.0
        for c in bits(legal):
            risk = _null_under(S, 1, c) * _null_under(S, 2, c)
            if risk < best_r - 1e-9 or (abs(risk - best_r) <= 1e-9 and c & 7 > best & 7):
                best, best_r = c, risk
        return best
    e = trick[0] >> 3
    top = max((c for c in trick if c >> 3 == e), key=lambda c: c & 7)
    suit = FOLLOW[NULL][e]
    if legal & suit:
        under = legal & LOWER[NULL][top]
        if under:
            return highest(under, ORDER[NULL])
        if len(trick) == 2:
            return highest(legal, ORDER[NULL])
        return lowest(legal, ORDER[NULL])
    return _null_throw(S, legal)


def _null_throw(S: Seen, cards: int) -> int:
    """The most endangered card: more cards out below it than ours below it (it can be forced to
    win); a card that guards higher ones of its suit is kept."""
    best, best_d = -1, -99.0
    for c in bits(cards):
        lo = LOWER[NULL][c]
        d = (S.out & lo).bit_count() - (S.hand & lo).bit_count() - 2 * (S.hand & HIGHER[NULL][c]).bit_count()
        d += 0.01 * (c & 7)
        if d > best_d:
            best, best_d = c, d
    return best


def null_defender(S: Seen) -> int:
    trick, legal, d = S.trick, S.legal, S.decl
    order = ORDER[NULL]
    if not trick:
        best, best_s = -1, -9.0
        for c in bits(legal):
            suit = FOLLOW[NULL][c >> 3]
            s = S.p_any(d, suit) - S.p_any(d, LOWER[NULL][c]) - 0.01 * (c & 7)
            if s > best_s:
                best, best_s = c, s
        return best
    k = len(trick)
    e = trick[0] >> 3
    suit = FOLLOW[NULL][e]
    wi = max((i for i in range(k) if trick[i] >> 3 == e), key=lambda i: trick[i] & 7)
    w_rel = (S.leader + wi) % 3
    decl_played = any((S.leader + i) % 3 == d for i in range(k))
    if decl_played:
        if w_rel == d and legal & suit:
            under = legal & LOWER[NULL][trick[wi]]
            return highest(under if under else legal, order)
        return highest(legal, order) if legal & suit else max(bits(legal), key=lambda c: c & 7)
    if legal & suit:
        return lowest(legal, order)
    return max(bits(legal), key=lambda c: c & 7)


# --- ramsch --------------------------------------------------------------------------------
def ramsch_play(S: Seen) -> int:
    g, trick, legal = GRAND, S.trick, S.legal
    order = ORDER[g]
    if not trick:
        best, best_s = -1, 1e9
        for c in bits(legal):
            e = EFF_SUIT[g][c]
            p_win = 1.0
            for r in (1, 2):
                forced = max(0.0, S.p_any(r, FOLLOW[g][e]) - S.p_any(r, LOWER[g][c]))
                p_win *= 1.0 - forced
            s = p_win * (POINTS[c] + 8.0) - (1.0 - p_win) * 0.5 * POINTS[c]
            if s < best_s:
                best, best_s = c, s
        return best
    wi = trick_winner_index(g, trick)
    w = trick[wi]
    beaters = BEATERS[g][w]
    safe = legal & ~beaters
    if safe:
        return max(bits(safe), key=lambda c: (POINTS[c] + (0 if TRUMPS[g] >> c & 1 else 0.5), order[c]))
    if len(trick) == 2:
        return min(bits(legal), key=lambda c: (POINTS[c], -order[c]))
    return lowest(legal, order)
