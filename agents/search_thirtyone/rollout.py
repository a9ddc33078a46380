"""The rollout policy and the leaf values of the Thirty-One search: the rule agent's heuristics on the rules state.

:func:`rule_move` plays the heuristics of ``agents.rule_thirtyone`` (the classic game with a stock and a
discard pile: take a 31, knock on ``knock_threshold``, take the top card when it improves the hand,
discard the card that leaves the best hand, keeping the suit being built and feeding the next player
least) straight from a :class:`~envs.thirtyone.rules.ThirtyOneState`, without building and decoding an
observation: a rollout makes thousands of these decisions per move. It reads only what the player to
act may see (its hand, the top card, the cards the next player is known to hold, lives, the turn), so
rollouts never play on hidden cards. Remaining ties are broken by the lowest card, not at random (the
rule agent draws them), so a rollout is a function of its world. ``tests/test_agents_search_thirtyone.py``
checks that both agree on the decisions of real games.

:func:`win_chance` values the end of a round in the lives game: the chance to win the game from the
lives left, if from now on each round one player, any of those still in with equal chance, loses one
life (a Markov chain solved exactly, memoised).
"""

from __future__ import annotations

from functools import cache

from agents.rule_thirtyone_knock import knock_threshold
from envs.thirtyone.actions import DRAW, KNOCK, TAKE
from envs.thirtyone.cards import NUM_CARDS, SUIT, VALUE
from envs.thirtyone.phases import DISCARD
from envs.thirtyone.phases import DRAW as DRAW_PHASE
from envs.thirtyone.rules import ThirtyOneState
from envs.thirtyone.scoring import BLITZ

_BIT = [1 << c for c in range(NUM_CARDS)]
_SUIT_BIT = [1 << SUIT[c] for c in range(NUM_CARDS)]
# The rule agent's order of the hands left after a discard, as one int per 3-card bit set, per hand-value
# table (``HandValuer.memo``, one per option set): value, then the cards in the suit being built, then
# their values (highest first); see ``_keep_key``.
_KEYS: dict[int, dict[int, int]] = {}


def _keep_key(memo: dict[int, float], mask: int) -> int:
    """The hand's value first, then the rule agent's tie-breaks: the most cards of one suit (the suit
    with the most cards, then the highest total; the lowest suit of equals), then their values, highest
    first. Packed into one int that orders hands as the rule agent's key tuples do."""
    cards = [c for c in range(NUM_CARDS) if mask >> c & 1]
    best = None
    for suit in sorted({SUIT[c] for c in cards}):
        values = sorted((VALUE[c] for c in cards if SUIT[c] == suit), reverse=True)
        rank = (len(values), sum(values))
        if best is None or rank > best[0]:
            best = (rank, values)
    values = best[1] + [0] * (3 - len(best[1]))
    key = round(2 * memo[mask]) * 4 + len(best[1])  # values are whole or halves (30.5)
    for v in values:
        key = key * 12 + v
    return key


def rule_discard(s: ThirtyOneState) -> int:
    """The rule agent's discard for the player to act (phase DISCARD)."""
    p = s.current_player
    mask, locked, memo = s.hand_mask[p], s.locked, s.memo
    keys = _KEYS.get(id(memo))
    if keys is None:
        keys = _KEYS[id(memo)] = {}
    fed = s.known[(p + 1) % s.n]  # the next seat's known cards (the rule agent reads relative seat 1)
    fed_suits = 0
    while fed:
        low = fed & -fed
        fed_suits |= _SUIT_BIT[low.bit_length() - 1]
        fed ^= low
    best, best_key = -1, -1
    for c in sorted(s.hands[p]):
        if c == locked:
            continue
        rest = mask ^ _BIT[c]
        k = keys.get(rest)
        if k is None:
            k = keys[rest] = _keep_key(memo, rest)
        # then the card that feeds the next player least: a low card, not of a suit it took
        k = k * 32 + 20 - VALUE[c] - (5 if fed_suits & _SUIT_BIT[c] else 0)
        if k > best_key:
            best, best_key = c, k
    return best


def rule_turn(s: ThirtyOneState) -> int:
    """The rule agent's draw, take or knock for the player to act (phase DRAW)."""
    p = s.current_player
    mask, memo = s.hand_mask[p], s.memo
    now = memo[mask]
    pile = s.pile
    with_top = 0.0
    if pile:
        top = _BIT[pile[-1]]
        for c in s.hands[p]:
            v = memo[mask ^ _BIT[c] | top]
            if v > with_top:
                with_top = v
        if with_top >= BLITZ:
            return TAKE
    if s.knocker < 0 and s._may_knock():
        players = max(len(s.seats), 2)
        lap = min(s.turn_no // players, 10)
        last_life = s.tokens[p] - (1 if s.opts.free_ride else 0) <= 0
        if now >= knock_threshold(players, lap, last_life):
            return KNOCK
    if pile and with_top > now:
        return TAKE
    return DRAW


def rule_move(s: ThirtyOneState) -> int:
    """The rule agent's move for the player to act in a classic game (phase DRAW or DISCARD)."""
    return rule_discard(s) if s.phase == DISCARD else rule_turn(s)


def play_round(s: ThirtyOneState) -> None:
    """Play the rule heuristics for every seat until the round ends (a new deal or the end of the game)."""
    version = s.pub_version
    apply = s.apply_action
    while s.pub_version == version:
        apply(rule_discard(s) if s.phase == DISCARD else rule_turn(s) if s.phase == DRAW_PHASE else rule_move(s))


@cache
def _chance(mine: int, others: tuple[int, ...]) -> float:
    """``win_chance`` with ``others`` sorted and without zeros (the memo's key)."""
    if mine <= 0:
        return 0.0
    if not others:
        return 1.0
    total = _chance(mine - 1, others)
    for t in set(others):  # equal token counts lead to the same state: once, times how many hold it
        i = others.index(t)
        rest = others[:i] + ((t - 1,) if t > 1 else ()) + others[i + 1 :]
        total += others.count(t) * _chance(mine, tuple(sorted(rest)))
    return total / (1 + len(others))


def win_chance(mine: int, others: list[int] | tuple[int, ...]) -> float:
    """The chance that a player with ``mine`` tokens (lives + the free ride) outlasts the players with
    ``others`` tokens (0: out) if every round one player still in, each equally likely, loses one token."""
    return _chance(mine, tuple(sorted(t for t in others if t > 0)))
