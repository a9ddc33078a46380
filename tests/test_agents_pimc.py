"""The PIMC search agent: legal and deterministic play, an obvious winning line, the agent interface."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from envs import aec_env
from envs.skat import actions as A
from envs.skat.cards import GRAND, card, parse_cards
from envs.skat.observation import observe
from envs.skat.rules import PLAY, SkatGame

FAST = "pimc:preset=fast,worlds=4"


def _run_deal(act, env_seed: int, **env_options):
    """Play one deal, ``act(env, seat, observation)`` choosing every action (checked legal); the env at its end."""
    env = aec_env("skat", **env_options)
    env.reset(seed=env_seed)
    while env.agents:
        name = env.agent_selection
        if env.terminations[name] or env.truncations[name]:
            env.step(None)
            continue
        obs = env.observe(name)
        a = act(env, env.possible_agents.index(name), obs)
        assert obs["action_mask"][a], f"illegal action {A.action_name(a)}"
        env.step(a)
    return env


def _play_deal(agent_specs: list[str], seed: int, env_seed: int, **env_options) -> tuple[list[int], list[float]]:
    players = [agents.make(s, game="skat", seed=seed + i) for i, s in enumerate(agent_specs)]
    actions = []

    def act(env, seat, obs):
        actions.append(players[seat].act(obs))
        return actions[-1]

    env = _run_deal(act, env_seed, **env_options)
    return actions, list(env.state.scores)


def test_legal_and_deterministic() -> None:
    """PIMC in every seat (bidding by search too) plays only legal actions; a seed reproduces the deal."""
    spec = "pimc:worlds=3,auction=search,deals=2,budget=60000,world_limit=30000,deal_limit=20000"
    for env_seed in (1, 2):
        first = _play_deal([spec] * 3, seed=5, env_seed=env_seed)
        again = _play_deal([spec] * 3, seed=5, env_seed=env_seed)
        assert first == again


def test_options_kontra_ramsch() -> None:
    """With Kontra/Re and Ramsch on, against the rule agent, several deals stay legal."""
    for env_seed in range(3):
        _play_deal(["pimc:auction=search,deals=2,deal_limit=20000,worlds=4", "rule", "pimc:preset=fast,worlds=3"],
                   seed=1, env_seed=env_seed, kontra=True, ramsch=True)


def test_finds_the_winning_line() -> None:
    """Grand, two tricks left, the declarer (forehand) holds CJ and SA and needs both tricks for 61;
    the defenders hold SJ and three diamonds. CJ first draws SJ; SA first is ruffed by SJ."""
    hidden = parse_cards("SJ D7 D8 D9")
    hand = parse_cards("CJ SA")
    skat = parse_cards("H7 H8")
    rest = [c for c in range(32) if not (hidden | hand | skat) >> c & 1]
    state = SkatGame().state_from_deal(
        [hand | sum(1 << c for c in rest[:8]), parse_cards("SJ D7") | sum(1 << c for c in rest[8:16]),
         parse_cards("D8 D9") | sum(1 << c for c in rest[16:24])], skat)
    for p in range(3):  # eight tricks are gone
        gone = state.hands[p] & ~(hand | hidden)
        state.hands[p] ^= gone
        state.played[p] = gone
    state.phase, state.declarer, state.skat_taken = PLAY, 0, True
    state.contract_index = A.CONTRACT_BY_LABEL["G"]
    state.contract, state.bid = A.CONTRACTS[state.contract_index], 24
    state.trick_count, state.tricks_won, state.points = 8, [4, 2, 2], [46, 40, 34]
    state.current_player = state.leader = 0
    assert state.game_type == GRAND
    mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
    for a in state.legal_actions():
        mask[a] = 1
    obs = {"observation": observe(state, 0), "action_mask": mask}
    for question in ("grade", "win", "exact"):
        agent = agents.make("pimc", game="skat", seed=3, question=question)
        assert agent.act(obs) == A.PLAY + card("CJ"), question


def test_spec_strings_and_errors() -> None:
    agent = agents.make("pimc:worlds=7,question=exact", game="skat", seed=1)
    assert agent.options.worlds == 7 and agent.options.question == "exact"
    assert agents.make("pimc", game="skat", preset="fast").options.question == "win"
    with pytest.raises(ValueError, match="unknown pimc option"):
        agents.make("pimc:wolds=3", game="skat")
    with pytest.raises(ValueError, match="expected one of"):
        agents.make("pimc:question=maybe", game="skat")
    with pytest.raises(ValueError, match="plays Skat only"):
        agents.make("pimc", game="thirtyone")
    with pytest.raises(ValueError, match="takes no options"):
        agents.make("rule", game="skat", worlds=3)


def test_through_the_evaluator(tmp_path) -> None:
    from train.evaluate import main

    assert main([FAST, "rule", "--game", "skat", "--deals", "1", "--workers", "1", "--no-progress",
                 "--out", str(tmp_path)]) == 0
    assert (tmp_path / "summary.csv").is_file()


HYBRID = "pimc:base=checkpoints/skat_ppo.pt,from_trick=6,worlds=3,budget=60000,world_limit=30000"


def _hybrid_deal(spec: str, env_seed: int) -> list[tuple[int, int, int]]:
    """Every seat played by ``spec``; per decision (trick, network's greedy action, spec's action)."""
    hybrid = agents.make(spec, game="skat", seed=3)
    network = agents.make("checkpoints/skat_ppo.pt", game="skat", greedy=True)
    out = []

    def act(env, seat, obs):
        out.append((env.state.trick_count + 1, network.act(obs), hybrid.act(obs)))
        return out[-1][2]

    _run_deal(act, env_seed)
    return out


def test_base_agent_plays_until_from_trick() -> None:
    """With a checkpoint as base, every decision before trick ``from_trick`` (the auction, skat,
    discard and declaration included) is the network's greedy one; from it on the search decides
    card play, and it changes some cards; ``from_trick=10`` (only the forced last card left to
    search) plays exactly as the network."""
    changed = 0
    for env_seed in range(4):
        decisions = _hybrid_deal(HYBRID, env_seed)
        assert all(net == a for trick, net, a in decisions if trick < 6)
        changed += sum(net != a for trick, net, a in decisions if trick >= 6)
        last = _hybrid_deal("pimc:base=checkpoints/skat_ppo.pt,from_trick=10", env_seed)
        assert all(net == a for _, net, a in last)
    assert changed > 0


def test_base_and_from_trick_errors() -> None:
    assert agents.make("pimc", game="skat").options.base == "rule"
    endgame = agents.make("pimc:preset=endgame,from_trick=7", game="skat").options
    assert endgame.base.endswith("skat_ppo.pt") and endgame.from_trick == 7 and endgame.worlds == 8
    expert = agents.make("pimc:preset=expert", game="skat").options
    assert expert.base.endswith("skat_exit_dagger.pt") and expert.from_trick == 7 and expert.worlds == 8
    with pytest.raises(ValueError, match="'expert'"):
        agents.make("pimc:preset=strong", game="skat")
    with pytest.raises(ValueError, match="from_trick=0"):
        agents.make("pimc:from_trick=0", game="skat")
    with pytest.raises(ValueError, match="from_trick=11"):
        agents.make("pimc:from_trick=11", game="skat")
    with pytest.raises(ValueError, match="not another pimc agent"):
        agents.make("pimc:base=pimc", game="skat")
    with pytest.raises((ValueError, FileNotFoundError), match="nowhere.pt"):
        agents.make("pimc:base=nowhere.pt", game="skat")
