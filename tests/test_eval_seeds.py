"""``python -m train.evaluate ... --seeds A-B --out DIR``: one match per seed, resumable, pooled."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest

from train.evaluation.cli import main
from train.evaluation.seeds import parse_seeds, pooled, t975


def test_parse_seeds():
    assert parse_seeds("201-203,301, 5") == [201, 202, 203, 301, 5]
    assert parse_seeds("7,7,6-8") == [7, 6, 8]
    for bad in ("", "a-3", "9-3", "1-2-3"):
        with pytest.raises(ValueError, match="--seeds"):
            parse_seeds(bad)


def test_t_quantiles():
    assert t975(1) == 12.706 and t975(22) == 2.074 and t975(1000) == 1.96
    assert all(t975(d) >= t975(d + 1) for d in range(1, 200))
    with pytest.raises(ValueError):
        t975(0)


def test_pooled_equals_the_statistics_of_all_units_together(tmp_path):
    rng = np.random.default_rng(3)
    blocks = [rng.normal(2.0, 9.0, n) for n in (50, 50, 40)]
    folders = []
    for i, values in enumerate(blocks):
        folder = tmp_path / f"seed-{i}"
        folder.mkdir()
        with open(folder / "pairwise.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["agent_a", "agent_b", "units", "diff_points_per_game", "sd_per_unit"])
            w.writerow(["a", "b", len(values), values.mean(), values.std(ddof=1)])
        folders.append(folder)
    (row,) = pooled(folders, "points_per_game")
    every = np.concatenate(blocks)
    half = 1.96 * every.std(ddof=1) / math.sqrt(len(every))
    assert row["units"] == 140 and row["blocks"] == 3
    assert row["diff_points_per_game"] == pytest.approx(every.mean())
    assert (row["lo"], row["hi"]) == pytest.approx((every.mean() - half, every.mean() + half))
    means = np.array([b.mean() for b in blocks])
    block_half = 4.303 * means.std(ddof=1) / math.sqrt(3)
    assert (row["block_lo"], row["block_hi"]) == pytest.approx((means.mean() - block_half, means.mean() + block_half))


def test_cli_plays_each_seed_once_and_pools(tmp_path, capsys):
    out = tmp_path / "m"
    argv = ["--game", "skat", "rule", "--vs", "random", "--deals", "10", "--workers", "1", "--no-progress",
            "--out", str(out)]
    assert main([*argv, "--seeds", "1-2"]) == 0
    assert (out / "seed-1" / "games.csv").is_file() and (out / "seed-2" / "pairwise.csv").is_file()
    capsys.readouterr()
    assert main([*argv, "--seeds", "1-3"]) == 0  # seeds 1 and 2 are found, 3 is played
    text = capsys.readouterr().out
    assert "seed 1 (1/3): already played" in text and "seed 2 (2/3): already played" in text
    assert "seed 3 (3/3) ->" in text
    assert "rule - random:" in text and "over 30 deals" in text and "over the 3 seeds' means" in text
    with open(out / "seeds.csv", newline="") as f:
        (row,) = list(csv.DictReader(f))
    singles = []
    for seed in (1, 2, 3):
        with open(out / f"seed-{seed}" / "pairwise.csv", newline="") as f:
            singles.append(float(next(csv.DictReader(f))["diff_points_per_game"]))
    assert float(row["diff_points_per_game"]) == pytest.approx(sum(singles) / 3)
    assert float(row["diff_points_per_game"]) > 100  # rule beats random by far

    # another match in the same folder is refused by name, not mixed in
    assert main([*argv[:6], "11", *argv[7:], "--seeds", "1-3"]) == 2
    assert "differs in: deals" in capsys.readouterr().err
    assert main([*argv[:-2], "--seeds", "1"]) == 2
    assert "--seeds needs --out" in capsys.readouterr().err
