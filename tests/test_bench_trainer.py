"""``python -m train.bench trainer`` as a person runs it: both collection paths, the time split per
learner step, and the bound that PPO's update sets on the batched path's speed-up."""

import re
import subprocess
from pathlib import Path

import pytest

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


IN_GIT = subprocess.run(["git", "-C", str(Path(__file__).parent), "rev-parse", "HEAD"],
                        capture_output=True).returncode == 0


@pytest.mark.skipif(not IN_GIT, reason="not a git checkout: --baseline needs git")
def test_trainer_bench_times_another_revision_side_by_side(capsys):
    """``--baseline REV``: that revision's trainer from a temporary worktree, measured as ours is."""
    main(["trainer", "--game", "thirtyone", "--steps", "128", "--num-envs", "8", "--num-steps", "16",
          "--repeat", "1", "--workers", "1", "--collections", "batched", "--skip-sb3", "--baseline", "HEAD"])
    out = capsys.readouterr().out
    then = re.search(r"trainer at HEAD: +([\d,]+) steps/s \(per learner step: collect ([\d.]+) us", out)
    assert then and float(then.group(1).replace(",", "")) > 0, out
    assert re.search(r"HEAD [\d,]+ steps/s, ours \(batched\) / HEAD [\d.]+x", out), out


@pytest.mark.skipif(not IN_GIT, reason="not a git checkout: --baseline needs git")
def test_trainer_bench_names_a_revision_it_cannot_check_out():
    with pytest.raises(SystemExit, match="no-such-revision"):
        main(["trainer", "--game", "thirtyone", "--steps", "16", "--num-envs", "4", "--num-steps", "4",
              "--repeat", "1", "--workers", "1", "--skip-sb3", "--baseline", "no-such-revision"])
