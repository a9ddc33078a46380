"""The RLlib adapter (envs/rllib.py) and the example examples/rllib_skat_ppo.py.

Needs the ray extra (``pip install -e '.[ray]'``); skipped without it. Marked ``ray``: run with
``pytest -m ray``.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from envs.rllib import MASK_KEY, OBS_KEY, TurnBasedEnv  # noqa: E402

pytestmark = pytest.mark.ray
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "rllib_skat_ppo.py"


@pytest.mark.parametrize("game, options", [("skat", {}), ("thirtyone", {"num_players": 4, "lives": 2})])
def test_turn_based_env_follows_the_aec_game(game, options):
    env = TurnBasedEnv({"game": game, "env_options": options, "reward_scale": 0.5})
    space = env.observation_spaces[env.possible_agents[0]]
    assert set(space.spaces) == {OBS_KEY, MASK_KEY} and space[MASK_KEY].dtype == np.float32
    rng = np.random.default_rng(0)
    for deal in range(20):
        obs, _ = env.reset(seed=deal)
        returns = dict.fromkeys(env.possible_agents, 0.0)
        finished = set()
        while True:
            acting = [a for a in obs if a not in finished and obs[a][MASK_KEY].any()]
            assert len(acting) == 1  # turn-based: one agent to act (plus final observations of finished seats)
            assert all(space.contains(o) for o in obs.values())
            agent = acting[0]
            obs, rewards, terminateds, truncateds, _ = env.step(
                {agent: int(rng.choice(np.flatnonzero(obs[agent][MASK_KEY])))})
            for a, r in rewards.items():
                returns[a] += r
            finished |= {a for a, done in terminateds.items() if done and a != "__all__"}
            if terminateds["__all__"]:
                break
        assert finished == set(env.possible_agents) and not truncateds["__all__"]
        assert all(not o[MASK_KEY].any() for o in obs.values())
        # Rewards add up to the AEC env's returns of the same deal (replayed with the same seed).
        assert sum(returns.values()) == pytest.approx(0.5 * env_total(game, options, env))


def env_total(game, options, env):
    """The sum of the seats' cumulative rewards PettingZoo recorded for the finished deal."""
    unwrapped = env.aec
    if game == "skat":
        return float(sum(unwrapped.state.scores))
    return float(sum(unwrapped.state.payoff))


def test_rllib_ppo_example_runs_two_iterations(tmp_path):
    spec = importlib.util.spec_from_file_location("rllib_skat_ppo", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    history = example.main(["--iterations", "2", "--num-env-runners", "0", "--train-batch-size", "300",
                            "--minibatch-size", "100", "--num-epochs", "1", "--hidden", "32", "--num-cpus", "2",
                            "--checkpoint", str(tmp_path / "algo")])
    assert len(history) == 2
    assert history[-1]["env_steps_lifetime"] >= 600  # an illegal action would have raised in the env
    assert math.isfinite(history[-1]["episode_return_mean"])
    assert (tmp_path / "algo").is_dir() and any((tmp_path / "algo").iterdir())
