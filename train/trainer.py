"""The training loop: collect -> update -> log -> snapshot / evaluate / checkpoint, repeat.

Steps count learner decisions (transitions), as SB3 and CleanRL count env steps of the agent.
TensorBoard tags (under ``runs/<run name>/``)::

    charts/episodic_return, charts/episodic_length, charts/SPS, charts/learning_rate, charts/episodes
    losses/{policy_loss, value_loss, entropy, old_approx_kl, approx_kl, clipfrac, explained_variance}   (PPO)
    losses/{rl_loss, sl_loss, q_values}, charts/{epsilon, best_response_fraction, reservoir_size, replay_size}  (NFSP)
    losses/{value_loss, q_values, returns}, charts/epsilon                                              (DMC)
    eval/{mean_score, mean_score_ci, win_rate}_vs_<opponent>     (seats rotated, train.evaluate)
    eval/{advantage, advantage_ci}_vs_<opponent>   (eval_duplicate: minus the opponent's score, same seat and deal)
    game/<key>          means of env.unwrapped.episode_stats() over the update's deals
    text "config"       the config as a table

Checkpoints under ``checkpoints/<run name>/``: ``latest.pt`` (resumable) and ``best.pt`` (the
playing policy with the best ``best_metric`` so far, with its evaluation in the metadata).
"""

from __future__ import annotations

import math
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from agents import algorithm, checkpoint
from agents.networks import network_spec, widen
from agents.neural import NeuralAgent
from arena import Episode, env_shape
from envs.games import describe
from train.config import SECTIONS, ConfigError, TrainConfig, load_config
from train.evaluation.baseline import EvalResult, evaluate
from train.interrupt import StopNow, StopRequest, TrainingInterrupted
from train.opponents import OpponentPool
from train.pretrain import pretrain as clone_teacher
from train.pretrain import teacher_data
from train.rollout import LEARNER, Collector, RolloutSpec, split_envs

EVAL_METRICS = ("mean_score", "win_rate")


def opponent_tag(spec: str) -> str:
    """The TensorBoard name of an evaluation opponent (a checkpoint file by its stem)."""
    return Path(spec).stem if spec.endswith(".pt") else spec


