"""Checkpoint files: weights_only format, round trips, refusals with clear messages, use as opponents."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

import agents
from agents import checkpoint
from agents.checkpoint import CheckpointError
from agents.neural import NeuralAgent
from envs.gym import aec_env
from train.config import load_config
from train.evaluate import evaluate
from train.opponents import OpponentPool
from train.rollout import RolloutSpec, RolloutWorker
from train.trainer import Trainer

ENV_OPTIONS = {"skat": {}, "thirtyone": {"num_players": 3, "lives": 1}}


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """An untrained but randomly initialised checkpoint (full and policy-only) per game."""
    root = tmp_path_factory.mktemp("ckpt")
    paths = {}
    for game, options in ENV_OPTIONS.items():
        cfg = load_config(overrides=[f"game={game}", "hidden=16,16", f"runs_dir={root}/runs",
                                     f"checkpoint_dir={root}", "run_name=r", "eval_opponents=[]"])
        cfg.env_options = dict(options)
        trainer = Trainer(cfg)
        paths[game] = trainer.save(root / f"{game}.pt")
        paths[game, "policy"] = trainer.save(root / f"{game}_policy.pt", full=False)
    return paths


def _observations(game: str, n: int = 30) -> list[dict[str, np.ndarray]]:
    """Observations of acting seats from a few random deals."""
    env, rng, out = aec_env(game, **ENV_OPTIONS[game]), np.random.default_rng(0), []
    env.reset(seed=1)
    while len(out) < n:
        if not env.agents:
            env.reset(seed=len(out))
        _, _, term, trunc, _ = env.last(observe=False)
        if term or trunc:
            env.step(None)
            continue
        obs = env.observe(env.agent_selection)
        out.append(obs)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out


def test_file_holds_only_plain_data(saved):
    data = torch.load(saved["skat"], weights_only=True)  # no pickled objects
    assert data["format"] == checkpoint.FORMAT
    meta = data["metadata"]
    assert meta["game"] == "skat" and meta["algorithm"] == "ppo" and meta["observation_version"] >= 1
    assert meta["network"]["kind"] == "policy" and meta["network"]["hidden"] == [16, 16]
    assert {"obs_size", "num_actions", "env_options", "project_version"} <= set(meta)
    assert set(data["learner"]) == {"network", "optimizer"}
    assert {"global_step", "update", "pool", "rng"} <= set(data["trainer"])
    assert isinstance(data["config"], dict) and data["config"]["game"] == "skat"
    assert "learner" not in torch.load(saved["skat", "policy"], weights_only=True)


@pytest.mark.parametrize("game", ["skat", "thirtyone"])
def test_round_trip_gives_identical_actions(saved, game):
    observations = _observations(game)
    for greedy in (True, False):
        first = agents.load(saved[game], game=game, greedy=greedy, seed=5)
        second = agents.make(str(saved[game, "policy"]), game=game, greedy=greedy, seed=5)
        assert first.game == game and isinstance(second, NeuralAgent)
        actions = first.act_batch(observations)
        assert actions == second.act_batch(observations)
        assert all(o["action_mask"][a] for o, a in zip(observations, actions, strict=True))
        assert [first.act(o) for o in observations[:5]] == [second.act(o) for o in observations[:5]]


@pytest.mark.parametrize("game", ["skat", "thirtyone"])
def test_checkpoint_plays_as_an_opponent(saved, game):
    result = evaluate(agents.make("random", game=game, seed=0), str(saved[game]), game, ENV_OPTIONS[game],
                      episodes=6, seed=0)
    assert result.episodes == 6
    env = aec_env(game, **ENV_OPTIONS[game])
    seat = env.possible_agents[0]
    obs_size, num_actions = env.observation_space(seat)["observation"].shape[0], env.action_space(seat).n
    spec = {"kind": "actor_critic", "obs_size": obs_size, "num_actions": num_actions, "hidden": [8],
            "activation": "tanh"}
    rollout = RolloutSpec(game, ENV_OPTIONS[game], 2, "ppo", spec, {**spec, "kind": "policy"}, 1, 5, 1.0, 0)
    worker = RolloutWorker(rollout)
    worker.sync(OpponentPool({str(saved[game]): 1.0}, 1, "uniform").plan(), {})
    _, episodes = worker.collect(0, 0, [0, 1])
    assert episodes and all(str(saved[game]) in e.players for e in episodes)


def test_wrong_game_is_refused(saved):
    with pytest.raises(CheckpointError, match="is for game 'skat', not 'thirtyone'"):
        agents.load(saved["skat"], game="thirtyone")
    with pytest.raises(CheckpointError, match="is for game 'thirtyone', not 'skat'"):
        agents.make(str(saved["thirtyone"]), game="skat")


def test_other_observation_encoding_is_refused(saved, tmp_path):
    data = torch.load(saved["skat"], weights_only=True)
    data["metadata"]["observation_version"] += 1
    path = tmp_path / "old.pt"
    torch.save(data, path)
    with pytest.raises(CheckpointError, match="observation encoding version"):
        agents.load(path)


def test_shape_mismatch_is_refused(saved, tmp_path):
    data = torch.load(saved["skat"], weights_only=True)
    data["metadata"]["obs_size"] += 1  # as if the env's encoding grew without a version bump
    path = tmp_path / "wide.pt"
    torch.save(data, path)
    with pytest.raises(CheckpointError, match="observation size"):
        evaluate(agents.load(path), "random", "skat", episodes=2)


@pytest.mark.parametrize("content, message", [
    (b"", "not a readable checkpoint"),
    (b"this is not a torch file", "not a readable checkpoint"),
])
def test_corrupt_files_are_refused(tmp_path, content, message):
    path = tmp_path / "bad.pt"
    path.write_bytes(content)
    with pytest.raises(CheckpointError, match=message):
        agents.load(path)


def test_truncated_and_foreign_files_are_refused(saved, tmp_path):
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(saved["skat"].read_bytes()[:5000])
    with pytest.raises(CheckpointError, match="not a readable checkpoint"):
        agents.load(truncated)
    foreign = tmp_path / "foreign.pt"
    torch.save({"weights": torch.zeros(3)}, foreign)
    with pytest.raises(CheckpointError, match="not a skat31-checkpoint file"):
        agents.load(foreign)
    with pytest.raises(CheckpointError, match="does not exist"):
        agents.load(tmp_path / "missing.pt")
    with pytest.raises(CheckpointError, match="cannot be resumed"):
        Trainer.resume(str(saved["skat", "policy"]))


def test_broken_weights_are_refused(saved, tmp_path):
    data = torch.load(saved["skat"], weights_only=True)
    data["metadata"]["network"]["hidden"] = [32, 32]
    path = tmp_path / "mismatch.pt"
    torch.save(data, path)
    with pytest.raises(CheckpointError, match="do not fit the stored network spec"):
        agents.load(path)


def test_write_is_atomic(saved, tmp_path, monkeypatch):
    path = tmp_path / "latest.pt"
    path.write_bytes(saved["skat"].read_bytes())
    before = path.read_bytes()

    def crash(*args, **kwargs):
        raise KeyboardInterrupt  # killed mid-write

    monkeypatch.setattr(torch, "save", crash)
    with pytest.raises(KeyboardInterrupt):
        checkpoint.save(path, {"game": "skat"}, {}, {})
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["latest.pt"]


def test_make_specs():
    for game in ("skat", "thirtyone"):
        assert agents.make("random", game=game).game == game
        assert agents.make("rule", game=game, seed=1).game == game
    with pytest.raises(ValueError, match="only exists inside a training run"):
        agents.make("self", game="skat")
    with pytest.raises(ValueError, match="unknown agent spec 'best'"):
        agents.make("best", game="skat")
    with pytest.raises(ValueError, match="unknown game"):
        agents.make("random", game="poker")
    with pytest.raises(ValueError, match="unknown algorithm 'dqn'"):
        agents.algorithm("dqn")


def test_greedy_mark_makes_the_main_policy_play_greedily(saved, tmp_path):
    data = torch.load(saved["skat", "policy"], weights_only=True)
    assert not agents.load(saved["skat", "policy"]).greedy
    data["metadata"]["greedy"] = True  # what the trainer writes into best.pt when eval_greedy is set
    path = tmp_path / "greedy.pt"
    torch.save(data, path)
    agent = agents.load(path)
    assert agent.greedy
    obs = _observations("skat", 10)
    log_probs = [agent.network.policy_logits(torch.from_numpy(o["observation"])[None]) for o in obs]
    expected = [int(torch.where(torch.from_numpy(o["action_mask"]).bool()[None], lp, -1e9).argmax())
                for o, lp in zip(obs, log_probs, strict=True)]
    assert agent.act_batch(obs) == expected
