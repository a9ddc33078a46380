"""Deep Monte-Carlo: returns, role routing, epsilon-greedy acting, learning, checkpoints and configs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

import agents
from agents.dmc import DMC, DMCConfig, RoleQNetwork, monte_carlo_returns
from agents.networks import build_network, network_spec
from envs.games import describe
from train.config import ConfigError, load_config
from train.trainer import Trainer

CONFIGS = Path(__file__).resolve().parent.parent / "configs"


def test_monte_carlo_returns_restart_at_each_trajectory():
    rewards = np.array([0.0, 0.0, 1.0, 0.0, -2.0], dtype=np.float32)
    done = np.array([False, False, True, False, True])
    assert monte_carlo_returns(rewards, done, 1.0).tolist() == [1.0, 1.0, 1.0, -2.0, -2.0]
    assert monte_carlo_returns(rewards, done, 0.5).tolist() == [0.25, 0.5, 1.0, -1.0, -2.0]


def _skat_observations(n: int, seed: int = 0) -> np.ndarray:
    env = describe("skat").raw_env()
    rng = np.random.default_rng(seed)
    rows = []
    while len(rows) < n:
        env.reset(seed=int(rng.integers(2**31)))
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            rows.append(obs["observation"])
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return np.stack(rows[:n])


def test_skat_roles_follow_the_declarer_relative_to_the_seat():
    obs = torch.from_numpy(_skat_observations(400))
    roles = describe("skat").role_of(obs)
    views = [describe("skat").decode(row.numpy()) for row in obs]
    expected = [0 if v.declarer < 0 else 1 + v.declarer for v in views]
    assert roles.tolist() == expected and set(expected) == {0, 1, 2, 3}


def test_each_role_has_its_own_network():
    torch.manual_seed(0)
    net = build_network(network_spec("q_roles", 391, 162, [16], "relu", game="skat"))
    obs = torch.from_numpy(_skat_observations(200))
    roles = describe("skat").role_of(obs)
    q = net.q_values(obs)
    for k in range(4):
        rows = roles == k
        assert torch.allclose(q[rows], net.roles[k](obs[rows]), atol=1e-6)
    assert RoleQNetwork.plays_greedy and agents.neural.NeuralAgent(net, "skat").greedy


def test_acting_is_greedy_but_explores_legal_actions():
    net = build_network(network_spec("q_roles", 8, 5, [4], "relu", game="thirtyone"))
    obs = np.random.default_rng(0).random((2000, 8), dtype=np.float32)
    mask = np.zeros((2000, 5), bool)
    mask[:, [1, 3]] = True
    greedy, _ = DMC.act(net, obs, mask, np.random.default_rng(1), epsilon=0.0)
    q = net.q_values(torch.from_numpy(obs)).detach().numpy()
    assert (greedy == np.where(q[:, 1] >= q[:, 3], 1, 3)).all()
    explored, _ = DMC.act(net, obs, mask, np.random.default_rng(1), epsilon=0.5)
    assert set(explored.tolist()) == {1, 3} and 0 < (explored != greedy).mean() < 0.5


def test_regression_learns_the_returns_of_each_action():
    spec = network_spec("q_roles", 4, 3, [32], "relu", game="thirtyone")
    torch.manual_seed(0)
    learner = DMC(spec, DMCConfig(learning_rate=3e-3, minibatch_size=256, update_epochs=4))
    rng = np.random.default_rng(0)
    obs = rng.random((2048, 4), dtype=np.float32)
    actions = rng.integers(0, 3, 2048)
    reward = (obs[:, 0] * (actions == 0) - obs[:, 1] * (actions == 1)).astype(np.float32)
    batch = {"obs": obs, "mask": np.ones((2048, 3), bool), "action": actions, "reward": reward,
             "done": np.ones(2048, bool)}
    first = learner.update(batch, 0.0, rng)["losses/value_loss"]
    for _ in range(20):
        last = learner.update(batch, 0.0, rng)["losses/value_loss"]
    assert last < 0.2 * first


def test_dmc_trains_saves_and_loads_as_a_greedy_agent(tmp_path):
    cfg = load_config(CONFIGS / "thirtyone_dmc.yaml", [
        "total_timesteps=600", "num_envs=4", "num_steps=16", "num_workers=1", "hidden=16", "eval_every=0",
        "eval_episodes=4", "env_options={num_players: 2, lives: 1}", "learner_seats=2", "progress=false",
        f"runs_dir={tmp_path}/runs", f"checkpoint_dir={tmp_path}/ck", "run_name=dmc"])
    trainer = Trainer(cfg)
    trainer.train()
    bot = agents.load(tmp_path / "ck" / "dmc" / "latest.pt")
    assert bot.greedy and bot.metadata["algorithm"] == "dmc"
    resumed = Trainer.resume(str(tmp_path / "ck" / "dmc" / "latest.pt"))
    for key, value in trainer.learner.network.state_dict().items():
        assert torch.equal(value, resumed.learner.network.state_dict()[key])


@pytest.mark.parametrize("name", ["skat_dmc.yaml", "thirtyone_dmc.yaml"])
def test_dmc_configs_load(name):
    assert load_config(CONFIGS / name).algorithm == "dmc"


def test_dmc_config_ranges_are_checked():
    with pytest.raises(ConfigError, match="dmc.epsilon"):
        load_config(overrides=["algorithm=dmc", "dmc.epsilon=2"])
