"""``envs.wrappers.ClassicWrapper`` behaves exactly like PettingZoo's classic wrapper stack.

Both games are played in lockstep through ClassicWrapper and through TerminateIllegalWrapper +
AssertOutOfBoundsWrapper + OrderEnforcingWrapper, with legal moves, illegal ones (the episode
ends at -1), out-of-range ones, numpy and Python ints, and ``None`` for done agents; everything an
agent can see must agree, and so must the errors.
"""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from pettingzoo.utils import wrappers

from envs import env_module
from envs.wrappers import ClassicWrapper


def pettingzoo_stack(game: str):
    e = wrappers.TerminateIllegalWrapper(env_module(game).raw_env(), illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(e))


def outcome(fn):
    """What a call returns, or the type and text of what it raises."""
    try:
        return ("ok", fn())
    except Exception as exc:  # noqa: BLE001 - any error must match in type and text
        return (type(exc).__name__, str(exc))


def same(a, b) -> None:
    """Equal, arrays compared by value (and dtype)."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys()
        for k in a:
            same(a[k], b[k])
    elif isinstance(a, tuple | list):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            same(x, y)
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b and type(a) is type(b), (a, b)


def state(e) -> tuple:
    return (e.agents, e.agent_selection, e.rewards, e.terminations, e.truncations, e.infos)


@pytest.mark.parametrize("game", ["thirtyone", "skat"])
def test_same_as_pettingzoo_wrappers(game: str) -> None:
    rng = random.Random(0)
    illegal_ends = 0
    for seed in range(6):
        ours, theirs = ClassicWrapper(env_module(game).raw_env(), illegal_reward=-1), pettingzoo_stack(game)
        with pytest.raises(AttributeError, match="before reset"):
            ours.agent_selection  # noqa: B018
        with pytest.raises(AttributeError, match="before reset"):
            theirs.agent_selection  # noqa: B018
        same(outcome(lambda e=ours: e.step(0)), outcome(lambda e=theirs: e.step(0)))
        same(outcome(lambda e=ours: e.agent_iter()), outcome(lambda e=theirs: e.agent_iter()))
        ours.reset(seed=seed)
        theirs.reset(seed=seed)
        illegal_at = rng.randrange(25) if seed % 2 else -1  # odd seeds end on an illegal move
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PettingZoo's illegal-move warning
            for steps, (a, b) in enumerate(zip(ours.agent_iter(), theirs.agent_iter(), strict=True)):
                assert a == b
                if steps % 7 == 3:  # peeking at another agent must not change what last() reports
                    other = rng.choice(ours.agents)
                    same(ours.observe(other), theirs.observe(other))
                la, lb = ours.last(), theirs.last()
                same(la, lb)
                obs, _, term, trunc, _ = la
                if term or trunc:
                    action = None
                else:
                    legal = np.flatnonzero(obs["action_mask"])
                    if steps == illegal_at:
                        action = int(np.flatnonzero(obs["action_mask"] == 0)[0])
                        illegal_ends += 1
                    else:
                        action = legal[rng.randrange(legal.size)]
                        action = int(action) if steps % 2 else action  # np.int64 or int
                    bad = rng.choice([-1, 10_000, 2.0, "x", np.array([1])]) if steps % 11 == 5 else None
                    if bad is not None:  # AssertOutOfBoundsWrapper: rejected, nothing changes
                        same(outcome(lambda e=ours, x=bad: e.step(x)), outcome(lambda e=theirs, x=bad: e.step(x)))
                same(outcome(lambda e=ours, x=action: e.step(x)), outcome(lambda e=theirs, x=action: e.step(x)))
                same(state(ours), state(theirs))
                assert steps < 5000
        assert not ours.agents and not theirs.agents
        same(outcome(lambda e=ours: e.step(None)), outcome(lambda e=theirs: e.step(None)))
    assert illegal_ends == 3


@pytest.mark.parametrize("game", ["thirtyone", "skat"])
def test_action_mask_is_the_mask_of_observe(game: str) -> None:
    """``action_mask(agent)`` (the mask-only path of random players) equals ``observe(agent)["action_mask"]``
    for every agent at every decision, and an illegal move after it still ends the episode."""
    rng = np.random.default_rng(1)
    for seed in range(4):
        env = ClassicWrapper(env_module(game).raw_env(), illegal_reward=-1)
        env.reset(seed=seed)
        while env.agents:
            for agent in env.agents:
                same(env.action_mask(agent), env.observe(agent)["action_mask"])
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            mask = env.action_mask(agent)
            env.step(int(rng.choice(np.flatnonzero(mask))))
    env = ClassicWrapper(env_module(game).raw_env(), illegal_reward=-1)
    env.reset(seed=0)
    agent = env.agent_selection
    illegal = int(np.flatnonzero(env.action_mask(agent) == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(illegal)
    assert env.rewards[agent] == -1 and all(env.terminations.values())
