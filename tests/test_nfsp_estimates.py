"""NFSP's best response must estimate expected returns: a Huber loss estimated something else.

The Huber loss of Atari DQN (smooth L1, delta 1) behaves like an absolute error for TD errors
beyond 1, so its minimiser drifts from the mean toward the median. Card-game returns spread wider:
Kuhn poker pays -2..2, Skat (at reward_scale 0.01) and Leduc more. The best response then answered
the wrong question and NFSP's average policy stalled far from equilibrium (train/bench/nfsp.py).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.networks import network_spec
from agents.nfsp import NFSP, NFSPConfig

# Betting with the queen in Kuhn poker against uniform play: the opponent folds (+1) half the time,
# else calls with the jack (+2) or the king (-2). Mean +0.5, median +1.
OUTCOMES = np.array([1.0, 1.0, 2.0, -2.0], np.float32)


@pytest.fixture(autouse=True)
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny networks: more threads only wait for each other on shared cores
    yield
    torch.set_num_threads(threads)


def fitted_q(loss: str) -> float:
    learner = NFSP(network_spec("nfsp", 3, 2, [16], "relu"),
                   NFSPConfig(rl_loss=loss, rl_learning_rate=0.002, batch_size=512, learning_starts=1))
    rng = np.random.default_rng(0)
    n = 4096
    obs = np.tile(np.array([[1.0, 0.0, 1.0]], np.float32), (n, 1))
    learner.replay.add(obs, np.ones((n, 2), bool), np.ones(n, np.int64), rng.choice(OUTCOMES, n),
                       np.ones(n, bool))  # one-step episodes: the target is the reward alone
    for _ in range(400):
        learner._rl_step(rng)
    with torch.no_grad():
        return float(learner.network.q_values(torch.from_numpy(obs[:1]))[0, 1])


def test_the_best_response_estimates_the_expected_return():
    assert fitted_q("mse") == pytest.approx(0.5, abs=0.1)


def test_the_huber_loss_would_estimate_nearer_the_median():
    assert fitted_q("huber") > 0.8  # why "mse" is the default: a best response to this is no best response


def test_the_loss_is_a_checked_config_key():
    assert NFSPConfig().rl_loss == "mse"
    assert "rl_loss" in NFSPConfig(rl_loss="l1").problems()
