"""The trainer end to end on both games: logs, checkpoints, exact resume, rollout bookkeeping."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from agents import checkpoint, make
from agents.networks import network_spec
from envs.gym import aec_env
from train.__main__ import main
from train.config import ConfigError, load_config
from train.evaluate import evaluate, is_win
from train.opponents import OpponentPool
from train.rollout import RolloutSpec, RolloutWorker
from train.trainer import Trainer

ENV_OPTIONS = {"skat": "{}", "thirtyone": "{num_players: 3, lives: 1}"}


def tiny(tmp_path, game: str, *overrides: str) -> list[str]:
    return [
        f"game={game}", f"env_options={ENV_OPTIONS[game]}", "hidden=16", "num_envs=4", "num_steps=6",
        "num_workers=1", "rollout_chunks=2", "total_timesteps=80", "eval_every=1", "eval_episodes=6",
        "checkpoint_every=1", "snapshot_every=1", "pool_size=2", "opponents=self:1,snapshot:1,random:1,rule:1",
        "progress=false", "reward_scale=0.01", f"runs_dir={tmp_path}/runs", f"checkpoint_dir={tmp_path}/ckpt",
        "run_name=t", "best_metric=eval/win_rate_vs_rule", *overrides,
    ]


@pytest.mark.parametrize("game", ["skat", "thirtyone"])
def test_training_logs_and_checkpoints(tmp_path, game):
    trainer = Trainer(load_config(overrides=tiny(tmp_path, game)))
    results = trainer.train()
    assert trainer.update >= 2 and trainer.global_step >= 80
    assert set(results) >= {"eval/win_rate_vs_random", "eval/mean_score_vs_rule"}
    run = tmp_path / "ckpt" / "t"
    latest = checkpoint.load(run / "latest.pt", game=game, resumable=True)
    assert latest["trainer"]["global_step"] == trainer.global_step
    assert latest["metadata"]["network"]["kind"] == "policy"
    assert "eval/win_rate_vs_rule" in checkpoint.load(run / "best.pt")["metadata"]["eval"]
    events = EventAccumulator(str(tmp_path / "runs" / "t"))
    events.Reload()
    tags = set(events.Tags()["scalars"])
    for tag in ("charts/episodic_return", "charts/SPS", "charts/collect_us_per_step", "charts/update_us_per_step",
                "losses/policy_loss", "losses/value_loss",
                "losses/entropy", "losses/approx_kl", "losses/clipfrac", "losses/explained_variance",
                "eval/win_rate_vs_random", "eval/mean_score_vs_rule"):
        assert tag in tags, tag
    assert any(t.startswith("game/") for t in tags)
    assert "config/text_summary" in events.Tags()["tensors"]


def test_resume_continues_exactly(tmp_path):
    straight = Trainer(load_config(overrides=tiny(tmp_path / "a", "skat", "total_timesteps=100")))
    straight.train()
    first = Trainer(load_config(overrides=tiny(tmp_path / "b", "skat", "total_timesteps=1")))
    first.train()
    assert first.update == 1
    latest = tmp_path / "b" / "ckpt" / "t" / "latest.pt"
    assert main(["--resume", str(latest), "--set", "total_timesteps=100"]) == 0
    resumed = Trainer.resume(str(latest))
    assert (resumed.update, resumed.global_step, resumed.episodes) == (
        straight.update, straight.global_step, straight.episodes)
    assert [i for i, _ in resumed.pool.snapshots] == [i for i, _ in straight.pool.snapshots]
    for key, value in straight.learner.network.state_dict().items():
        assert torch.equal(value, resumed.learner.network.state_dict()[key]), key
    assert resumed.rng.bit_generator.state == straight.rng.bit_generator.state


def test_worker_processes_do_not_change_the_result(tmp_path):
    runs = []
    for workers in (1, 2):
        trainer = Trainer(load_config(overrides=tiny(tmp_path / str(workers), "skat", f"num_workers={workers}",
                                                     "rollout_chunks=3", "num_envs=6", "eval_opponents=[]")))
        trainer.train()
        runs.append(trainer)
    assert runs[0].global_step == runs[1].global_step and runs[0].update >= 2
    for key, value in runs[0].learner.network.state_dict().items():
        assert torch.equal(value, runs[1].learner.network.state_dict()[key]), key


@pytest.mark.parametrize("game, learner_seats", [("skat", 3), ("thirtyone", 1)])
def test_rollout_credits_every_reward_to_the_seat_that_earned_it(game, learner_seats):
    env = aec_env(game, **load_config(overrides=[f"game={game}", f"env_options={ENV_OPTIONS[game]}"]).env_options)
    seat = env.possible_agents[0]
    spec = network_spec("actor_critic", env.observation_space(seat)["observation"].shape[0],
                        env.action_space(seat).n, [8], "tanh")
    options = {"skat": {}, "thirtyone": {"num_players": 3, "lives": 1}}[game]
    worker = RolloutWorker(RolloutSpec(game, options, 3, "ppo", spec, {**spec, "kind": "policy"},
                                       learner_seats=learner_seats, num_steps=10, reward_scale=1.0, seed=3))
    worker.sync(OpponentPool({"random": 1.0}, 1, "uniform").plan(), {})
    batch, episodes = worker.collect(0, 0, [0, 1, 2])
    learner_returns = [r for e in episodes for r, p in zip(e.returns, e.players, strict=True) if p == "learner"]
    assert batch["done"].sum() == len(learner_returns)  # one complete trajectory per (deal, learner seat)
    assert batch["reward"].sum() == pytest.approx(sum(learner_returns))
    assert np.count_nonzero(batch["reward"][~batch["done"]]) == 0  # rewards come only at the end of a deal
    again, _ = worker.collect(0, 0, [0, 1, 2])
    assert all(np.array_equal(batch[k], again[k]) for k in batch)  # (seed, update, chunk) fixes a rollout


class _MaskOnlyRandom:
    """A random player that must never be shown more than the action mask."""

    needs_observation = False

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)
        self.decisions = 0

    def act(self, observation: dict) -> int:
        assert set(observation) == {"action_mask"}
        self.decisions += 1
        return int(self.rng.choice(np.flatnonzero(observation["action_mask"])))


@pytest.mark.parametrize("game", ["skat", "thirtyone"])
def test_rollout_hands_mask_only_players_the_mask(game):
    from arena import Deal, episode_of, play
    from train.rollout import Learner

    envs = [aec_env(game) for _ in range(3)]
    opponent = _MaskOnlyRandom()
    deals = [0] * len(envs)
    learner = Learner(lambda obs, mask, traj: (np.array([np.flatnonzero(m)[0] for m in mask]), {}))

    def start(i):
        if deals[i] == 2:
            return None
        deals[i] += 1
        n = len(envs[i].possible_agents)
        return Deal([learner] + [opponent] * (n - 1), ["learner"] + ["random"] * (n - 1), seed=10 * i + deals[i])

    episodes = []
    play(envs, start, lambda done: episodes.append(episode_of(done)))
    batch = learner.batch()
    assert len(episodes) == 6 and opponent.decisions > 0
    assert sum(e.length for e in episodes) == opponent.decisions + len(batch["action"])
    assert batch["mask"][np.arange(len(batch["action"])), batch["action"]].all()


def test_evaluation_statistics():
    assert is_win([90.0, 0.0, 0.0], 0) and not is_win([90.0, 0.0, 0.0], 1)
    assert is_win([-110.0, 40.0, 40.0], 2) and not is_win([0.0, 0.0, 0.0], 0)
    result = evaluate(make("random", game="skat", seed=1), "random", "skat", episodes=30)
    assert result.episodes == 30 and 0.0 <= result.win_rate <= 1.0 and result.score_ci > 0
    low, high = result.win_ci
    assert low <= result.win_rate <= high


@pytest.mark.parametrize("game", ["skat", "thirtyone"])
def test_duplicate_evaluation_pairs_each_deal_with_the_opponent_in_the_same_seat(game):
    options = {"num_players": 3, "lives": 1} if game == "thirtyone" else {}
    same = evaluate(make("rule", game=game), "rule", game, options, episodes=12, seed=3, duplicate=True)
    if game == "skat":  # deterministic against itself: every replayed deal is the same deal, difference 0
        assert same.advantage == 0.0 and same.advantage_ci == 0.0
    else:  # Thirty-One's rule agent breaks ties at random
        assert abs(same.advantage) <= 1.5 and same.advantage_ci >= 0
    # A random player's differences are real ones, and its plain score is unchanged by the replay.
    plain = evaluate(make("random", game=game, seed=1), "rule", game, options, episodes=12, seed=3)
    dup = evaluate(make("random", game=game, seed=1), "rule", game, options, episodes=12, seed=3, duplicate=True)
    assert dup.mean_score == plain.mean_score and plain.advantage is None
    assert dup.advantage != 0.0 and dup.advantage_ci > 0 and "advantage over rule" in str(dup)


def test_trainer_logs_the_duplicate_advantage(tmp_path):
    trainer = Trainer(load_config(overrides=tiny(tmp_path, "skat", "eval_duplicate=true", "eval_opponents=[rule]",
                                                  "best_metric=eval/advantage_vs_rule", "total_timesteps=24",
                                                  "eval_greedy=true")))
    results = trainer.train()
    assert {"eval/advantage_vs_rule", "eval/advantage_ci_vs_rule"} <= set(results)
    assert make(str(tmp_path / "ckpt" / "t" / "best.pt")).greedy  # chosen by greedy play, so it plays greedily
    with pytest.raises(ConfigError, match="advantage"):
        Trainer(load_config(overrides=tiny(tmp_path, "skat", "best_metric=eval/advantage_vs_rule")))
