"""Auction, skat, discard, declaration and Kontra/Re by solving sampled deals (Keller & Kupferschmid style).

For each candidate game the hidden cards are dealt at random a number of times; each deal is
played out double dummy (``envs.skat.solver``, "does the declarer reach 61?", null: "does it take
no trick?") with the hand the declarer would hold after its discard. The fraction of deals won is
the game's winning chance, and with the game value in each deal (matadors counted with that
deal's skat) it gives the expected Seeger-Fabian score at any bid: won ``v + 50``, lost ``-2v - 50``,
overbid lost at the lowest multiple of the base value that reaches the bid. The auction goes as
high as the best game's expected score stays above a margin; the skat, the discard and the game
are chosen by the same estimate. Candidate games and discards come from the rule agent's hand
model (``agents.skat_hand``), which keeps the number of deals to solve small.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from agents import skat_hand as H
from envs.bitset import cards_of
from envs.skat import actions as A
from envs.skat.cards import FULL_DECK, GRAND, JACK_MASK, NULL, POINTS, points
from envs.skat.scoring import matadors
from envs.skat.solver import Position, SearchAborted, Solver
from envs.skat.tables import TRUMPS

BASE = {0: 12, 1: 11, 2: 10, 3: 9, 4: 24}


@dataclass
class GameEstimate:
    """Sampled outcomes of one game: per solved deal, won or not, and the game value there."""

    label: str  # the contract, ISS letters: C S H D G N, H for hand
    game: int
    hand: bool
    wins: list[bool] = field(default_factory=list)
    values: list[int] = field(default_factory=list)

    @property
    def p(self) -> float:
        return float(np.mean(self.wins)) if self.wins else 0.0

    def score(self, bid: int) -> float:
        """Expected Seeger-Fabian score of the declarer at ``bid``."""
        if not self.wins:
            return -1e9
        total = 0.0
        for won, v in zip(self.wins, self.values, strict=True):
            if v < bid:  # overbid: lost at the lowest value reaching the bid
                base = 23 if self.game == NULL else BASE[self.game]
                charged = base * -(-bid // base) if self.game != NULL else v
                total += -2 * charged - 50 if self.game != NULL else -1000
            else:
                total += v + 50 if won else -2 * v - 50
        return total / len(self.wins)

    def reach(self, margin: float) -> int:
        """The highest bid at which the expected score stays at least ``margin`` (0: none)."""
        best = 0
        for b in A.BID_VALUES:
            if b > max(self.values, default=0):
                break
            if self.score(b) >= margin:
                best = b
        return best


def _value(game: int, hand_game: bool, cards12: int) -> int:
    if game == NULL:
        return 35 if hand_game else 23
    return BASE[game] * (abs(matadors(game, cards12)) + 1 + hand_game)


def _solve_win(solver: Solver, pos: Position, limit: int) -> bool | None:
    solver.limit = solver.nodes + limit
    try:
        return bool(solver.value(pos, "win"))
    except SearchAborted:
        return None
    finally:
        solver.limit = 1 << 62


def _hands(me: int, mine: int, a: int, b: int) -> tuple[int, int, int]:
    out = [0, 0, 0]
    out[me] = mine
    out[(me + 1) % 3] = a
    out[(me + 2) % 3] = b
    return tuple(out)


def estimate_games(hand: int, me: int, rule, solver: Solver, rng: np.random.Generator, deals: int,
                   limit: int, min_p: float = 0.12, max_games: int = 3) -> list[GameEstimate]:
    """Auction: the candidate games of a ten-card hand, each solved on ``deals`` random deals."""
    candidates = []
    for p, g, hand_game, ouvert in rule.evaluate(hand, me == 0)[1]:
        if not ouvert:
            candidates.append((p, g, hand_game))
    candidates.sort(reverse=True)
    pickup = [c for c in candidates if not c[2] and c[0] >= min_p][:max_games]
    hand_games = [c for c in candidates if c[2] and c[0] >= max(min_p, 0.4)][:1]
    chosen = pickup + hand_games
    if not chosen:
        return []
    hidden = cards_of(FULL_DECK & ~hand)
    estimates = [GameEstimate(("N" if g == NULL else "CSHDG"[g]) + ("H" if hg else ""), g, hg)
                 for _, g, hg in chosen]
    for _ in range(deals):
        perm = rng.permutation(hidden)
        skat = (1 << int(perm[0])) | (1 << int(perm[1]))
        a = sum(1 << int(c) for c in perm[2:12])
        b = sum(1 << int(c) for c in perm[12:22])
        for est in estimates:
            if est.hand:
                final, put = hand, skat
            else:
                put = H.best_discard(hand | skat, est.game, 2)[0]
                final = (hand | skat) ^ put
            won = _solve_win(solver, Position(est.game, _hands(me, final, a, b), solo=me, skat=put), limit)
            if won is None:
                continue
            est.wins.append(won)
            est.values.append(_value(est.game, est.hand, hand | skat))
    return estimates


def _discard_options(hand12: int, game: int, me: int, n: int) -> list[int]:
    """The ``n`` best pairs of cards to put away for ``game`` under the rule agent's post-pickup model."""
    fore = me == 0
    scored = []
    for a, b in itertools.combinations(cards_of(hand12), 2):
        drop = (1 << a) | (1 << b)
        if game != NULL and game != GRAND and (drop & TRUMPS[game]) and (hand12 & ~TRUMPS[game]).bit_count() >= 2:
            continue  # keep trumps while there are side cards to put away
        if game == GRAND and drop & JACK_MASK:
            continue  # jacks are grand's trumps
        scored.append((H.score(hand12 ^ drop, game, True, fore, POINTS[a] + POINTS[b]), drop))
    scored.sort(key=lambda t: -t[0])
    best = H.best_discard(hand12, game, 2)[0]
    out = [best]
    for _, drop in scored:
        if len(out) >= n:
            break
        if drop != best:
            out.append(drop)
    return out


