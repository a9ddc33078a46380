"""Two players: the dummy hand (unused), Strohmann (played by the defender, face up), Oma (a face-down stack)."""

from __future__ import annotations

import random

import numpy as np

from envs import skat_v0
from envs.skat import actions as A
from envs.skat.cards import POINTS, card, cards_of
from envs.skat.observation_x import TableView
from envs.skat.rules import DONE, PLAY, SkatGame
from tests.skat_helpers import act

HANDS = ["CJ SJ HJ DJ CA CT CK CQ C9 C8", "SA ST SK SQ S9 S8 S7 HA HT HK"]
DUMMY = "HQ H9 H8 H7 DA DT DK DQ D9 D8"
SKAT = "C7 D7"


def reset(env, dealer=1):
    env.reset(options={"deal": {"hands": HANDS, "dummy": DUMMY, "skat": SKAT}, "dealer": dealer})


def test_strohmann_dummy_is_face_up_after_the_declaration_and_played_by_the_defender():
    env = skat_v0.raw_env(variant="strohmann")
    reset(env)
    assert env.position_of("player_0") == 0 and env.position_of("player_1") == 1  # non-dealer forehand
    assert env.agent_selection == "player_1"  # middlehand (the dealer) calls
    dummy = env.state.hands[2]
    assert TableView(env.observe("player_0")["observation"]).planes("open")[2] == 0
    env.step(A.action_index("pass"))  # middlehand passes; the dummy (rearhand) passes by itself
    assert env.agent_selection == "player_0" and env.state.stage == 3
    for name in ("bid 18", "hand", "declare CH"):
        env.step(A.action_index(name))
    for agent in env.possible_agents:  # "visible in both observations" once declared
        assert TableView(env.observe(agent)["observation"]).planes("open")[2] == dummy
    env.step(A.action_index("play CJ"))  # forehand leads
    assert env.agent_selection == "player_1"
    env.step(A.action_index("play SA"))
    assert env.state.current_player == 2 and env.agent_selection == "player_1"  # the defender plays the dummy
    view = TableView(env.observe("player_1")["observation"])
    assert view.one_hot("to_act") == 2
    assert env.observe("player_0")["action_mask"].sum() == 0


def test_oma_plays_its_stack_in_dealing_order_and_need_not_follow():
    s = SkatGame(variant="oma").state_from_deal([*HANDS, "DA HQ H9 H8 H7 DT DK DQ D9 D8"], SKAT)
    act(s, "pass", "bid 18", "hand", "declare CH")  # middlehand passes, forehand plays
    act(s, "play CJ", "play SA")
    assert s.trick == [] and card("DA") in s.last_trick  # Oma threw DA on a trump lead: it need not follow
    assert s.history[-1] == (2, A.play_action(card("DA")))
    while s.phase != DONE:
        assert s.current_player != 2
        s.apply_action(s.legal_actions()[0])
    stack = [A.card_of_play(a) for p, a in s.history if p == 2 and a != A.PASS]
    assert stack == [card(n) for n in "DA HQ H9 H8 H7 DT DK DQ D9 D8".split()]


def test_the_dummy_hand_is_not_used_and_counts_for_the_defender():
    for seed in range(30):
        s = SkatGame(variant="dummy").new_initial_state(seed)
        dummy = s.hands[2]
        rng = random.Random(seed)
        while s.phase != DONE:
            if s.phase == PLAY:
                assert s.current_player in (0, 1) and len(s.trick) < 2
            s.apply_action(s.legal_actions()[rng.randrange(len(s.legal_actions()))])
        assert s.hands[2] == dummy and s.played[2] == 0
        if s.outcome is not None and s.trick_count == 10:
            d = s.declarer
            defender_points = 120 - s.outcome.declarer_points
            assert defender_points == s.points[1 - d] + sum(POINTS[c] for c in cards_of(dummy))


def test_two_seats_get_the_two_scores():
    env = skat_v0.env(variant="strohmann", kontra=True)
    rng = np.random.default_rng(0)
    for seed in range(10):
        env.reset(seed=seed)
        got = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            got[agent] += reward
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        st = env.unwrapped.state
        if st.outcome is not None:
            d = env.unwrapped.table.seat_of(st.declarer, env.unwrapped.dealer)
            assert got[f"player_{d}"] == st.scores[st.declarer]
            assert got[f"player_{1 - d}"] == (0 if st.outcome.won else 40)
