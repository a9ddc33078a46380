"""The Skat PettingZoo env: API conformance, seeding, deals, errors, observation encoder."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from envs import skat_v0
from envs.skat import actions as A
from envs.skat.observation import OBSERVATION_SIZE, observe

DEAL = {
    "hands": ["CJ SJ HJ DJ CA CT CK CQ C9 C8", "SA ST SK SQ S9 S8 S7 HA HT HK", "HQ H9 H8 H7 DA DT DK DQ D9 D8"],
    "skat": "C7 D7",
}


def random_episode(env, rng, checks=None):
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        if checks:
            checks(env, agent, obs)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("options", [{}, {"kontra": True, "ramsch": True, "scoring": "classic"}])
def test_pettingzoo_api(options):
    api_test(skat_v0.env(**options), num_cycles=1000)


def test_seed_and_render():
    seed_test(skat_v0.env, num_cycles=300)
    render_test(skat_v0.env)


def test_registry():
    env = pettingzoo.make("aec", "cards/skat-v0")
    env.reset(seed=1)
    assert env.agents == ["player_0", "player_1", "player_2"]


def test_spaces_identical_for_every_seat():
    env = skat_v0.env()
    spaces = [env.observation_space(a) for a in env.possible_agents]
    assert all(sp is spaces[0] for sp in spaces)
    assert env.action_space("player_0").n == A.NUM_ACTIONS
    assert env.observation_space("player_1")["observation"].shape == (OBSERVATION_SIZE,)


def test_fixed_deal_and_dealer_rotation():
    env = skat_v0.env()
    env.reset(seed=0, options={"deal": DEAL, "dealer": 2})
    raw = env.unwrapped
    assert raw.position_of("player_0") == 0 and "CJ" in raw.hand_of("player_0")
    assert env.agent_selection == "player_1"  # middlehand opens the auction
    dealers = []
    for _ in range(4):
        env.reset()
        dealers.append(env.unwrapped.dealer)
    assert dealers == [0, 1, 2, 0]  # rotates one seat per deal
    fixed = skat_v0.env(dealer=1)
    fixed.reset(seed=3)
    fixed.reset()
    assert fixed.unwrapped.dealer == 1


def test_different_seeds_give_different_deals_and_no_seed_continues():
    env = skat_v0.env()
    env.reset(seed=1)
    a = env.unwrapped.state.dealt
    env.reset(seed=2)
    b = env.unwrapped.state.dealt
    env.reset()
    c = env.unwrapped.state.dealt
    assert a != b and b != c


def test_rewards_are_scores_and_reach_every_agent():
    env = skat_v0.env()
    env.reset(seed=0, options={"deal": DEAL, "dealer": 2})
    script = ["pass", "pass", "bid 18", "hand", "declare CH"]
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        env.step(A.action_index(script.pop(0)) if script else int(np.flatnonzero(obs["action_mask"])[0]))
    state = env.unwrapped.state
    assert state.outcome.won
    assert totals["player_0"] == state.outcome.value + 50 and totals["player_1"] == 0
    assert env.unwrapped.episode_stats()["declarer_win"] == 1.0


def test_illegal_action_errors():
    raw = skat_v0.raw_env()
    raw.reset(seed=0)
    with pytest.raises(ValueError, match="illegal Skat action 'hold'"):
        raw.step(A.HOLD)
    with pytest.raises(ValueError, match="out of range"):
        raw.step(A.NUM_ACTIONS)
    wrapped = skat_v0.env()
    wrapped.reset(seed=0)
    agent = wrapped.agent_selection
    wrapped.step(A.HOLD)  # the classic wrapper ends the game at -1 for the offender
    assert wrapped.rewards[agent] == -1 and all(wrapped.terminations.values())
    with pytest.raises(AssertionError, match="action space"):
        w2 = skat_v0.env()
        w2.reset(seed=0)
        w2.step(-3)


def test_bad_options_and_deals():
    with pytest.raises(ValueError, match="unknown Skat env option"):
        skat_v0.env(seats=4)
    with pytest.raises(ValueError, match="scoring"):
        skat_v0.env(scoring="bierlachs")
    with pytest.raises(ValueError, match="dealer"):
        skat_v0.env(dealer=3)
    env = skat_v0.env()
    with pytest.raises(ValueError, match="deal"):
        env.reset(options={"deal": ["CJ"]})
    with pytest.raises(ValueError, match="each card once|given twice"):
        env.reset(options={"deal": {"hands": [DEAL["hands"][0]] * 3, "skat": "C7 D7"}})


def test_incremental_encoder_matches_reference():
    rng = np.random.default_rng(5)
    env = skat_v0.env(kontra=True, ramsch=True)

    def check(env, agent, obs):
        raw = env.unwrapped
        for other in env.possible_agents:
            expected = observe(raw.state, raw.position_of(other))
            np.testing.assert_array_equal(raw.observe(other)["observation"], expected)

    for seed in range(40):
        env.reset(seed=seed)
        random_episode(env, rng, check)


def test_mask_only_for_the_player_to_act():
    rng = np.random.default_rng(0)
    env = skat_v0.env()
    env.reset(seed=4)

    def check(env, agent, obs):
        assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].sum() > 0
        for other in env.agents:
            if other != agent:
                assert env.observe(other)["action_mask"].sum() == 0

    random_episode(env, rng, check)


def test_render_ansi_shows_symbols_and_auction():
    env = skat_v0.env(render_mode="ansi")
    env.reset(seed=0, options={"deal": DEAL, "dealer": 2})
    env.step(A.action_index("bid 18"))
    text = env.render()
    assert "♣J" in text and "auction: M:bid 18" in text


def test_ouvert_hand_is_shown_to_defenders():
    env = skat_v0.env()
    env.reset(seed=0, options={"deal": DEAL, "dealer": 2})
    for name in ["pass", "pass", "bid 18", "hand", "declare CHO"]:
        env.step(A.action_index(name))
    obs = env.observe("player_1")["observation"]
    open_plane = obs[9 * 32: 10 * 32]
    assert open_plane.sum() == 10 and open_plane[4] == 1.0  # CJ of the declarer