class Trainer:
    def __init__(self, cfg: TrainConfig) -> None:
        self.cfg = cfg
        random.seed(cfg.seed)
        torch.manual_seed(cfg.seed)
        self.rng = np.random.default_rng(cfg.seed)  # minibatch order; rollouts seed themselves per update
        if not cfg.run_name:
            cfg.run_name = f"{cfg.game}_{cfg.algorithm}_{cfg.seed}_{int(time.time())}"
        metrics = EVAL_METRICS + (("advantage",) if cfg.eval_duplicate else ())
        eval_tags = [f"eval/{m}_vs_{opponent_tag(o)}" for o in cfg.eval_opponents for m in metrics]
        if cfg.eval_opponents and cfg.best_metric not in eval_tags:
            raise ConfigError(f"config key 'best_metric': {cfg.best_metric!r} is not measured; "
                              f"with these eval_opponents choose one of {eval_tags}")

        self.obs_size, self.num_actions = env_shape(describe(cfg.game).raw_env(**cfg.env_options))
        learner_cls = algorithm(cfg.algorithm)
        extra = {"game": cfg.game} if getattr(learner_cls, "needs_game", False) else {}
        self.network_spec = network_spec(learner_cls.network_kind, self.obs_size, self.num_actions,
                                         cfg.hidden, cfg.activation, **extra)
        self.learner = learner_cls(self.network_spec, cfg.algo)
        self.pool = OpponentPool(cfg.opponents, cfg.pool_size, cfg.pool_sampling)
        self.global_step = 0
        self.update = 0
        self.episodes = 0
        self.best = -math.inf
        self.last_eval: dict[str, float] = {}
        self.last_metrics: dict[str, float] = {}  # of the latest update
        self.pretrain_metrics: dict[str, float] = {}  # of the behaviour-cloning warm start, if any
        self.run_dir = Path(cfg.runs_dir) / cfg.run_name
        self.checkpoint_dir = Path(cfg.checkpoint_dir) / cfg.run_name

    # --- checkpoints ----------------------------------------------------------------------------

    @classmethod
    def resume(cls, path: str, overrides: list[str] | None = None) -> Trainer:
        """A trainer in the exact state saved in a full checkpoint (``--set`` may change keys)."""
        data = checkpoint.load(path, resumable=True)
        trainer = cls(load_config(base=data["config"], overrides=overrides))
        try:
            trainer.learner.load_state_dict(data["learner"])
        except (RuntimeError, ValueError, KeyError) as e:
            raise checkpoint.CheckpointError(f"{path}: does not fit this config's network/algorithm: {e}") from None
        state = data["trainer"]
        trainer.global_step, trainer.update, trainer.episodes = state["global_step"], state["update"], state["episodes"]
        trainer.best, trainer.last_eval = state["best"], dict(state["last_eval"])
        trainer.pretrain_metrics = dict(state.get("pretrain", {}))
        trainer.pool.load_state_dict(state["pool"])
        rng = state["rng"]
        trainer.rng.bit_generator.state = rng["numpy"]
        torch.set_rng_state(rng["torch"])
        random.setstate((rng["python"][0], tuple(rng["python"][1]), rng["python"][2]))
        return trainer

    @classmethod
    def from_policy(cls, path: str, overrides: list[str] | None = None) -> Trainer:
        """A fresh trainer (update 0) with a checkpoint's config whose actor starts from that checkpoint's
        playing weights, the critic fresh: pretraining (DAgger) from a policy-only file such as a shipped one.
        With wider ``hidden`` layers than the file's (same depth) the actor starts as the same function
        (:func:`agents.networks.widen`), so a network that lacks capacity can grow and keep what it plays."""
        data = checkpoint.load(path)
        trainer = cls(load_config(base=data["config"], overrides=overrides))
        network = getattr(trainer.learner, "network", None)
        if network is None or not hasattr(network, "policy_state_dict"):
            raise checkpoint.CheckpointError(f"{path}: only an actor-critic (PPO) learner starts from policy weights")
        try:
            # a config with wider hidden layers (--set hidden=512,512) starts from the same function
            result = network.load_state_dict(widen(data["policy"], network.state_dict()), strict=False)
        except (RuntimeError, ValueError) as e:
            raise checkpoint.CheckpointError(f"{path}: does not fit this config's network: {e}") from None
        if result.unexpected_keys or any(k.startswith("actor.") for k in result.missing_keys):
            raise checkpoint.CheckpointError(f"{path}: policy weights do not fit this config's actor: {result}")
        return trainer

    def greedy_mark(self) -> dict[str, bool]:
        """Metadata for a file that should play the way this config evaluates: ``greedy`` with ``eval_greedy``."""
        return {"greedy": True} if self.cfg.eval_greedy else {}

    def save(self, path: Path, full: bool = True, **extra_metadata: Any) -> Path:
        """``full``: resumable (learner and trainer state); else the playing policy only."""
        policy_spec, policy_state = self.learner.policy()
        # Optional algorithm extras: named further playing policies (NFSP: its best response).
        policies = self.learner.other_policies() if hasattr(self.learner, "other_policies") else None
        if getattr(self.learner, "policy_name", None):
            extra_metadata = {"policy_name": self.learner.policy_name, **extra_metadata}
        meta = checkpoint.make_metadata(
            self.cfg.game, self.cfg.env_options, self.obs_size, self.num_actions, policy_spec,
            self.cfg.algorithm, run_name=self.cfg.run_name, global_step=self.global_step, update=self.update,
            **extra_metadata)
        trainer_state = None
        if full:
            py = random.getstate()
            trainer_state = {
                "global_step": self.global_step, "update": self.update, "episodes": self.episodes,
                "best": self.best, "last_eval": self.last_eval, "pool": self.pool.state_dict(),
                "pretrain": self.pretrain_metrics,
                "rng": {"numpy": self.rng.bit_generator.state, "torch": torch.get_rng_state(),
                        "python": [py[0], list(py[1]), py[2]]},
            }
        return checkpoint.save(path, meta, policy_state, self.cfg.to_dict(),
                               learner=self.learner.state_dict() if full else None, trainer=trainer_state,
                               policies=policies)

    # --- evaluation -----------------------------------------------------------------------------

    def evaluate(self) -> dict[str, EvalResult]:
        agent = NeuralAgent(self.learner.network, self.cfg.game, greedy=self.cfg.eval_greedy, seed=self.cfg.seed)
        return {opponent_tag(o): evaluate(agent, o, self.cfg.game, self.cfg.env_options, self.cfg.eval_episodes,
                                          seed=self.cfg.seed, duplicate=self.cfg.eval_duplicate)
                for o in self.cfg.eval_opponents}

    # --- warm start -----------------------------------------------------------------------------

    def pretrain(self) -> dict[str, float]:
        """Behaviour-clone ``pretrain.teacher`` into the learner's network (train/pretrain)."""
        cfg = self.cfg
        gamma = getattr(cfg.algo, "gamma", 1.0)
        self.pretrain_metrics = clone_teacher(
            self.learner.network, cfg.game, cfg.env_options, cfg.pretrain, cfg.seed, cfg.num_workers, gamma,
            cfg.reward_scale, cfg.progress, cfg.torch_threads, keep=self._keep_demonstrations)
        if hasattr(self.learner, "warm_started"):  # NFSP: its target network starts from the warm Q-network
            self.learner.warm_started()
        return self.pretrain_metrics

    def _keep_demonstrations(self, data: dict[str, np.ndarray]) -> None:
        if hasattr(self.learner, "keep_demonstrations"):  # NFSP: demo_weight's margin loss, demo_reservoir
            rng = np.random.default_rng([self.cfg.seed, 77])
            self.learner.keep_demonstrations(data, self.cfg.pretrain.q_margin, rng)

    def _recollect_demonstrations(self) -> None:
        """A resumed NFSP run with ``demo_weight`` or ``demo_reservoir`` plays its warm start's deals again (the
        same, from the seed; a ``pretrain.cache`` makes it a read): checkpoints do not store them."""
        cfg = self.cfg
        self._keep_demonstrations(teacher_data(cfg.game, cfg.env_options, cfg.pretrain, cfg.seed, cfg.num_workers,
                                               getattr(cfg.algo, "gamma", 1.0), cfg.reward_scale, cfg.progress))

    # --- the loop -------------------------------------------------------------------------------

    def make_collector(self, runtime: str | None = None, workers: int | None = None) -> Any:
        """The rollout collector of ``runtime`` ("local" or "ray"; default: the config's) with
        ``workers`` processes or actors (default: ``num_workers``)."""
        cfg = self.cfg
        workers = workers or cfg.num_workers
        chunks = split_envs(cfg.num_envs, min(cfg.rollout_chunks or workers, cfg.num_envs))
        spec = RolloutSpec(cfg.game, cfg.env_options, len(chunks[0]), cfg.algorithm, self.network_spec,
                           self.learner.policy()[0], cfg.learner_seats, cfg.num_steps, cfg.reward_scale, cfg.seed)
        if cfg.collection == "batched":
            from train.batched import BatchedCollector

            return BatchedCollector(spec, cfg.num_envs, self.learner.network, cfg.device)
        if (runtime or cfg.runtime) == "ray":  # imported only when asked for: Ray is an optional extra
            from train.ray_runtime import RayCollector

            return RayCollector(spec, chunks, min(workers, len(chunks)), self.learner.network,
                                address=cfg.ray_address, cpus_per_worker=cfg.ray_cpus_per_worker,
                                max_restarts=cfg.ray_max_restarts)
        return Collector(spec, chunks, min(workers, len(chunks)), self.learner.network)

    def train(self) -> dict[str, float]:
        """Train until ``total_timesteps``; returns the last evaluation's metrics.

        Ctrl-C or SIGTERM stops the run within seconds: a collection or evaluation in progress is
        dropped, an update in progress finishes, ``latest.pt`` is written and :class:`TrainingInterrupted`
        says where (``--resume`` continues from it)."""
        checkpoint.remove_stale_temporaries(self.checkpoint_dir / "latest.pt")  # left by a killed write
        writer = SummaryWriter(str(self.run_dir), purge_step=self.global_step or None)
        with StopRequest() as stop:
            try:
                with stop.interruptible():
                    self._warm_start(writer)
                return self._loop(stop, writer)
            except KeyboardInterrupt:
                stop.requested = stop.requested or "interrupt"
            except Exception:
                if not stop.requested:
                    raise  # a real failure; otherwise a worker the same signal reached died on the way
            finally:
                writer.close()
        path = self.save(self.checkpoint_dir / "latest.pt")
        raise TrainingInterrupted(stop.requested, path, self.update, self.global_step)

    def _warm_start(self, writer: SummaryWriter) -> None:
        cfg = self.cfg
        if self.update == 0:
            writer.add_text("config", config_markdown(cfg))
            if cfg.pretrain.teacher and not self.pretrain_metrics:
                self.pretrain()
                self.save(self.checkpoint_dir / "pretrained.pt")  # later runs can --resume from the warm start
            for tag, value in self.pretrain_metrics.items():
                writer.add_scalar(tag, value, 0)
            if self.pretrain_metrics and cfg.eval_opponents:  # where the warm start stands, before any RL
                self._evaluate_and_keep_best(writer)
        if cfg.pretrain.teacher and getattr(self.learner, "needs_demonstrations", False):
            self._recollect_demonstrations()

    def _loop(self, stop: StopRequest, writer: SummaryWriter) -> dict[str, float]:
        cfg = self.cfg
        collector = self.make_collector()
        bar = tqdm(total=cfg.total_timesteps, initial=min(self.global_step, cfg.total_timesteps), unit="step",
                   disable=not cfg.progress, dynamic_ncols=True, desc=cfg.run_name)
        start_time, start_step = time.time(), self.global_step
        seconds = {"collect": 0.0, "update": 0.0}  # where this process's time goes (not kept across --resume)
        try:
            while self.global_step < cfg.total_timesteps and not stop.requested:
                progress = self.global_step / cfg.total_timesteps
                torch.set_num_threads(1)  # small batched forwards; the other workers use the other cores
                tick = time.perf_counter()
                with stop.interruptible():  # nothing has changed yet: this update may be dropped at once
                    batch, episodes = collector.collect(self.update, self.pool.plan(), self.pool.snapshots)
                seconds["collect"] += time.perf_counter() - tick
                if not batch:
                    raise RuntimeError("the rollout produced no learner decisions; check learner_seats and the env")
                torch.set_num_threads(cfg.torch_threads)  # the workers are idle during the update
                tick = time.perf_counter()
                metrics = self.learner.update(batch, progress, self.rng)
                seconds["update"] += time.perf_counter() - tick
                steps = len(batch["action"])
                self.update += 1
                self.global_step += steps
                self.episodes += len(episodes)
                metrics.update(episode_metrics(episodes))
                metrics["charts/episodes"] = self.episodes
                metrics.update(collector.metrics() if hasattr(collector, "metrics") else {})  # Ray: worker_restarts
                metrics["charts/SPS"] = (self.global_step - start_step) / max(time.time() - start_time, 1e-9)
                for part, total in seconds.items():  # microseconds per learner step since this process started
                    metrics[f"charts/{part}_us_per_step"] = 1e6 * total / (self.global_step - start_step)
                for tag, value in metrics.items():
                    writer.add_scalar(tag, value, self.global_step)
                self.last_metrics = metrics

                if cfg.snapshot_every and self.update % cfg.snapshot_every == 0:
                    self.pool.add_snapshot(self.learner.policy()[1])
                last = self.global_step >= cfg.total_timesteps
                if cfg.eval_opponents and (last or (cfg.eval_every and self.update % cfg.eval_every == 0)):
                    with stop.interruptible():
                        self._evaluate_and_keep_best(writer)
                if last or (cfg.checkpoint_every and self.update % cfg.checkpoint_every == 0):
                    self.save(self.checkpoint_dir / "latest.pt")

                bar.update(min(steps, cfg.total_timesteps - bar.n))
                bar.set_postfix_str(self._status(metrics))
        finally:
            bar.close()
            collector.close()
        if stop.requested:
            raise StopNow  # stopped between updates: train() saves latest.pt and says where
        return self.last_eval

    def _evaluate_and_keep_best(self, writer: SummaryWriter) -> None:
        results = self.evaluate()
        self.last_eval = {}
        for tag, result in results.items():
            self.last_eval[f"eval/mean_score_vs_{tag}"] = result.mean_score
            self.last_eval[f"eval/mean_score_ci_vs_{tag}"] = result.score_ci
            self.last_eval[f"eval/win_rate_vs_{tag}"] = result.win_rate
            if result.advantage is not None:
                self.last_eval[f"eval/advantage_vs_{tag}"] = result.advantage
                self.last_eval[f"eval/advantage_ci_vs_{tag}"] = result.advantage_ci
        for tag, value in self.last_eval.items():
            writer.add_scalar(tag, value, self.global_step)
        score = self.last_eval[self.cfg.best_metric]
        if score > self.best:
            self.best = score
            self.save(self.checkpoint_dir / "best.pt", full=False, eval=dict(self.last_eval), **self.greedy_mark())

    def _status(self, metrics: dict[str, float]) -> str:
        parts = [f"sps={metrics['charts/SPS']:.0f}"]
        if "charts/episodic_return" in metrics:
            parts.append(f"ret={metrics['charts/episodic_return']:+.2f}")
        for tag in self.cfg.eval_opponents:
            tag = opponent_tag(tag)
            if f"eval/mean_score_vs_{tag}" in self.last_eval:
                parts.append(f"{tag}:{self.last_eval[f'eval/mean_score_vs_{tag}']:+.2f}"
                             f"/{self.last_eval[f'eval/win_rate_vs_{tag}']:.0%}")
                if f"eval/advantage_vs_{tag}" in self.last_eval:
                    parts[-1] += f"/adv{self.last_eval[f'eval/advantage_vs_{tag}']:+.2f}"
        return " ".join(parts)


def episode_metrics(episodes: list[Episode]) -> dict[str, float]:
    """charts/episodic_return (learner seats, raw), charts/episodic_length, game/* means."""
    if not episodes:
        return {}
    returns = [r for e in episodes for r, p in zip(e.returns, e.players, strict=True) if p == LEARNER]
    metrics = {"charts/episodic_length": float(np.mean([e.length for e in episodes]))}
    if returns:
        metrics["charts/episodic_return"] = float(np.mean(returns))
    keys = sorted({k for e in episodes for k in e.stats})
    for key in keys:
        values = [float(e.stats[key]) for e in episodes if key in e.stats]
        metrics[f"game/{key}"] = float(np.mean(values))
    return metrics


def config_markdown(cfg: TrainConfig) -> str:
    rows = []
    for key, value in cfg.to_dict().items():
        items = value.items() if key in SECTIONS else [("", value)]
        rows += [f"|{key}{'.' + sub if sub else ''}|{v}|" for sub, v in items]
    return "|param|value|\n|-|-|\n" + "\n".join(rows)
