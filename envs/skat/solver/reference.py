"""The readable reference: brute-force minimax over the rules core (``SkatState``), no pruning.

Every node is a real ``SkatState``: the legal cards and the trick winner come from the rules core
itself, so this is the oracle the compiled solver is tested against. A memo on (hands, trick,
leader) avoids solving the same sub-position twice (it changes nothing else). Use it on endgames
of a few tricks; it is far too slow for a whole deal.
"""

from __future__ import annotations

from envs.bitset import cards_of
from envs.skat import actions as A
from envs.skat.cards import NULL, POINTS
from envs.skat.rules import DONE, SkatState


def final_value(state: SkatState, solo: int, question: str | int = "exact") -> int | bool:
    """The measured quantity at the end of card play (a finished ``state``), for ``solo``."""
    game_null = state.contract is not None and state.contract.game == NULL
    if game_null:
        won = state.tricks_won[solo] == 0
        return int(won) if question == "exact" else won
    if question == "schwarz":
        return state.tricks_won[solo] == 10
    points = state.points[solo]
    if state.contract is not None:  # the skat counts for the declarer (Ramsch: already given to the last trick)
        points += sum(POINTS[c] for c in cards_of(state.skat))
    if question == "exact":
        return points
    threshold = {"win": 61, "schneider": 90}[question] if isinstance(question, str) else int(question)
    return points >= threshold


def minimax(state: SkatState, solo: int | None = None, question: str | int = "exact",
            memo: dict | None = None) -> int | bool:
    """The value of ``state`` (in card play) with best play: the solo player (default the declarer)
    maximises the measured quantity, the others minimise it; in Ramsch (no contract) the solo
    player minimises its own card points and the others maximise them."""
    if solo is None:
        solo = state.declarer
    if memo is None:
        memo = {}
    if state.phase == DONE:
        return final_value(state, solo, question)
    key = (tuple(state.hands), tuple(state.trick), state.leader, tuple(state.points), tuple(state.tricks_won))
    got = memo.get(key)
    if got is not None:
        return got
    maximizing = (state.current_player == solo) == (state.contract is not None)
    best = None
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        v = minimax(child, solo, question, memo)
        if best is None or (v > best if maximizing else v < best):
            best = v
    memo[key] = best
    return best


def move_values(state: SkatState, solo: int | None = None, question: str | int = "exact") -> dict[int, int | bool]:
    """The value of each legal card of the player to move."""
    memo: dict = {}
    out = {}
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        out[action - A.PLAY] = minimax(child, solo, question, memo)
    return out
