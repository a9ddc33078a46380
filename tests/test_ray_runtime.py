"""The Ray runtime (train/ray_runtime.py) on a local Ray instance with 2 CPUs.

Needs the ray extra (``pip install -e '.[ray]'``); skipped without it. Marked ``ray``: run with
``pytest -m ray`` (see docs/scaling.md).
"""

from __future__ import annotations

import os
import signal
import time

import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

ray = pytest.importorskip("ray")

from agents import checkpoint  # noqa: E402
from tests.test_train_trainer import tiny  # noqa: E402
from train.__main__ import main  # noqa: E402
from train.config import load_config  # noqa: E402
from train.ray_runtime import RayCollector, init_ray  # noqa: E402
from train.trainer import Trainer  # noqa: E402

pytestmark = pytest.mark.ray
SMALL = ("num_envs=6", "rollout_chunks=3", "total_timesteps=100", "eval_every=2")


@pytest.fixture(scope="module")
def local_ray():
    """One new local instance for the module (never a running cluster), shut down afterwards."""
    init_ray("local", num_cpus=2)
    yield
    ray.shutdown()


def scalars(run_dir) -> dict[str, list[float]]:
    events = EventAccumulator(str(run_dir))
    events.Reload()
    return {tag: [e.value for e in events.Scalars(tag)] for tag in events.Tags()["scalars"]}


def test_ray_run_matches_the_local_runtime_and_resumes(tmp_path, local_ray):
    local = Trainer(load_config(overrides=tiny(tmp_path / "local", "skat", *SMALL, "num_workers=1")))
    local.train()
    # A Ray run with 2 actors, stopped after its first update and resumed from latest.pt ...
    first = Trainer(load_config(overrides=tiny(tmp_path / "ray", "skat", *SMALL, "runtime=ray", "num_workers=2",
                                               "total_timesteps=1")))
    first.train()
    assert first.update == 1
    latest = tmp_path / "ray" / "ckpt" / "t" / "latest.pt"
    assert main(["--resume", str(latest), "--set", "total_timesteps=100"]) == 0
    resumed = Trainer.resume(str(latest))
    assert resumed.cfg.runtime == "ray" and resumed.cfg.num_workers == 2
    # ... collects exactly what the local runtime does: same chunks, same (seed, update, chunk).
    assert (resumed.update, resumed.global_step, resumed.episodes) == (local.update, local.global_step, local.episodes)
    for key, value in local.learner.network.state_dict().items():
        assert torch.equal(value, resumed.learner.network.state_dict()[key]), key
    # Same kind of checkpoints and TensorBoard output.
    for name in ("latest.pt", "best.pt"):
        ours = checkpoint.load(tmp_path / "ray" / "ckpt" / "t" / name)
        theirs = checkpoint.load(tmp_path / "local" / "ckpt" / "t" / name)
        assert set(ours) == set(theirs) and set(ours["metadata"]) == set(theirs["metadata"]), name
    ray_tags, local_tags = scalars(tmp_path / "ray" / "runs" / "t"), scalars(tmp_path / "local" / "runs" / "t")
    assert set(local_tags) <= set(ray_tags)
    assert set(ray_tags) - set(local_tags) == {"charts/worker_restarts", "charts/lost_chunks"}
    assert ray_tags["charts/worker_restarts"][-1] == 0


def test_a_killed_worker_does_not_stop_training(tmp_path, local_ray, monkeypatch, capfd):
    """SIGKILL one actor right after it was handed a chunk of update 1: Ray restarts it, the chunk
    is dropped, the run goes on to the end and logs and counts the restart."""
    original_init = RayCollector.__init__
    made: list[RayCollector] = []

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        self.actors_killed_pid = self.actor_pids()[0]
        self.actors[0] = KillAfterSubmit(self.actors[0], self.actors_killed_pid, at_update=1)
        made.append(self)

    original_close = RayCollector.close
    pids_at_close: list[int] = []

    def close(self):
        for _ in range(60):  # the restarted actor may still be starting
            try:
                pids_at_close.extend(self.actor_pids())
                break
            except ray.exceptions.RayActorError:
                time.sleep(1)
        original_close(self)

    monkeypatch.setattr(RayCollector, "__init__", init)
    monkeypatch.setattr(RayCollector, "close", close)
    trainer = Trainer(load_config(overrides=tiny(tmp_path, "skat", *SMALL, "runtime=ray", "num_workers=2",
                                                 "total_timesteps=150", "eval_every=0")))
    trainer.train()
    (collector,) = made
    assert collector.actors == [] and collector.lost_chunks == 1 and collector.restarts == 1
    assert trainer.global_step >= 150 and trainer.update >= 3
    assert len(pids_at_close) == 2 and collector.actors_killed_pid not in pids_at_close  # restarted: a new process
    assert "rollout actor 0 died" in capfd.readouterr().err
    tags = scalars(tmp_path / "runs" / "t")
    assert tags["charts/worker_restarts"][0] == 0 and tags["charts/worker_restarts"][-1] == 1
    assert tags["charts/lost_chunks"][-1] == 1
    assert checkpoint.load(tmp_path / "ckpt" / "t" / "latest.pt", resumable=True)["trainer"]["update"] == trainer.update


class KillAfterSubmit:
    """An actor handle whose process is SIGKILLed right after it was given a chunk of ``at_update``."""

    def __init__(self, handle, pid: int, at_update: int) -> None:
        self.handle, self.pid, self.at_update, self.done = handle, pid, at_update, False

    @property
    def collect(self):
        outer = self

        class Method:
            @staticmethod
            def remote(update, *args):
                ref = outer.handle.collect.remote(update, *args)
                if update == outer.at_update and not outer.done:
                    outer.done = True
                    os.kill(outer.pid, signal.SIGKILL)
                return ref

        return Method()

    def __getattr__(self, name):
        return getattr(self.handle, name)
