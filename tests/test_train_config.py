"""Training config: YAML + --set, type conversion, and errors that name the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from train.__main__ import main
from train.config import ConfigError, TrainConfig, load_config

CONFIGS = Path(__file__).resolve().parent.parent / "configs"


@pytest.mark.parametrize("name", ["skat_ppo.yaml", "thirtyone_ppo.yaml", "skat_ppo_bc.yaml", "thirtyone_ppo_bc.yaml",
                                  "thirtyone_ppo_rule.yaml", "skat_ppo_rule.yaml",
                                  "skat_ppo_stage3.yaml"])
def test_shipped_configs_load(name):
    cfg = load_config(CONFIGS / name)
    assert cfg.game == name.split("_")[0] and cfg.algorithm == "ppo"


@pytest.mark.parametrize("path", sorted((CONFIGS.parent / "checkpoints").glob("*.pt")), ids=lambda p: p.name)
def test_shipped_checkpoints_keep_the_default_folders(path):
    """``--init``/``--resume`` of a shipped checkpoint starts from its stored config: a new run must write under
    runs/ and checkpoints/ of the user's checkout, not into folders of the machine it was trained on."""
    import torch

    config = torch.load(path, weights_only=True)["config"]
    assert (config["runs_dir"], config["checkpoint_dir"]) == ("runs", "checkpoints")


def test_set_overrides_convert_types():
    cfg = load_config(overrides=[
        "num_envs=8", "total_timesteps=1e5", "ppo.learning_rate=1e-3", "ppo.target_kl=0.02", "hidden=64,32",
        "opponents=self:0.5,rule:0.5", "env_options.scoring=tournament", "progress=false", "eval_opponents=[random]",
        "best_metric=eval/win_rate_vs_random",
    ])
    assert cfg.num_envs == 8 and cfg.total_timesteps == 100_000
    assert cfg.ppo.learning_rate == 1e-3 and cfg.ppo.target_kl == 0.02
    assert cfg.hidden == [64, 32] and cfg.opponents == {"self": 0.5, "rule": 0.5}
    assert cfg.env_options == {"scoring": "tournament"} and cfg.progress is False
    assert load_config(overrides=["ppo.target_kl=none"]).ppo.target_kl is None
    assert isinstance(TrainConfig().to_dict()["ppo"], dict)


def test_unknown_key_names_it_and_the_valid_keys(tmp_path):
    with pytest.raises(ConfigError, match=r"unknown config key 'num_env'.*did you mean 'num_envs'.*valid keys:.*seed"):
        load_config(overrides=["num_env=3"])
    with pytest.raises(ConfigError, match=r"unknown config key 'ppo.lr'.*valid keys of ppo:.*learning_rate"):
        load_config(overrides=["ppo.lr=3"])
    path = tmp_path / "bad.yaml"
    path.write_text("game: skat\nppo:\n  clip: 0.1\n")
    with pytest.raises(ConfigError, match=r"bad.yaml: unknown config key 'ppo.clip'"):
        load_config(path)


@pytest.mark.parametrize("override, message", [
    ("num_envs=many", "expected int"),
    ("num_envs=2.5", "expected int"),
    ("progress=maybe", "expected true or false"),
    ("game=chess", "unknown game"),
    ("algorithm=dqn", "unknown algorithm"),
    ("opponents=nobody:1", "neither random, rule"),
    ("pool_sampling=oldest", "pool_sampling"),
    ("num_workers=0", "at least 1"),
    ("eval_opponents=[self]", "cannot be an evaluation opponent"),
    ("ppo=3", "is a section"),
    ("seed", "key=value"),
    ("pretrain.teacher=self", "pretrain.teacher"),
    ("pretrain.teacher=nobody.pt", "pretrain.teacher"),
    ("pretrain.episodes=0", "pretrain.episodes"),
    ("pretrain.holdout=1", "pretrain.holdout"),
    ("pretrain.teachr=rule", "did you mean 'pretrain.teacher'"),
])
def test_bad_values_are_errors(override, message):
    with pytest.raises(ConfigError, match=message):
        load_config(overrides=[override])


def test_cli_reports_config_errors(capsys):
    assert main(["--set", "seed=3", "num_env=3"]) == 2  # several keys after one --set
    assert "unknown config key 'num_env'" in capsys.readouterr().err
    assert main(["--config", "nope.yaml"]) == 2
    assert main(["--resume", "missing.pt"]) == 2
    assert "does not exist" in capsys.readouterr().err
