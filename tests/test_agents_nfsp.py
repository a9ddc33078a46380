"""NFSP: masked best response and average policy, reservoir sampling, checkpoints, resume, config."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

import agents
from agents import checkpoint
from agents.networks import network_spec
from agents.neural import NeuralAgent
from agents.nfsp import NFSP, NFSPConfig
from agents.nfsp_buffers import ReplayBuffer, ReservoirBuffer
from envs.gym import aec_env
from train.__main__ import main
from train.config import ConfigError, load_config
from train.evaluate import evaluate
from train.opponents import OpponentPool
from train.rollout import RolloutSpec, RolloutWorker
from train.trainer import Trainer

GAME_OPTIONS = {"skat": {}, "thirtyone": {"num_players": 3, "lives": 1}}
CONFIGS = Path(__file__).resolve().parent.parent / "configs"
# the shipped configs without their warm start
SCRATCH = ["pretrain.teacher=", "pretrain.copy_teacher=false", "nfsp.demo_weight=0", "nfsp.demo_reservoir=0",
           "nfsp.anchor_weight=0"]


def _spec(game: str, hidden: list[int] | None = None) -> dict:
    env = aec_env(game, **GAME_OPTIONS[game])
    seat = env.possible_agents[0]
    return network_spec("nfsp", env.observation_space(seat)["observation"].shape[0], env.action_space(seat).n,
                        hidden or [32, 32], "relu")


def tiny(tmp_path, game: str, *overrides: str) -> list[str]:
    options = "{}" if game == "skat" else "{num_players: 3, lives: 1}"
    return [
        "algorithm=nfsp", f"game={game}", f"env_options={options}", "hidden=16", "num_envs=4", "num_steps=6",
        "num_workers=1", "rollout_chunks=2", "total_timesteps=80", "eval_every=1", "eval_episodes=6",
        "checkpoint_every=1", "snapshot_every=1", "pool_size=2", "opponents=self:1,snapshot:1,random:1,rule:1",
        "progress=false", "reward_scale=0.01", f"runs_dir={tmp_path}/runs", f"checkpoint_dir={tmp_path}/ckpt",
        "run_name=t", "best_metric=eval/win_rate_vs_rule", "nfsp.eta=0.5", "nfsp.learning_starts=8",
        "nfsp.learn_every=4", "nfsp.batch_size=16", "nfsp.target_update_every=3", "nfsp.epsilon_start=0.5",
        *overrides,
    ]


@pytest.mark.parametrize("game", ["skat", "thirtyone"])
def test_nfsp_updates_change_both_networks_and_respect_masks(game):
    torch.manual_seed(0)
    torch.set_num_threads(1)  # tiny batches: threads only contend
    spec = _spec(game)
    learner = NFSP(spec, NFSPConfig(eta=0.5, learning_starts=16, learn_every=4, batch_size=16, epsilon_start=0.5,
                                    target_update_every=5))
    worker = RolloutWorker(RolloutSpec(game, GAME_OPTIONS[game], 4, "nfsp", spec, learner.policy()[0], learner_seats=1,
                                       num_steps=12, reward_scale=0.01, seed=0))
    worker.network.load_state_dict(learner.network.state_dict())
    before = {k: v.clone() for k, v in learner.network.state_dict().items()}
    worker.sync(OpponentPool({"random": 1.0, "self": 1.0}, 4, "uniform").plan(), {})
    rng = np.random.default_rng(0)
    modes = []
    for update in range(3):
        batch, episodes = worker.collect(update, 0, [0, 1, 2, 3])
        assert len(batch["action"]) >= 4 * 12 and episodes and batch["done"][-1]
        assert batch["mask"][np.arange(len(batch["action"])), batch["action"]].all(), "picked a masked action"
        # One mode per trajectory (deal x seat): constant between done marks.
        starts = np.r_[0, np.flatnonzero(batch["done"])[:-1] + 1]
        for s, e in zip(starts, np.flatnonzero(batch["done"]) + 1, strict=True):
            assert len(set(batch["best_response"][s:e].tolist())) == 1
            modes.append(bool(batch["best_response"][s]))
        metrics = learner.update(batch, progress=update / 3, rng=rng)
        assert all(np.isfinite(v) for v in metrics.values())
        worker.network.load_state_dict(learner.network.state_dict())
    assert True in modes and False in modes  # eta = 0.5: both modes were drawn
    assert {"losses/rl_loss", "losses/sl_loss", "charts/reservoir_size", "charts/best_response_fraction",
            "charts/epsilon"} <= set(metrics)
    assert learner.rl_steps > 0 and learner.sl_steps > 0
    after = learner.network.state_dict()
    assert any(not torch.equal(before[k], after[k]) for k in before if k.startswith("actor.")), "average policy"
    assert any(not torch.equal(before[k], after[k]) for k in before if k.startswith("q.")), "best response"


def test_best_response_never_chooses_nor_bootstraps_a_masked_action():
    spec = network_spec("nfsp", 6, 5, [8], "relu")
    learner = NFSP(spec, NFSPConfig(rl_learning_rate=0.0, learning_starts=1, batch_size=32, gamma=1.0))
    for q in (learner.network.q, learner.target_q):  # Q(s, a) = bias[a]: illegal actions look best
        torch.nn.init.zeros_(q[-1].weight)
        q[-1].bias.data = torch.tensor([0.0, 1000.0, 0.0, 900.0, 0.0])
    rng = np.random.default_rng(0)
    obs = rng.random((200, 6), dtype=np.float32)
    mask = rng.random((200, 5)) < 0.5
    mask[:, [1, 3]] = False
    mask[:, 0] = True
    for epsilon in (0.0, 1.0):
        learner.network.epsilon.fill_(epsilon)
        actions, extra = NFSP.act(learner.network, obs, mask, rng, np.ones(200, bool))
        assert mask[np.arange(200), actions].all() and extra["best_response"].all()
    actions, _ = NFSP.act(learner.network, obs, mask, rng)  # the average policy
    assert mask[np.arange(200), actions].all()
    # Two-step trajectories: action 0, reward 0, then a terminal step; the next state has only action 0 legal.
    done = np.tile([False, True], 100)
    learner.replay.add(obs, mask, np.zeros(200, np.int64), np.zeros(200, np.float32), done)
    loss, _ = learner._rl_step(rng)
    assert loss < 1.0  # bootstrapping Q(next, 1) = 1000 would give a loss of about 500


def test_reservoir_keeps_a_uniform_sample_within_its_bound():
    capacity, stream, trials = 50, 1000, 300
    kept = np.zeros(stream)
    for trial in range(trials):
        rng = np.random.default_rng(trial)
        buffer = ReservoirBuffer(capacity, 1, 2)
        for start in range(0, stream, 37):  # uneven batches
            ids = np.arange(start, min(start + 37, stream))
            buffer.add(ids[:, None].astype(np.float32), np.ones((len(ids), 2), bool), ids, rng)
            assert buffer.size == min(ids[-1] + 1, capacity) and buffer.seen == ids[-1] + 1
        stored = buffer.action[: buffer.size]
        assert len(set(stored.tolist())) == capacity  # no item twice
        assert np.array_equal(buffer.obs[: buffer.size, 0].astype(np.int64), stored)
        kept[stored] += 1
    rate = kept / trials  # every item kept with probability capacity / stream = 0.05
    assert abs(rate[:100].mean() - 0.05) < 0.01 and abs(rate[-100:].mean() - 0.05) < 0.01
    assert abs(rate[:500].mean() - rate[500:].mean()) < 0.006


def test_replay_buffer_wraps_and_keeps_successors():
    buffer = ReplayBuffer(7, 1, 2)
    rng = np.random.default_rng(0)
    for start in range(0, 30, 5):  # trajectories of 5 steps
        ids = np.arange(start, start + 5)
        buffer.add(ids[:, None].astype(np.float32), np.ones((5, 2), bool), ids, np.zeros(5, np.float32),
                   np.arange(5) == 4)
        assert buffer.size == min(start + 5, 7)
    b = buffer.sample(200, rng)
    nonterminal = ~b["done"]
    assert torch.equal(b["next_obs"][nonterminal, 0], b["obs"][nonterminal, 0] + 1)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    root = tmp_path_factory.mktemp("nfsp")
    out = {}
    for game in ("skat", "thirtyone"):
        trainer = Trainer(load_config(overrides=tiny(root / game, game)))
        trainer.train()
        out[game] = trainer
    return out


@pytest.mark.parametrize("game", ["skat", "thirtyone"])
def test_checkpoint_round_trip_and_use_as_opponent(trained, game, tmp_path):
    trainer = trained[game]
    path = trainer.save(tmp_path / "policy.pt", full=False)
    data = torch.load(path, weights_only=True)
    assert data["metadata"]["algorithm"] == "nfsp" and data["metadata"]["policy_name"] == "average"
    assert data["metadata"]["network"]["kind"] == "policy" and "learner" not in data
    assert set(data["policies"]) == {"best_response"}

    env = aec_env(game, **GAME_OPTIONS[game])
    obs, rng = [], np.random.default_rng(0)
    env.reset(seed=3)
    while len(obs) < 20:
        if not env.agents:
            env.reset(seed=len(obs))
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            env.step(None)
            continue
        obs.append(env.observe(env.agent_selection))
        env.step(int(rng.choice(np.flatnonzero(obs[-1]["action_mask"]))))
    live = NeuralAgent(trainer.learner.network, game, seed=5)
    loaded = agents.load(path, game=game, seed=5)
    assert agents.load(path, policy="average", seed=5).act_batch(obs) == live.act_batch(obs) == loaded.act_batch(obs)
    best = agents.make(f"{path}#best_response", game=game)
    assert best.greedy
    o = np.stack([x["observation"] for x in obs]).astype(np.float32)
    m = torch.from_numpy(np.stack([x["action_mask"] for x in obs]).astype(bool))
    q = trainer.learner.network.q_values(torch.from_numpy(o)).masked_fill(~m, -1e9)
    assert best.act_batch(obs) == q.argmax(1).tolist()
    with pytest.raises(checkpoint.CheckpointError, match="no policy named 'nope'"):
        agents.load(path, policy="nope")

    for spec in (str(path), f"{path}#best_response"):
        result = evaluate(agents.make("random", game=game, seed=1), spec, game, GAME_OPTIONS[game], episodes=6)
        assert result.episodes == 6
    cfg = load_config(overrides=tiny(tmp_path, game, f"opponents={path}#best_response:1,{path}:1", "algorithm=ppo",
                                     "total_timesteps=1", "eval_opponents=[]"))
    assert Trainer(cfg).train() == {}  # an NFSP checkpoint seats a PPO run's opponents


def test_resume_continues_exactly_with_buffers(tmp_path):
    straight = Trainer(load_config(overrides=tiny(tmp_path / "a", "skat", "total_timesteps=100",
                                                  "nfsp.save_buffers=true")))
    straight.train()
    first = Trainer(load_config(overrides=tiny(tmp_path / "b", "skat", "total_timesteps=30", "nfsp.save_buffers=true")))
    first.train()
    latest = tmp_path / "b" / "ckpt" / "t" / "latest.pt"
    assert main(["--resume", str(latest), "--set", "total_timesteps=100"]) == 0
    resumed = Trainer.resume(str(latest))
    assert (resumed.update, resumed.global_step, resumed.episodes) == (
        straight.update, straight.global_step, straight.episodes)
    a, b = straight.learner, resumed.learner
    assert (a.rl_steps, a.sl_steps, a.pending, a.reservoir.seen, a.replay.size) == (
        b.rl_steps, b.sl_steps, b.pending, b.reservoir.seen, b.replay.size)
    for key, value in a.state_dict()["network"].items():
        assert torch.equal(value, b.network.state_dict()[key]), key
    for key, value in a.target_q.state_dict().items():
        assert torch.equal(value, b.target_q.state_dict()[key]), key
    assert resumed.rng.bit_generator.state == straight.rng.bit_generator.state


def test_resume_without_buffers_keeps_counters(tmp_path):
    first = Trainer(load_config(overrides=tiny(tmp_path, "skat", "total_timesteps=60")))
    first.train()
    state = torch.load(tmp_path / "ckpt" / "t" / "latest.pt", weights_only=True)["learner"]
    assert "obs" not in state["replay"] and state["reservoir"]["seen"] == 0  # buffers are left out by default
    resumed = Trainer.resume(str(tmp_path / "ckpt" / "t" / "latest.pt"), ["total_timesteps=200"])
    assert (resumed.learner.rl_steps, resumed.learner.sl_steps, resumed.update) == (
        first.learner.rl_steps, first.learner.sl_steps, first.update)
    assert float(resumed.learner.network.epsilon) == float(first.learner.network.epsilon)
    resumed.train()
    assert resumed.update > first.update and resumed.learner.replay.size > 0


def _moved_from_start(anchor_weight: float) -> tuple[float, NFSP]:
    """Total variation between the average policy before and after 60 SL steps on moves it never plays."""
    torch.manual_seed(0)
    learner = NFSP(network_spec("nfsp", 6, 5, [16], "tanh"),
                   NFSPConfig(anchor_weight=anchor_weight, learning_starts=1, learn_every=1, batch_size=32,
                              sl_learning_rate=0.01))
    rng = np.random.default_rng(0)
    obs, mask = rng.random((60, 6), dtype=np.float32), np.ones((60, 5), bool)
    start = torch.softmax(learner.network.policy_logits(torch.from_numpy(obs)), 1).detach()
    learner.update({"obs": obs, "mask": mask, "action": np.full(60, 4), "reward": np.zeros(60, np.float32),
                    "done": np.ones(60, bool), "best_response": np.ones(60, bool)}, 0.5, rng)
    after = torch.softmax(learner.network.policy_logits(torch.from_numpy(obs)), 1).detach()
    return 0.5 * float((after - start).abs().sum(1).mean()), learner


def test_anchor_keeps_the_average_policy_near_its_start_and_survives_resume():
    free, _ = _moved_from_start(0.0)
    anchored, learner = _moved_from_start(10.0)
    assert free > 0.5 and anchored < free / 3, (free, anchored)
    assert learner.anchor is not None
    copy_ = NFSP(network_spec("nfsp", 6, 5, [16], "tanh"), NFSPConfig(anchor_weight=10.0))
    copy_.load_state_dict(learner.state_dict())  # the anchor is the warm start, not the policy resumed
    for a, b in zip(copy_.anchor.parameters(), learner.anchor.parameters(), strict=True):
        assert torch.equal(a, b)
    assert not torch.equal(copy_.anchor[0].weight, copy_.network.actor[0].weight)


def test_config_section_and_errors():
    for name in ("skat_nfsp.yaml", "thirtyone_nfsp.yaml"):
        cfg = load_config(CONFIGS / name)
        assert cfg.algorithm == "nfsp" and cfg.game == name.split("_")[0]
    cfg = load_config(overrides=["algorithm=nfsp", "nfsp.eta=0.2", "nfsp.save_buffers=true"])
    assert cfg.nfsp.eta == 0.2 and cfg.nfsp.save_buffers and cfg.to_dict()["nfsp"]["eta"] == 0.2
    with pytest.raises(ConfigError, match=r"unknown config key 'nfsp.anticipatory'.*valid keys of nfsp:.*eta"):
        load_config(overrides=["nfsp.anticipatory=0.1"])
    with pytest.raises(ConfigError, match="nfsp.eta"):
        load_config(overrides=["nfsp.eta=1.5"])
    with pytest.raises(ConfigError, match="nfsp.demo_weight"):
        load_config(overrides=["algorithm=nfsp", "nfsp.demo_weight=-1"])
    with pytest.raises(ConfigError, match="nfsp.demo_weight.*needs pretrain.teacher"):
        load_config(CONFIGS / "thirtyone_nfsp.yaml", ["pretrain.teacher="])
    with pytest.raises(ConfigError, match="nfsp.demo_reservoir.*needs pretrain.teacher"):
        load_config(overrides=["algorithm=nfsp", "nfsp.demo_reservoir=10"])
    with pytest.raises(ConfigError, match="nfsp.demo_reservoir"):
        load_config(overrides=["algorithm=nfsp", "pretrain.teacher=rule", "nfsp.demo_reservoir=-1"])
    with pytest.raises(ConfigError, match="nfsp.anchor_weight.*needs pretrain.teacher"):
        load_config(overrides=["algorithm=nfsp", "nfsp.anchor_weight=1"])
    with pytest.raises(ConfigError, match="nfsp.anchor_weight"):
        load_config(overrides=["algorithm=nfsp", "pretrain.teacher=rule", "nfsp.anchor_weight=-1"])
    for name in ("skat_nfsp.yaml", "thirtyone_nfsp.yaml"):
        scratch = load_config(CONFIGS / name, SCRATCH)
        assert scratch.nfsp.demo_weight == 0 and scratch.nfsp.demo_reservoir == 0 and not scratch.pretrain.teacher
    with pytest.raises(ConfigError, match="pretrain.q_margin"):
        load_config(overrides=["algorithm=nfsp", "pretrain.teacher=rule", "pretrain.q_margin=-0.1"])
    with pytest.raises(ConfigError, match="neither random"):
        load_config(overrides=["opponents=missing.pt#best_response:1"])
