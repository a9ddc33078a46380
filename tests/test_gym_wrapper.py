"""The single-agent Gymnasium view of both games."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import agents
from envs.gym import SingleAgentEnv, aec_env

ENV_OPTIONS = {"skat": {}, "thirtyone": {"num_players": 3, "lives": 1}}


@pytest.mark.parametrize("game", ["skat", "thirtyone"])
def test_passes_gymnasium_env_checker(game):
    # check_env steps with unmasked random actions, so illegal ones must end the episode, not raise.
    check_env(SingleAgentEnv(game, env_options=ENV_OPTIONS[game], illegal_reward=-1.0), skip_render_check=True)


@pytest.mark.parametrize("game", ["skat", "thirtyone"])
def test_the_readme_construction_passes_the_env_checker_with_illegal_reward(game):
    n = len(aec_env(game, **ENV_OPTIONS[game]).possible_agents)
    opponents = [agents.make("rule", game=game, seed=i) for i in range(n - 1)]
    check_env(SingleAgentEnv(game, opponents=opponents, env_options=ENV_OPTIONS[game], reward_scale=0.01,
                             illegal_reward=-1.0), skip_render_check=True)


@pytest.mark.parametrize("action", [3.7, "64", True, np.float64(64.0)])
def test_non_integer_actions_are_errors_even_with_illegal_reward(action):
    env = SingleAgentEnv("skat", illegal_reward=-1.0)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="is not an integer"):
        env.step(action)


@pytest.mark.parametrize("game", ["skat", "thirtyone"])
def test_episodes_follow_the_pettingzoo_rewards(game):
    n = len(aec_env(game, **ENV_OPTIONS[game]).possible_agents)
    opponents = [agents.make("rule", game=game, seed=i) for i in range(n - 1)]
    env = SingleAgentEnv(game, opponents=opponents, env_options=ENV_OPTIONS[game])
    rng = np.random.default_rng(0)
    seats = []
    env.reset(seed=0)
    for _episode in range(2 * n):
        obs, info = env.reset()
        seats.append(env.seats.index(env._agent))
        assert obs.shape == env.observation_space.shape and env.observation_space.contains(obs)
        total, done = 0.0, False
        while not done:
            legal = np.flatnonzero(env.action_masks())
            assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool)) and legal.size
            obs, reward, done, truncated, info = env.step(int(rng.choice(legal)))
            assert not truncated
            total += reward
        if game == "skat":  # the deal's tournament score of the agent's seat, paid at the end
            assert total == env.aec.infos[env._agent]["score"]
        else:  # a whole game: +1 for the winner, -1/(n-1) for the others
            assert total == pytest.approx(1.0) or total == pytest.approx(-1 / (n - 1))
    assert sorted(set(seats)) == list(range(n))  # the seat rotates through all positions


def test_fixed_seat_dict_observation_and_errors():
    env = SingleAgentEnv("skat", learner_seat=1, dict_observation=True, reward_scale=0.01)
    obs, _ = env.reset(seed=0)
    assert set(obs) == {"observation", "action_mask"} and env._agent == "player_1"
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="illegal action"):
        env.step(illegal)
    with pytest.raises(ValueError, match="one opponent per other seat"):
        SingleAgentEnv("skat", opponents=[agents.make("random", game="skat")])
    with pytest.raises(ValueError, match="learner_seat"):
        SingleAgentEnv("skat", learner_seat=3)
    with pytest.raises(ValueError, match="unknown game"):
        SingleAgentEnv("poker")


def test_reward_scale_and_seeded_reset_are_reproducible():
    def run(seed: int) -> list[float]:
        env = SingleAgentEnv("skat", reward_scale=0.01)
        env.reset(seed=seed)
        out, done = [], False
        while not done:
            _, reward, done, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            out.append(reward)
        return out

    assert run(4) == run(4)
    assert all(abs(r) <= 10 for r in run(4)) and any(run(4))  # tournament points / 100


def test_sb3_maskable_ppo_trains_on_it():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    env = SingleAgentEnv("thirtyone", env_options=ENV_OPTIONS["thirtyone"])
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=16, n_epochs=1, seed=0, device="cpu",
                                    policy_kwargs={"net_arch": [16]})
    model.learn(total_timesteps=64)
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]
