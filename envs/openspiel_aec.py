"""OpenSpiel games as PettingZoo AEC envs: train our learners on exactly OpenSpiel's game.

A game with a known equilibrium is how an implementation is checked: OpenSpiel computes the exact
exploitability of a policy on ``kuhn_poker`` or ``leduc_poker``, and this env lets our trainer learn
on the very same game tree (``train/bench/nfsp.py`` does both)::

    from envs import openspiel_aec
    env = openspiel_aec.env(game="kuhn_poker")     # any turn-based OpenSpiel game with information-state tensors
    python -m train --config configs/skat_nfsp.yaml --set game=envs.openspiel_aec env_options.game=leduc_poker \
        pretrain.teacher= pretrain.copy_teacher=false nfsp.demo_weight=0 nfsp.demo_reservoir=0 nfsp.anchor_weight=0 ...

* seats ``player_0 .. player_{n-1}`` are OpenSpiel's players ``0 .. n-1``;
* observation ``{"observation": float32 information_state_tensor(player), "action_mask": int8 legal actions}``
  (:func:`observation` is the one mapping; the exploitability policy wrapper uses it too);
* actions are OpenSpiel's distinct actions; chance nodes are sampled from the env's seeded RNG;
* rewards: each step hands out the change of ``state.returns()`` (poker: everything at the end).

Game parameters go with the name: ``env(game="kuhn_poker", players=3)``. OpenSpiel is an optional
extra (``pip install -e '.[exploitability]'``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from envs.checks import as_action, as_seed

try:
    import pyspiel
except ImportError as e:  # pragma: no cover - depends on the installed extras
    raise ImportError("envs.openspiel_aec needs OpenSpiel: pip install 'open_spiel>=2.0' "
                      "(the project's optional extra: pip install -e '.[exploitability]')") from e

OBSERVATION_VERSION = 1  # OpenSpiel's information_state_tensor, as the game defines it
_INT8 = np.dtype(np.int8)


def env(**kwargs: Any) -> AECEnv:
    """The OpenSpiel game as an AEC env with PettingZoo's order-enforcing wrapper."""
    return OrderEnforcingWrapper(raw_env(**kwargs))


def load_game(game: str | Any, **params: Any) -> Any:
    """A ``pyspiel.Game`` (a name with keyword parameters, or a game object); refuses games this env cannot play."""
    if not isinstance(game, str):
        if params:
            raise ValueError("game parameters go with a game name, not with a loaded game object")
        loaded = game
    else:
        try:
            loaded = pyspiel.load_game(game, params) if params else pyspiel.load_game(game)
        except pyspiel.SpielError as e:
            raise ValueError(f"OpenSpiel cannot load game {game!r} with parameters {params}: {e}") from None
    kind = loaded.get_type()
    if kind.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        raise ValueError(f"{kind.short_name} is not turn-based; an AEC env needs sequential moves")
    if not kind.provides_information_state_tensor:
        raise ValueError(f"{kind.short_name} provides no information-state tensor to observe")
    return loaded


def observation(state: Any, player: int, num_actions: int) -> dict[str, np.ndarray]:
    """What seat ``player`` observes in an OpenSpiel state: its information-state tensor and, if it is
    to act, its legal actions (else an all-zero mask)."""
    mask = np.zeros(num_actions, _INT8)
    if not state.is_terminal() and state.current_player() == player:
        mask[state.legal_actions(player)] = 1
    return {"observation": np.asarray(state.information_state_tensor(player), np.float32), "action_mask": mask}


class raw_env(AECEnv, EzPickle):
    """An OpenSpiel game (default ``kuhn_poker``) as a PettingZoo AEC env; keyword parameters are the game's."""

    metadata = {"render_modes": ["human", "ansi"], "name": "openspiel_aec_v0", "is_parallelizable": False}

    def __init__(self, game: str = "kuhn_poker", render_mode: str | None = None, **params: Any) -> None:
        EzPickle.__init__(self, game=game, render_mode=render_mode, **params)
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        self.game = load_game(game, **params)
        self.num_actions = self.game.num_distinct_actions()
        obs_size = int(np.prod(self.game.information_state_tensor_shape()))
        self.possible_agents = [f"player_{i}" for i in range(self.game.num_players())]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.observation_spaces = {
            a: spaces.Dict({"observation": spaces.Box(-np.inf, np.inf, (obs_size,), np.float32),
                            "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8)})
            for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        self._names = self._action_names()
        self._np_random: np.random.Generator | None = None
        self.agents: list[str] = []
        self.state: Any = None  # the pyspiel.State (the rules state, as env.unwrapped.state in our games)

    def _action_names(self) -> list[str]:
        """Names from the first decision of a deal (OpenSpiel names actions in a state); ``action <i>`` otherwise."""
        state = self.game.new_initial_state()
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        names = []
        for a in range(self.num_actions):
            try:
                names.append(state.action_to_string(state.current_player(), a).lower())
            except pyspiel.SpielError:
                names.append(f"action {a}")
        return names

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def action_name(self, action: int) -> str:
        return self._names[action]

    # ----------------------------------------------------------------- the AEC API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """New deal; chance (the cards) is drawn from the env's RNG, seeded by ``seed``. No reset options."""
        if options is not None and (not isinstance(options, dict) or set(options) - {"options"}):
            # ("options" is PettingZoo api_test's probe of the keyword, ignored as in envs.checks)
            raise ValueError(f"an OpenSpiel deal takes no reset options (chance is drawn from the seed), got {options}")
        seed = as_seed(seed)
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        self.state = self.game.new_initial_state()
        self._emitted = [0.0] * len(self.possible_agents)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._advance()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return observation(self.state, self._seat[agent], self.num_actions)

    def action_mask(self, agent: str) -> np.ndarray:
        """``observe(agent)["action_mask"]`` without building the observation."""
        mask = np.zeros(self.num_actions, _INT8)
        state, seat = self.state, self._seat[agent]
        if not state.is_terminal() and state.current_player() == seat:
            mask[state.legal_actions(seat)] = 1
        return mask

    def step(self, action: Any) -> None:
        try:
            agent = self.agent_selection
            dead = self.terminations[agent] or self.truncations[agent]
        except (AttributeError, KeyError):
            raise ValueError("step() without a game in progress: call reset() first") from None
        if dead:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act: action None is only for agents that are done")
        a = as_action(action, self.num_actions, agent)
        seat = self._seat[agent]
        if a not in self.state.legal_actions(seat):
            raise ValueError(f"{agent} chose illegal action {a} ({self._names[a]}); legal: "
                             f"{self.state.legal_actions(seat)}")
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self.state.apply_action(a)
        self._advance()

    def _advance(self) -> None:
        """Sample chance nodes up to the next decision, hand out the change in returns, end the deal if over."""
        state = self.state
        while state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(actions[self._np_random.choice(len(actions), p=np.asarray(probs))]))
        returns = state.returns()
        for i, agent in enumerate(self.possible_agents):
            self.rewards[agent] = returns[i] - self._emitted[i]
            self._emitted[i] = returns[i]
        self._accumulate_rewards()
        if state.is_terminal():
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.possible_agents[state.current_player()]
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None or self.state is None:
            return None
        text = str(self.state)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass
