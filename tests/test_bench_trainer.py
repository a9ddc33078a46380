"""``python -m train.bench trainer`` as a person runs it: both collection paths, the time split per
learner step, and the bound that PPO's update sets on the batched path's speed-up."""

import re

from train.bench.__main__ import main


def test_trainer_bench_reports_the_split_and_the_ceiling(capsys):
    main(["trainer", "--game", "thirtyone", "--steps", "256", "--num-envs", "8", "--num-steps", "16",
          "--repeat", "1", "--workers", "1", "--collections", "envs,batched", "--skip-sb3"])
    out = capsys.readouterr().out
    rows = re.findall(r"collection=(\w+).*?([\d,]+) steps/s \(per learner step: collect ([\d.]+) us, "
                      r"update ([\d.]+) us\)", out)
    assert [r[0] for r in rows] == ["envs", "batched"], out
    assert all(float(r[2]) > 0 and float(r[3]) > 0 for r in rows)
    ratio, bound = map(float, re.search(r"batched/envs ([\d.]+)x \(at most ([\d.]+)x", out).groups())
    assert 0 < ratio and bound > 0


def test_trainer_bench_measures_self_play_without_sb3(capsys):
    main(["trainer", "--game", "skat", "--opponents", "self", "--steps", "128", "--num-envs", "8", "--num-steps",
          "8", "--repeat", "1", "--workers", "1", "--collections", "envs,batched"])
    out = capsys.readouterr().out
    assert "no self-play seats; skipped" in out and "MaskablePPO (DummyVecEnv)" not in out
    assert "1 learner seat vs self" in out
    assert len(re.findall(r"collection=(?:envs|batched).*steps/s", out)) == 2, out