def plan_declaration(hand12: int, me: int, bid: int, rule, solver: Solver, rng: np.random.Generator, deals: int,
                     limit: int, fixed_drop: int = 0, max_games: int = 2, discards: int = 3) -> tuple[int, str]:
    """After a pickup: the two cards to put away and the game to declare (ISS letters), by expected score.

    ``fixed_drop``: the discard is already made (only the game is chosen)."""
    fore = me == 0
    games = []
    for g in range(6):
        if g == NULL and 23 < bid:
            continue
        drop, logit = H.best_discard(hand12, g, 2)
        m = H.MODELS["null" if g == NULL else ("grand" if g == GRAND else "suit"), True]
        games.append((H.prob(logit + m.fore * fore + m.skat * points(drop)), g))
    games.sort(reverse=True)
    games = games[:max_games] or [(0.0, GRAND)]
    options = [(g, d) for _, g in games
               for d in ([fixed_drop] if fixed_drop else _discard_options(hand12, g, me, discards))]
    hidden = cards_of(FULL_DECK & ~hand12)
    ests = {opt: GameEstimate("N" if opt[0] == NULL else "CSHDG"[opt[0]], opt[0], False) for opt in options}
    for _ in range(deals):
        perm = rng.permutation(hidden)
        a = sum(1 << int(c) for c in perm[:10])
        b = sum(1 << int(c) for c in perm[10:20])
        for (g, drop), est in ests.items():
            won = _solve_win(solver, Position(g, _hands(me, hand12 ^ drop, a, b), solo=me, skat=drop), limit)
            if won is None:
                continue
            est.wins.append(won)
            est.values.append(_value(g, False, hand12))
    (g, drop), est = max(ests.items(), key=lambda kv: kv[1].score(bid))
    return drop, est.label


def declarer_win_chance(my_hand: int, me: int, declarer: int, game: int, known_skat: int, solver: Solver,
                        rng: np.random.Generator, deals: int, limit: int) -> float:
    """Kontra/Re: the chance the declarer wins, over random deals of the cards this seat cannot see."""
    hidden = cards_of(FULL_DECK & ~my_hand & ~known_skat)
    wins = n = 0
    for _ in range(deals):
        perm = [int(c) for c in rng.permutation(hidden)]
        hands = [0, 0, 0]
        hands[me] = my_hand
        others = [p for p in range(3) if p != me]
        hands[others[0]] = sum(1 << c for c in perm[:10])
        hands[others[1]] = sum(1 << c for c in perm[10:20])
        skat = known_skat or sum(1 << c for c in perm[20:22])
        won = _solve_win(solver, Position(game, tuple(hands), solo=declarer, skat=skat), limit)
        if won is not None:
            wins += won
            n += 1
    return wins / n if n else 0.5
