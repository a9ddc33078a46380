"""pretrain.soft_temperature: the search teacher's move values recorded with its labels and cloned as soft
targets (train/pretrain/clone.py: soft_targets)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.networks import ActorCritic
from envs.skat import actions as A
from train.config import ConfigError, load_config
from train.pretrain import behaviour_clone, play_teacher
from train.pretrain.__main__ import main as pretrain_main
from train.pretrain.clone import soft_targets

TEACHER = "pimc:base=checkpoints/skat_ppo.pt,from_trick=7,worlds=6"


def test_pimc_teacher_records_its_move_values_at_the_taught_card_decisions():
    args = ("skat", {}, TEACHER, 2, [3, 0])
    data = play_teacher(*args, driver="checkpoints/skat_ppo.pt", teach_only=["play"], values=True)
    values = data["values"]
    assert values.shape == data["mask"].shape and values.dtype == np.float32
    valued = ~np.isnan(values)
    assert not valued[~data["taught"]].any()  # only what the teacher labelled
    assert not (valued & ~data["mask"]).any()  # only legal moves
    assert valued[:, : A.PLAY].sum() == 0  # only card play, and only from trick 7 on
    choices = np.flatnonzero(valued.sum(1) > 1)
    assert len(choices) >= 5
    for row in choices:  # the label is a move of the best value: PIMC plays the argmax
        assert values[row, data["action"][row]] == np.nanmax(values[row])
    plain = play_teacher(*args, driver="checkpoints/skat_ppo.pt", teach_only=["play"])
    assert "values" not in plain and all(np.array_equal(plain[k], data[k]) for k in plain)


def test_soft_targets_give_the_label_its_ties_and_keep_unvalued_rows_hard():
    values = np.full((3, 6), np.nan, np.float32)
    values[0, [1, 2, 3]] = [10.0, 10.0, 0.0]  # 1 and 2 tie; the teacher chose 2
    values[1, [0, 4]] = [np.log(3.0) * 5.0, 0.0]
    values[2, 5] = 1.0  # one valued move: no choice
    data = {"values": values, "action": np.array([2, 0, 5])}
    target, valued = soft_targets(data, 5.0)
    assert valued.tolist() == [True, True, False]
    e = np.exp(-2.0)
    assert np.allclose(target[0].numpy(), [0, 0, 2 / (2 + e), e / (2 + e), 0, 0], atol=1e-6)
    assert np.allclose(target[1].numpy(), [0.75, 0, 0, 0, 0.25, 0], atol=1e-6)
    cold, _ = soft_targets(data, 1e-3)  # T -> 0: the one label
    assert np.allclose(cold[:2].numpy(), np.eye(6)[[2, 0]], atol=1e-6)
    with pytest.raises(ValueError, match="no move values"):
        soft_targets({"action": data["action"]}, 5.0)
    with pytest.raises(ValueError, match="teacher gave no move values"):
        soft_targets({"values": values[2:], "action": data["action"][2:]}, 5.0)


def test_cloning_soft_targets_fits_the_distribution_a_label_cannot():
    """One position, two moves worth 3:1 in softmax(values / T): the clone plays them 75/25, where the
    label alone would drive the losing move's probability to 0."""
    n, obs_size, actions = 256, 4, 3
    rng = np.random.default_rng(0)
    values = np.full((n, actions), np.nan, np.float32)
    values[:, :2] = [2.0 * np.log(3.0), 0.0]
    data = {"obs": np.repeat(rng.normal(size=(1, obs_size)).astype(np.float32), n, 0),
            "mask": np.tile([True, True, False], (n, 1)), "action": np.zeros(n, np.int64),
            "ret": np.zeros(n, np.float32), "deal": np.arange(n), "values": values}
    torch.manual_seed(0)
    net = ActorCritic(obs_size, actions, [16])
    behaviour_clone(net, data, epochs=30, batch_size=64, learning_rate=3e-3, value_coef=0.5, holdout=0.0, seed=0,
                    progress=False, soft_temperature=2.0)
    with torch.no_grad():
        probs = torch.softmax(net.policy_logits(torch.from_numpy(data["obs"][:1])), 1)[0].numpy()
    legal = probs[:2] / probs[:2].sum()
    assert abs(legal[0] - 0.75) < 0.03


def test_soft_temperature_runs_from_the_cli_and_is_checked(tmp_path):
    out = tmp_path / "soft.pt"
    common = ["progress=false", "num_workers=1", f"runs_dir={tmp_path}/runs", "pretrain.epochs=1", "hidden=16",
              f"pretrain.teacher={TEACHER}", "pretrain.driver=checkpoints/skat_ppo.pt", "pretrain.teach_only=[play]",
              f"pretrain.cache={tmp_path}/cache", "pretrain.copy_teacher=false"]
    assert pretrain_main(["--game", "skat", "--episodes", "1", "--out", str(out), "--set",
                          "pretrain.soft_temperature=5", *common]) == 0
    assert len(list((tmp_path / "cache").glob("chunk*.npz"))) == 1
    # the labels without values are another cache entry: both stay
    assert pretrain_main(["--game", "skat", "--episodes", "1", "--out", str(out), "--set", *common]) == 0
    assert len(list((tmp_path / "cache").glob("chunk*.npz"))) == 2
    with pytest.raises(ConfigError, match=r"pretrain.soft_temperature.*must be >= 0"):
        load_config("configs/skat_ppo.yaml", ["pretrain.teacher=rule", "pretrain.soft_temperature=-1"])
