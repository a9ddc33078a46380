"""OpenSpiel games as AEC envs (envs.openspiel_aec), exact exploitability of our policies
(train.bench.exploitability), and our NFSP learning Kuhn poker. Skipped without OpenSpiel."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="needs the exploitability extra: pip install -e '.[exploitability]'")

import torch  # noqa: E402
from open_spiel.python.algorithms import cfr  # noqa: E402
from open_spiel.python.algorithms import exploitability as openspiel_exploitability  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

from agents.networks import PolicyMLP  # noqa: E402
from arena import env_shape  # noqa: E402
from envs import openspiel_aec  # noqa: E402
from envs.games import describe  # noqa: E402
from train.bench.exploitability import AgentPolicy, exploitability, policy_table  # noqa: E402

pytestmark = [pytest.mark.filterwarnings("ignore:.*should be gymnasium.spaces.box:UserWarning"),
              pytest.mark.filterwarnings("ignore:The old environment creation API:DeprecationWarning")]
UNIFORM_KUHN = 0.4583333333  # OpenSpiel's exploitability of uniform random play in Kuhn poker


@pytest.mark.parametrize("game", ["kuhn_poker", "leduc_poker"])
def test_the_adapter_passes_pettingzoos_api_test(game):
    api_test(openspiel_aec.env(game=game), num_cycles=100)


@pytest.mark.parametrize("game", ["kuhn_poker", "leduc_poker"])
def test_a_deal_is_openspiels_game_seen_by_each_seat(game):
    env = openspiel_aec.raw_env(game=game)
    rng = np.random.default_rng(0)
    for seed in range(20):
        env.reset(seed=seed)
        got = dict.fromkeys(env.possible_agents, 0.0)
        while env.agents:
            agent = env.agent_selection
            _, reward, terminated, _, _ = env.last()
            got[agent] += reward
            if terminated:
                env.step(None)
                continue
            state, seat = env.state, int(agent.split("_")[1])
            obs = env.observe(agent)
            assert state.current_player() == seat
            assert obs["observation"].tolist() == pytest.approx(state.information_state_tensor(seat))
            assert np.flatnonzero(obs["action_mask"]).tolist() == state.legal_actions(seat)
            assert obs["action_mask"].tolist() == env.action_mask(agent).tolist()
            assert not env.observe(env.possible_agents[1 - seat])["action_mask"].any()
            env.step(int(rng.choice(state.legal_actions(seat))))
        assert env.state.is_terminal() and list(got.values()) == env.state.returns()


def test_the_adapter_is_seeded_and_refuses_what_it_cannot_play():
    env = openspiel_aec.raw_env()
    deals = []
    for _ in range(2):
        env.reset(seed=7)
        deals.append(env.state.history())
    assert deals[0] == deals[1]
    with pytest.raises(ValueError, match="no reset options"):
        env.reset(options={"deal": 1})
    with pytest.raises(ValueError, match="out of range"):
        env.reset(seed=0)
        env.step(2)  # Kuhn has pass (0) and bet (1)
    leduc = openspiel_aec.raw_env(game="leduc_poker")
    leduc.reset(seed=0)
    with pytest.raises(ValueError, match=r"illegal action 0 \(fold\)"):
        leduc.step(0)  # nothing to fold against yet
    with pytest.raises(ValueError, match="not turn-based"):
        openspiel_aec.raw_env(game="matrix_rps")
    with pytest.raises(ValueError, match="cannot load"):
        openspiel_aec.raw_env(game="no_such_game")
    three = describe("envs.openspiel_aec")
    assert three.num_seats({"game": "kuhn_poker", "players": 3}) == 3
    assert env_shape(three.raw_env(game="leduc_poker")) == (30, 3)
    assert three.action_names() == ("pass", "bet")


def test_exploitability_of_uniform_play_and_of_cfr_through_our_observations():
    game = pyspiel.load_game("kuhn_poker")
    uniform = PolicyMLP(11, 2, [8])
    torch.nn.init.zeros_(uniform.actor[-1].weight)
    assert exploitability("kuhn_poker", uniform) == pytest.approx(UNIFORM_KUHN)
    # The per-state wrapper and the batched table agree on a network that is not uniform.
    net = PolicyMLP(11, 2, [8])
    assert exploitability(game, net) == pytest.approx(openspiel_exploitability.exploitability(game,
                                                                                              AgentPolicy(game, net)))
    # CFR's average policy, looked up by our observation (the information-state tensor) alone: the
    # observation names the information state, so the exploitability is CFR's own.
    solver = cfr.CFRSolver(game)
    for _ in range(200):
        solver.evaluate_and_update_policy()
    average = solver.average_policy()
    by_observation = {}
    reference = policy_table(game, lambda obs, mask, players: np.full(mask.shape, 0.5))
    for state in reference.states:
        probs = average.action_probabilities(state)
        by_observation[tuple(state.information_state_tensor())] = [probs.get(a, 0.0) for a in range(2)]

    def lookup(obs, mask, players):
        return np.array([by_observation[tuple(row.tolist())] for row in obs])

    expected = openspiel_exploitability.exploitability(game, average)
    assert expected < 0.01
    assert exploitability(game, lookup) == pytest.approx(expected)


def test_our_nfsp_learns_kuhn_poker(tmp_path):
    """Seeded: exploitability falls from uniform play's 0.458 to about 0.15 within 8k episodes (2-3 CPU
    seconds; seeds 1-3 give 0.14-0.16). The benchmark's config, learning from 300 samples on."""
    from train.bench.nfsp import OurNFSP

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    ours = OurNFSP("kuhn_poker", 8000, ["nfsp.reservoir_size=20000", "nfsp.learning_starts=300"], str(tmp_path))
    try:
        before = ours.exploitability()
        ours.train_to(8000)
        after = ours.exploitability()
    finally:
        ours.close()
        torch.set_num_threads(threads)
    assert before == pytest.approx(UNIFORM_KUHN, abs=0.01)
    assert after < 0.25, (before, after)


@pytest.mark.skipif(importlib.util.find_spec("tree") is None, reason="OpenSpiel's pytorch NFSP needs dm-tree")
def test_the_benchmark_command_trains_both_and_writes_its_files(tmp_path, capsys):
    from train.bench.__main__ import main

    out = tmp_path / "bench"
    assert main(["nfsp", "--game", "kuhn_poker", "--episodes", "800", "--points", "2", "--first", "400",
                 "--out", str(out), "--no-progress", "--set", "nfsp.reservoir_size=5000"]) == 0
    text = capsys.readouterr().out
    assert "OpenSpiel" in text and "ours/OS" in text and "worst ratio" in text
    for suffix in ("csv", "png", "json", "pt"):
        assert (out / f"nfsp_kuhn_poker.{suffix}").is_file()
    import agents

    player = agents.load(out / "nfsp_kuhn_poker.pt")
    assert player.game == "envs.openspiel_aec" and exploitability("kuhn_poker", player) < 1.0
    from train.bench.exploitability import main as exploitability_main

    assert exploitability_main([str(out / "nfsp_kuhn_poker.pt"), "--policy", "best_response"]) == 0
    assert "(best_response) on kuhn_poker: exploitability" in capsys.readouterr().out


def test_the_benchmark_names_a_game_it_cannot_play(tmp_path, capsys):
    from train.bench.nfsp import main

    assert main(["--game", "matrix_rps", "--episodes", "10", "--out", str(tmp_path), "--no-progress"]) == 2
    assert "not turn-based" in capsys.readouterr().err
