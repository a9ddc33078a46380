"""Four at the table: the dealer sits the deal out, Seeger-Fabian pays 30 to each other player."""

from __future__ import annotations

import random

import numpy as np
import pytest

from envs import skat_v0
from envs.skat.observation_x import LAYOUTS, TableView
from envs.skat.rules import DONE, SkatGame
from tests.skat_helpers import act

DEAL = (["CJ SJ HJ DJ CA CT CK CQ C9 C8", "SA ST SK SQ S9 S8 S7 HA HT HK", "HQ H9 H8 H7 DA DT DK DQ D9 D8"], "C7 D7")


def _same_course(seed: int, options: dict) -> tuple:
    """Play one random deal on the three- and the four-player table with the same actions."""
    three, four = SkatGame(**options), SkatGame(variant="four_player", **options)
    a, b = three.new_initial_state(seed), four.new_initial_state(seed)
    assert a.hands == b.hands
    rng = random.Random(seed)
    while a.phase != DONE:
        legal = a.legal_actions()
        assert b.legal_actions() == legal and a.current_player == b.current_player
        action = legal[rng.randrange(len(legal))]
        a.apply_action(action)
        b.apply_action(action)
    assert b.phase == DONE
    return a, b


@pytest.mark.parametrize("options", [{}, {"kontra": True, "ramsch": True}, {"scoring": "classic"}])
def test_the_three_active_players_play_a_three_handed_deal(options):
    for seed in range(40):
        a, b = _same_course(seed, options)
        assert len(b.scores) == 4 and b.points == a.points and b.outcome == a.outcome
        if a.outcome is not None and options.get("scoring") != "classic" and not a.outcome.won:
            # "40 points each to the defenders" at three, 30 to each other player at four (dealer too)
            d = a.declarer
            assert [a.scores[q] for q in range(3) if q != d] == [40, 40]
            assert [b.scores[q] for q in range(4) if q != d] == [30, 30, 30] and b.scores[d] == a.scores[d]
        else:  # a won game, a classic score, a Ramsch or a passed-in deal: the dealer scores nothing
            assert b.scores[:3] == a.scores and b.scores[3] == 0


def test_seeger_fabian_pays_30_at_four_in_a_scripted_loss():
    s = SkatGame(variant="four_player").state_from_deal(*DEAL)
    act(s, "bid 18", "pass", "pass", "hand", "declare NH")  # middlehand plays null hand with aces: lost
    while s.phase != DONE:
        s.apply_action(s.legal_actions()[0])
    assert s.outcome is not None and not s.outcome.won
    assert s.outcome.value == 35 and s.scores[1] == -2 * 35 - 50 and s.scores[0] == s.scores[2] == s.scores[3] == 30


def test_dealer_sits_out_and_rotates_over_four_seats():
    env = skat_v0.raw_env(variant="four_player")
    env.reset(seed=0)
    dealers, actors = [], set()
    for deal in range(8):
        if deal:
            env.reset()
        dealers.append(env.dealer)
        assert env.hand_of(f"player_{env.dealer}") == []
        assert env.position_of(f"player_{env.dealer}") == 3
        assert env.agent_at(0) == f"player_{(env.dealer + 1) % 4}"  # forehand sits left of the dealer
        assert env.agent_at(2) == f"player_{(env.dealer + 3) % 4}"  # the dealer's right hand neighbour: rearhand
        rng = np.random.default_rng(deal)
        while env.agents and not all(env.terminations.values()):
            agent = env.agent_selection
            assert agent != f"player_{env.dealer}", "the dealer never decides"
            actors.add(agent)
            obs = env.observe(agent)
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert dealers == [3, 0, 1, 2, 3, 0, 1, 2]


def test_the_dealers_observation_shows_only_public_things():
    env = skat_v0.raw_env(variant="four_player")
    env.reset(seed=1, options={"dealer": 0})
    view = TableView(env.observe("player_0")["observation"])
    assert view.layout is LAYOUTS["skat4"]
    assert view.one_hot("position") == 3 and view.one_hot("dealer") == 0
    assert view.plane("hand") == 0 and view.planes("open") == [0, 0, 0, 0]
    other = TableView(env.observe("player_1")["observation"])
    assert other.one_hot("position") == 0 and other.one_hot("dealer") == 3  # the dealer sits to its right
    assert other.plane("hand") == env.state.hands[0]


def test_a_chosen_deal_by_seat_with_the_dealer_empty():
    env = skat_v0.raw_env(variant="four_player")
    hands = ["", *DEAL[0]]
    env.reset(options={"deal": {"hands": hands, "skat": DEAL[1]}, "dealer": 0})
    assert env.state.hands[0] == SkatGame().state_from_deal(*DEAL).hands[0]
    with pytest.raises(ValueError, match="sits this deal out"):
        env.reset(options={"deal": {"hands": [DEAL[0][0], "", *DEAL[0][1:]], "skat": DEAL[1]}, "dealer": 0})
