"""Card play of the rule-based Skat player (``agents.rule_skat``).

Everything here works on bit sets of card ids (see ``envs.skat.cards``) and on the tables of
``envs.skat.tables`` (trumps, the cards above, below and beating each card), so that one
decision costs tens of microseconds. :func:`choose_card` reads what it needs from the decoded
observation (``envs.skat.observation.decode``): the hand, the cards played by each seat, the
trick, the open hand of an ouvert declarer and the voids each seat has shown (who did not follow
which suit). It keeps nothing between decisions.

Suit games and grand
--------------------
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

Null
----
The declarer leads the card least likely to win the trick (odds that both defenders can get
under it), follows with the highest card that stays under the trick's best card, and throws the
most endangered card when void (more cards out below it than its own below it; never the low
card guarding higher ones). Defenders lead low in suits the declarer still holds, duck under
the declarer's card and otherwise play or throw high cards.

Ramsch
------
Everyone for himself, fewest points: play the highest card that stays under the trick, take
unavoidable tricks cheaply, throw aces and tens when void, lead cards least likely to win.
"""

from __future__ import annotations

from agents.skat_seen import Seen, p_holds_any, seen
from envs.skat.cards import EFF_SUIT, FOLLOW, GRAND, JACK, NULL, ORDER, POINTS, TEN, cards_of
from envs.skat.observation import SkatView
from envs.skat.tables import BEATERS, HIGHER, LOWER, TRUMP_RANK, TRUMPS, trick_winner_index

# Card-play constants, in card points; tuned in simulated rule-vs-rule deals.
KEEP_TRUMP, KEEP_TRUMP_POINTS, KEEP_TRUMP_RANK = 3.0, 0.4, 0.5  # a trump's worth kept in hand
RESPONSE = 3.0  # points expected from a player still to play to the trick
WAY = 1.5  # defender's lead, per card of the suit: long suit if the declarer sits left, else short
DEF_CASH, DEF_PARTNER_RUFF, DEF_TRUMP_LEAD = 20.0, 12.0, -15.0  # defender's lead scores
DRAW_ALWAYS = 5  # the declarer draws trumps with this many, even against more


def lowest(mask: int, order: tuple[int, ...]) -> int:
    best, bo = -1, 99
    for c in cards_of(mask):
        if order[c] < bo:
            best, bo = c, order[c]
    return best


def highest(mask: int, order: tuple[int, ...]) -> int:
    best, bo = -1, -99
    for c in cards_of(mask):
        if order[c] > bo:
            best, bo = c, order[c]
    return best


def _first(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


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
    for c in cards_of(S.legal):
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
            return min(cards_of(my_tr), key=lambda c: (POINTS[c], order[c]))
    best, best_s = -1, -1e9
    for c in cards_of(hand):
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
    for c in cards_of(hand):
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
        for c in cards_of(legal):
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
    for c in cards_of(cards):
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
        for c in cards_of(legal):
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
        return highest(legal, order) if legal & suit else max(cards_of(legal), key=lambda c: c & 7)
    if legal & suit:
        return lowest(legal, order)
    return max(cards_of(legal), key=lambda c: c & 7)


# --- ramsch --------------------------------------------------------------------------------
def ramsch_play(S: Seen) -> int:
    g, trick, legal = GRAND, S.trick, S.legal
    order = ORDER[g]
    if not trick:
        best, best_s = -1, 1e9
        for c in cards_of(legal):
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
        return max(cards_of(safe), key=lambda c: (POINTS[c] + (0 if TRUMPS[g] >> c & 1 else 0.5), order[c]))
    if len(trick) == 2:
        return min(cards_of(legal), key=lambda c: (POINTS[c], -order[c]))
    return lowest(legal, order)


# --- the decision ----------------------------------------------------------------------------
def choose_card(view: SkatView, legal: int) -> int:
    """The card (id) to play from the playable cards ``legal`` (a bit set), given the decoded observation."""
    if legal & (legal - 1) == 0:
        return _first(legal)
    S = seen(view, legal)
    if S.ramsch:
        return ramsch_play(S)
    if S.g == NULL:
        return null_declarer(S) if S.decl == 0 else null_defender(S)
    if S.trick:
        return follow_trump_game(S)
    return lead_declarer(S) if S.decl == 0 else lead_defender(S)
