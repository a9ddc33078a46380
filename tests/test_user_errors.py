"""Bad input as a user gives it: every case answered with one clear line (exit code 2), never a traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from agents import checkpoint
from agents.networks import build_network, network_spec
from arena import AgentError, Deal, play
from envs.games import describe
from train.__main__ import main as train_main
from train.config import ConfigError, load_config
from train.evaluation.cli import main as evaluate_main
from train.pretrain.__main__ import main as pretrain_main

ROOT = Path(__file__).resolve().parent.parent


class HalfAction:
    """Plays x.5 instead of a legal index x."""

    def __init__(self, game: str) -> None:
        self.game = game

    def act(self, observation: dict) -> float:
        return float(np.flatnonzero(observation["action_mask"])[0]) + 0.5


class Broken:
    def __init__(self, game: str) -> None:
        self.game = game

    def act(self, observation: dict) -> int:
        raise RuntimeError("my bug")


class BrokenInit:
    def __init__(self, game: str) -> None:
        raise RuntimeError("cannot start")


def _policy(tmp_path: Path, game: str, options: dict | None = None) -> str:
    env = describe(game).raw_env(**(options or {}))
    obs, n = env.observation_space("player_0")["observation"].shape[0], env.action_space("player_0").n
    spec = network_spec("policy", obs, n, [8], "tanh")
    meta = checkpoint.make_metadata(game, options or {}, obs, n, spec, "ppo")
    return str(checkpoint.save(tmp_path / f"{game}.pt", meta, build_network(spec).state_dict(), {}))


# ------------------------------------------------------------------------------------ the play loop
def test_a_float_action_is_refused_naming_the_agent_and_seat():
    env = describe("skat").raw_env()
    done = []

    def start(table):
        if done:
            return None
        done.append(1)
        return Deal([HalfAction("skat")] * 3, ["half", "half", "half"], seed=1)

    with pytest.raises(AgentError, match=r"agent 'half' in seat 1 chose .*\.5, not an integer action"):
        play([env], start)


def test_an_agent_that_raises_is_named_and_keeps_its_traceback(capsys):
    argv = ["--game", "skat", f"{__name__}:Broken", "random", "--deals", "2", "--workers", "1", "--no-progress"]
    assert evaluate_main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" in err and "my bug" in err  # the user's own traceback, first
    assert err.strip().splitlines()[-1].startswith(f"error: agent '{__name__}:Broken' in seat ")
    assert evaluate_main(["--game", "skat", f"{__name__}:BrokenInit", "random", "--deals", "2", "--workers", "1",
                          "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "cannot start" in err and err.strip().splitlines()[-1].startswith(
        f"error: agent '{__name__}:BrokenInit' failed while being built")


# ------------------------------------------------------------------------------------ configs
@pytest.mark.parametrize("override, message", [
    ("learner_seats=5", "learner_seats.*3 seats"),
    ("eval_opponents=[bogus]", "config key 'eval_opponents'"),
    ("hidden=[]", "config key 'hidden'"),
    ("activation=sigmoid", "config key 'activation'"),
    ("ppo.learning_rate=-1", "config key 'ppo.learning_rate'"),
    ("ppo.num_minibatches=0", "config key 'ppo.num_minibatches'"),
    ("nfsp.eta=2", "config key 'nfsp.eta'"),
    ("env_options.scoring=bierlachs", "config key 'env_options'.*scoring"),
    ("env_options.dealer=1.0", "config key 'env_options'"),
    ("reward_scale=0", "config key 'reward_scale'"),
])
def test_bad_config_values_name_the_key(override, message):
    with pytest.raises(ConfigError, match=message):
        load_config(overrides=[override])


def test_a_yaml_syntax_error_is_one_line(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text("game: skat\nppo: {learning_rate: 1e-4\n")
    assert train_main(["--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert "not valid YAML" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_changing_the_game_names_the_options_that_do_not_belong(capsys):
    with pytest.raises(ConfigError, match=r"game=thirtyone changes the game, but env_options \{'scoring'"):
        load_config(ROOT / "configs" / "skat_ppo.yaml", ["game=thirtyone"])
    cfg = load_config(ROOT / "configs" / "skat_ppo.yaml", ["game=thirtyone", "env_options={}"])
    assert cfg.game == "thirtyone" and cfg.env_options == {}


def test_an_opponent_checkpoint_of_another_game_fails_before_any_run_dir(tmp_path, capsys):
    other = _policy(tmp_path, "thirtyone")
    argv = ["--set", f"opponents={other}:1", f"runs_dir={tmp_path}/runs", f"checkpoint_dir={tmp_path}/ck"]
    assert train_main(argv) == 2
    assert "thirtyone" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists() and not (tmp_path / "ck").exists()
    corrupt = tmp_path / "corrupt.pt"
    corrupt.write_bytes(b"not a checkpoint")
    with pytest.raises(ConfigError, match="config key 'eval_opponents'"):
        load_config(overrides=[f"eval_opponents=[{corrupt}]"])


def test_pretrain_keeps_the_teacher_set_in_the_config(tmp_path, capsys):
    assert pretrain_main(["--set", "pretrain.teacher=nobody.pt", "--out", str(tmp_path / "x.pt")]) == 2
    assert "pretrain.teacher" in capsys.readouterr().err and not (tmp_path / "x.pt").exists()
    other = _policy(tmp_path, "thirtyone")
    assert pretrain_main(["--teacher", other, "--out", str(tmp_path / "x.pt")]) == 2  # a Thirty-One teacher
    assert "thirtyone" in capsys.readouterr().err


# ------------------------------------------------------------------------------------ evaluation output
def test_evaluate_out_must_be_a_folder(tmp_path, capsys):
    target = tmp_path / "results.txt"
    target.write_text("keep me")
    argv = ["--game", "skat", "rule", "random", "--deals", "2", "--workers", "1", "--no-progress", "--out", str(target)]
    assert evaluate_main(argv) == 2
    assert "is a file" in capsys.readouterr().err and target.read_text() == "keep me"


def test_tiny_samples_give_no_verdict_and_games_count_games(tmp_path, capsys):
    argv = ["--game", "skat", "rule", "random", "--deals", "2", "--workers", "1", "--no-progress",
            "--out", str(tmp_path), "--resamples", "50"]
    assert evaluate_main(argv) == 0
    out = capsys.readouterr().out
    assert "too small a sample" in out and "too few deals for a verdict" in out
    assert "stronger" not in out and "nan" not in out
    rule_row = next(line for line in out.splitlines() if line.startswith("rule "))
    assert rule_row.split()[1] == "12"  # 2 deals x 6 seatings: 12 games, not 18 seats


def test_a_new_league_is_seeded_with_the_shipped_agents(tmp_path, capsys):
    argv = ["--league", str(tmp_path / "league.json"), "--game", "thirtyone", "rule", "--deals", "1",
            "--workers", "1", "--no-progress", "--out", str(tmp_path / "o"), "--env", "num_players=2",
            "--env", "lives=1"]
    assert evaluate_main(argv) == 0
    out = capsys.readouterr().out
    assert "seeding it with the shipped agents: random" in out and "mu-3sigma" in out


# ------------------------------------------------------------------------------------ interrupts
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_training_with_a_resumable_checkpoint(tmp_path, sig):
    stale = tmp_path / "ck" / "r" / ".latest.pt.abc123.tmp"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"left by a killed write")
    cmd = [sys.executable, "-m", "train", "--set", "run_name=r", "total_timesteps=10000000", "num_envs=4",
           "num_steps=16", "eval_every=0", "progress=false", "hidden=16", f"runs_dir={tmp_path}/runs",
           f"checkpoint_dir={tmp_path}/ck", "checkpoint_every=1"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        deadline = time.time() + 120
        # signal once an update is done (latest.pt written), so the signal never lands before the handlers are
        # installed; one that lands in the numba warm-up is tests/test_train_interrupt.py's exec() case
        while not (tmp_path / "ck" / "r" / "latest.pt").exists() and time.time() < deadline:
            time.sleep(0.2)
        time.sleep(1)
        os.killpg(proc.pid, sig)  # as a terminal's Ctrl-C does: the whole process group
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "continue with: python -m train --resume" in err
    latest = tmp_path / "ck" / "r" / "latest.pt"
    data = torch.load(latest, weights_only=True)
    assert data["trainer"]["update"] >= 0 and not stale.exists()
    assert not list(latest.parent.glob(".*.tmp"))


def _group(pgid: int) -> list[int]:
    """The live processes of a process group (Linux /proc)."""
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            pids.append(int(stat.parent.name))
    return pids


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")
def test_ctrl_c_stops_a_long_evaluation_at_once(tmp_path):
    """Full PIMC plays a work item for minutes; Ctrl-C stops its workers instead of waiting for them."""
    cmd = [sys.executable, "-m", "train.evaluate", "--game", "skat", "pimc", "--vs", "rule", "--deals", "40",
           "--workers", "2", "--no-progress", "--out", str(tmp_path / "ev")]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        deadline = time.time() + 120
        while len(_group(proc.pid)) < 3 and time.time() < deadline:  # the parent and its two workers
            time.sleep(0.2)
        time.sleep(2)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "stopped by SIGINT after " in err and " of 40 duplicate deals" in err
    deadline = time.time() + 10
    while _group(proc.pid) and time.time() < deadline:
        time.sleep(0.2)
    assert not _group(proc.pid), "evaluation workers outlived the stopped run"


def test_ctrl_c_while_labelling_says_what_is_kept(tmp_path, monkeypatch, capsys):
    from train.interrupt import StopNow
    from train.pretrain import expert
    from train.trainer import Trainer

    def stopped(*args, **kwargs):
        raise StopNow("SIGINT")

    monkeypatch.setattr(expert, "teacher_data", stopped)
    argv = ["--init", "checkpoints/skat_ppo.pt", "--out", str(tmp_path / "x.pt"), "--set",
            "pretrain.teacher=pimc:preset=fast", "pretrain.copy_teacher=false", "pretrain.soft_temperature=2",
            f"pretrain.cache={tmp_path}/c"]
    assert expert.main(argv) == 130
    assert f"stopped by SIGINT; the finished chunks are kept in {tmp_path}/c" in capsys.readouterr().err
    assert not (tmp_path / "x.pt").exists()

    monkeypatch.setattr(Trainer, "pretrain", stopped)
    assert pretrain_main(["--game", "skat", "--out", str(tmp_path / "y.pt")]) == 130
    assert "stopped by SIGINT; no chunk is kept (pretrain.cache=FOLDER" in capsys.readouterr().err
