"""Any PettingZoo AEC env with action masks, named by its module, through the whole path: config,
trainer (both algorithms), checkpoints, agents, evaluation CLI. ``tests.nim_aec`` needs nothing
beyond PettingZoo; PettingZoo's own classic envs run where their extra is installed."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import agents
from agents import checkpoint
from arena import env_shape
from envs.games import describe
from train.config import ConfigError, load_config
from train.evaluation.cli import main as evaluate_main
from train.trainer import Trainer

NIM = "tests.nim_aec"
LEDUC = "pettingzoo.classic.leduc_holdem_v4"
pytestmark = pytest.mark.filterwarnings("ignore:The old environment creation API:DeprecationWarning")
HAS_CLASSIC = all(importlib.util.find_spec(m) is not None for m in ("rlcard", "pygame"))
needs_classic = pytest.mark.skipif(not HAS_CLASSIC, reason="PettingZoo's classic envs need its classic extra "
                                                           "(pip install 'pettingzoo[classic]'): rlcard, pygame")


def tiny(tmp_path, game: str, algorithm: str, *overrides: str) -> list[str]:
    return [f"game={game}", "env_options={}", f"algorithm={algorithm}", "hidden=16", "num_envs=4", "num_steps=8",
            "num_workers=1", "total_timesteps=200", "eval_every=2", "eval_episodes=10", "eval_opponents=random",
            "best_metric=eval/mean_score_vs_random", "opponents=self:1,snapshot:1,random:1", "snapshot_every=1",
            "checkpoint_every=2", "progress=false", f"runs_dir={tmp_path}/runs", f"checkpoint_dir={tmp_path}/ckpt",
            "run_name=t", "nfsp.learning_starts=16", "nfsp.batch_size=8", "nfsp.learn_every=4", *overrides]


def test_a_module_name_is_a_game_and_its_observation_is_flattened():
    env = describe(NIM).raw_env()
    assert env_shape(env) == (16, 3)  # a 2 x 8 int8 observation
    assert describe(NIM).num_seats({}) == 2 and describe(NIM).rule_agent is None
    agent = agents.make("random", game=NIM, seed=1)
    env.reset(seed=3)
    assert agent.act(env.observe(env.agent_selection)) in (0, 1, 2)


@pytest.mark.parametrize(("algorithm", "extra"), [
    ("nfsp", []),
    ("ppo", ["pretrain.teacher=random", "pretrain.episodes=30", "pretrain.epochs=1"]),  # a warm start too
])
def test_training_checkpoints_and_evaluation_on_a_foreign_env(tmp_path, algorithm, extra, capsys):
    trainer = Trainer(load_config(overrides=tiny(tmp_path, NIM, algorithm, *extra)))
    results = trainer.train()
    assert trainer.global_step >= 200 and "eval/mean_score_vs_random" in results
    best = tmp_path / "ckpt" / "t" / "best.pt"
    meta = checkpoint.load(best, game=NIM)["metadata"]
    assert (meta["game"], meta["obs_size"], meta["num_actions"], meta["observation_version"]) == (NIM, 16, 3, 1)
    player = agents.make(str(best), game=NIM, seed=0)
    env = describe(NIM).raw_env()
    env.reset(seed=5)
    obs = env.observe(env.agent_selection)
    assert obs["observation"].dtype == np.int8 and obs["observation"].ndim == 2  # converted by the agent
    assert obs["action_mask"][player.act(obs)]
    code = evaluate_main([str(best), "--vs", "shipped", "--game", NIM, "-n", "6", "--workers", "1",
                          "--no-progress", "--out", str(tmp_path / "eval")])
    out = capsys.readouterr().out
    assert code == 0 and "random" in out and "rule" not in out  # no rule agent in a foreign game: not "shipped"


@pytest.mark.parametrize(("override", "key"), [
    ("eval_opponents=random,rule", "eval_opponents"),
    ("opponents=self:1,rule:1", "opponents"),
    ("pretrain.teacher=rule", "pretrain.teacher"),
])
def test_the_rule_baseline_of_a_foreign_game_is_refused_by_name(tmp_path, override, key):
    with pytest.raises(ConfigError, match=rf"'{key}'.*{NIM} has no rule-based agent"):
        load_config(overrides=tiny(tmp_path, NIM, "nfsp", override))


def test_the_default_evaluation_says_to_evaluate_against_random(tmp_path):
    with pytest.raises(ConfigError, match="--set eval_opponents=random best_metric=eval/mean_score_vs_random"):
        load_config(overrides=[f"game={NIM}", "env_options={}"])
    with pytest.raises(ValueError, match="no rule-based agent"):
        agents.make("rule", game=NIM)


def test_an_env_without_action_masks_is_refused():
    pytest.importorskip("pettingzoo.classic.rps_v2")
    with pytest.raises(ConfigError, match="'game'.*'observation' and 'action_mask'"):
        load_config(overrides=["game=pettingzoo.classic.rps_v2", "env_options={}"])


def test_an_unimportable_module_is_named():
    with pytest.raises(ConfigError, match="not an importable env module"):
        load_config(overrides=["game=no_such_package.env_v0", "env_options={}"])


@needs_classic
def test_leduc_holdem_from_pettingzoo_classic_trains_and_evaluates(tmp_path):
    env = describe(LEDUC).raw_env()
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)
    assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
    assert env_shape(env) == (36, 4)
    trainer = Trainer(load_config(overrides=tiny(tmp_path, LEDUC, "nfsp", "learner_seats=2")))
    assert "eval/win_rate_vs_random" in trainer.train()
    assert agents.load(tmp_path / "ckpt" / "t" / "best.pt", game=LEDUC).metadata["obs_size"] == 36


@needs_classic
def test_a_three_dimensional_observation_is_flattened():
    env = describe("pettingzoo.classic.tictactoe_v3").raw_env()
    assert env_shape(env) == (18, 9)
