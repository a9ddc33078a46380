"""The double-dummy solver against brute-force minimax over the rules core (envs.skat.solver.reference)."""

from __future__ import annotations

import os
import random

import pytest

from envs.skat import actions as A
from envs.skat.cards import CLUBS, GRAND, NULL, SPADES, card, parse_cards
from envs.skat.rules import PLAY, SkatGame, SkatState
from envs.skat.solver import Position, Solver
from envs.skat.solver import reference as R

LABELS = ("C", "S", "H", "D", "G", "N", "NO", "R")  # R: Ramsch


def endgame(rng: random.Random, label: str, tricks_left: int, in_trick: int) -> SkatState:
    """A random deal declared as ``label`` and played at random until ``tricks_left`` tricks remain,
    ``in_trick`` cards already in the current trick."""
    state = SkatGame(ramsch=True).new_initial_state(rng.randrange(2**31))
    state.phase = PLAY
    if label != "R":
        state.declarer = rng.randrange(3)
        state.contract_index = A.CONTRACT_BY_LABEL[label]
        state.contract = A.CONTRACTS[state.contract_index]
        state.bid = 18
    state.play_game = state.contract.game if label != "R" else GRAND  # what _start_play sets
    state.current_player = state.leader = rng.randrange(3)
    target = (10 - tricks_left) * 3 + in_trick
    while len(state.history) < target and state.phase == PLAY:
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    return state


def _cases(n: int, seed: int, sizes: tuple[int, ...]):
    rng = random.Random(seed)
    made = 0
    while made < n:
        label = LABELS[made % len(LABELS)]
        state = endgame(rng, label, rng.choice(sizes), rng.randrange(3))
        if state.phase != PLAY:
            continue  # a null game already lost
        made += 1
        yield label, state, (rng.randrange(3) if label == "R" else None)


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver()


def _check_values(solver: Solver, label: str, state: SkatState, solo: int | None, rng: random.Random) -> None:
    """The exact value against brute force; the thresholds against the brute-force value (a threshold
    question is a monotone function of the card points, so its minimax is that of the points)."""
    pos = Position.from_state(state, solo)
    exact = int(R.minimax(state, solo, "exact"))
    assert int(solver.value(pos, "exact")) == exact, (label, str(pos))
    if label in ("R", "N", "NO"):
        assert int(solver.value(pos, "win")) == (exact if label != "R" else int(exact >= 61)), (label, str(pos))
        return
    for q, t in (("win", 61), ("schneider", 90), (rng.randrange(20, 100), None)):
        assert solver.value(pos, q) == (exact >= (t or q)), (label, q, str(pos))


def test_values_equal_brute_force(solver: Solver) -> None:
    """2,000 random 3-trick and 160 4-trick endgames of every game type (Ramsch included), every question."""
    rng = random.Random(7)
    for label, state, solo in _cases(2000, 1, (3,)):
        _check_values(solver, label, state, solo, rng)
    for label, state, solo in _cases(160, 2, (4,)):
        _check_values(solver, label, state, solo, rng)


def test_schwarz_equals_brute_force(solver: Solver) -> None:
    for label, state, solo in _cases(400, 3, (3,)):
        if label in ("R", "N", "NO"):
            continue
        pos = Position.from_state(state, solo)
        assert solver.value(pos, "schwarz") == R.minimax(state, solo, "schwarz"), str(pos)


def test_move_values_and_best_moves(solver: Solver) -> None:
    """Every legal card's value equals brute force; the best cards are legal and achieve the value."""
    for i, (label, state, solo) in enumerate(_cases(240, 4, (3, 3, 4))):
        pos = Position.from_state(state, solo)
        question = "exact" if label in ("R", "N", "NO") or i % 2 else "win"
        ref = R.move_values(state, solo, question)
        got = solver.move_values(pos, question)
        assert {c: int(v) for c, v in got.items()} == {c: int(v) for c, v in ref.items()}, (label, str(pos))
        answer = solver.solve(pos, question)
        legal = {a - A.PLAY for a in state.legal_actions()}
        assert answer.best and set(answer.best) <= legal
        assert all(int(ref[c]) == int(answer.value) for c in answer.best)


def test_five_trick_endgames(solver: Solver) -> None:
    """A few 5-trick endgames here; ``SKAT_SOLVER_SWEEP=500`` runs that many (about 0.5 s each)."""
    n = int(os.environ.get("SKAT_SOLVER_SWEEP", "8"))
    for label, state, solo in _cases(n, 5, (5,)):
        pos = Position.from_state(state, solo)
        assert int(solver.value(pos, "exact")) == int(R.minimax(state, solo, "exact")), (label, str(pos))


def test_constructed_positions(solver: Solver) -> None:
    # Grand, declarer forehand holds all four jacks and the four aces with tens: every trick.
    hands = (parse_cards("CJ SJ HJ DJ CA CT SA ST HA HT"), parse_cards("C7 C8 C9 CQ CK S7 S8 S9 SQ SK"),
             parse_cards("H7 H8 H9 HQ HK D7 D8 D9 DQ DK"))
    pos = Position(GRAND, hands, solo=0, skat=parse_cards("DA DT"))
    assert solver.value(pos, "schwarz") is True
    assert solver.value(pos, "exact") == 120
    # Null: the declarer holds the lowest card of each suit in a one-card ending: it cannot be forced to win.
    pos = Position(NULL, (1 << card("C7"), 1 << card("CA"), 1 << card("CK")), solo=0, leader=1)
    assert solver.value(pos, "win") is True
    pos = Position(NULL, (1 << card("CA"), 1 << card("C7"), 1 << card("C8")), solo=0, leader=1)
    assert solver.value(pos, "win") is False


def test_from_state_and_errors() -> None:
    state = SkatGame().new_initial_state(3)
    with pytest.raises(ValueError, match="not in card play"):
        Position.from_state(state)
    with pytest.raises(ValueError, match="twice"):
        Position(CLUBS, (0b11, 0b10, 0b100), solo=0)
    with pytest.raises(ValueError, match="game type"):
        Position(7, (1, 2, 4), solo=0)
    with pytest.raises(ValueError, match="do not fit"):
        Position(SPADES, (0b11, 0b100, 0b1000), solo=0)
    with pytest.raises(ValueError, match="unknown question"):
        Solver().move_values(Position(SPADES, (1, 2, 4), solo=0), "maybe")
