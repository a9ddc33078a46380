"""PettingZoo AEC environment for Thirty-One: ``raw_env`` and ``env()`` (the usual classic wrappers).

Agents ``player_0`` .. ``player_{n-1}``; ``player_i`` sits at seat ``i`` and the deal goes
clockwise (to the next seat). One ``Discrete(57)`` action space for every seat (see
``actions.py``); the observation is ``{"observation": float32[1130], "action_mask": int8[57]}``
(see ``observation.py``), the mask all zeros for every agent that is not to act. Games with cards on
the table (and the other options the classic layout lacks: ``options.CLASSIC_ONLY``) use the table
layout: ``float32[1538]`` and ``Discrete(73)`` (``observation_table.py``). ``variant=NAME`` starts from
a named game (``variants.py``); the other options override it.

Rewards come only when they are earned:

* ``episode="round"``: at the end of the deal, minus the lives lost (lives game) or the points won
  (points game); a void round gives 0.
* ``episode="game"``, ``reward_scheme="win"`` (default): +1 to the winner, -1/(n-1) to each other
  player, given to an eliminated player when it is eliminated (it then leaves ``env.agents``).
* ``reward_scheme="placement"``: linear in the final place, +1 for first to -1 for last
  (``1 - 2 (place - 1) / (n - 1)``); players eliminated in the same round (or tied on points)
  share their places.
* ``reward_scheme="tokens"``: tokens won or lost, as they are paid (``settle.py``).

A deal that would end the episode or eliminate a player before anybody decides anything (a blitz
on the deal with ``episode="round"``, or with one life and no free ride) is redealt; with a fixed
``deck`` that is a ValueError instead. ``episode_stats()['redeals']`` counts them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.logger import warn
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv

from envs.checks import agent_to_step, as_action, as_seat, as_seed, check_keys, check_reset_options
from envs.thirtyone.actions import action_index
from envs.thirtyone.observation import OBS_SIZE, OBSERVATION_VERSION, ObservationEncoder
from envs.thirtyone.observation_table import TABLE_OBS_SIZE, TABLE_OBSERVATION_VERSION, TableEncoder
from envs.thirtyone.render import render_text
from envs.thirtyone.rules import ThirtyOneGame, ThirtyOneState
from envs.thirtyone.settle import summary_key
from envs.wrappers import ClassicWrapper

_INT8 = np.dtype(np.int8)  # a dtype instance: np.frombuffer / np.zeros parse it fastest
RESET_OPTIONS = ("deal", "dealer", "deck")  # "deck": the old spelling of {"deal": {"deck": ...}}
DEAL_KEYS = ("deck",)


def env(**kwargs: Any) -> AECEnv:
    """The Thirty-One AEC env with PettingZoo's classic checks (illegal move = -1 and game over), see envs.wrappers."""
    return ClassicWrapper(raw_env(**kwargs), illegal_reward=-1)


class raw_env(AECEnv, EzPickle):
    """Thirty-One for 2..9 players; keyword options as in ``envs.thirtyone.options`` (``variant=NAME``
    for a named game)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "thirtyone_v0", "is_parallelizable": False}

    def __init__(self, render_mode: str | None = None, **options: Any) -> None:
        EzPickle.__init__(self, render_mode=render_mode, **options)
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        self.game = ThirtyOneGame(**options)
        n = self.game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        table = self.game.table_layout
        self._encoder = TableEncoder(self.game) if table else ObservationEncoder(self.game)
        self._num_actions = num_actions = self.game.num_actions
        self.observation_version = TABLE_OBSERVATION_VERSION if table else OBSERVATION_VERSION
        size = TABLE_OBS_SIZE if table else OBS_SIZE
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (size,), np.float32),
                    "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        self._np_random: np.random.Generator | None = None
        self.agents: list[str] = []
        self.state: ThirtyOneState | None = None
        self._decisions = 0
        self._redeals = 0

    @property
    def game_state(self) -> ThirtyOneState | None:
        """Old name of :attr:`state` (the rules state), kept so existing code keeps working."""
        return self.state

    # ----------------------------------------------------------------- spaces and names
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def action_name(self, action: int) -> str:
        return self.game.action_name(action)

    def action_index(self, name: str) -> int:
        return action_index(name)

    # ----------------------------------------------------------------- the AEC API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """New episode. ``options`` may hold ``deal``: ``{"deck": [...]}``, the full order of the first
        deal (e.g. ``["HK", "D7", ...]``; the old top-level ``deck`` option still works), and ``dealer``
        (the first dealer's seat). Other keys are a ValueError."""
        options = check_reset_options(options, RESET_OPTIONS)
        seed = as_seed(seed)
        deck, dealer = options.get("deck"), options.get("dealer")
        deal = options.get("deal")
        if deal is not None:
            if not isinstance(deal, dict):
                raise ValueError(f"reset option 'deal' must be {{'deck': [the cards in dealing order]}}, got {deal!r}")
            check_keys(deal, DEAL_KEYS, "reset option 'deal'")
            if deck is not None:
                raise ValueError("give the deck once: reset option 'deal': {'deck': [...]} or the old 'deck', not both")
            deck = deal.get("deck")
        if deck is not None:
            deck = self.game.check_deck(deck)
        if dealer is not None:  # checked before the seed is used, so a bad option changes nothing
            dealer = as_seat(dealer, self.game.num_players, "reset option 'dealer'")
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        self._redeals = 0
        while True:
            state = self.game.new_initial_state(int(self._np_random.integers(2**62)), deck, dealer)
            if not state.is_terminal() and all(state.alive):
                break
            if deck is not None:
                raise ValueError(
                    "this deck deals a blitz that ends the episode or eliminates a player before any "
                    "decision; pick another deck order"
                )
            self._redeals += 1
        self.state = state
        self._decisions = 0
        self._emitted = [0.0] * self.game.num_players
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._dirty = False
        self.agent_selection = self.possible_agents[state.current_player]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return {"observation": self._encoder.encode(self.state, self._seat[agent]),
                "action_mask": self.action_mask(agent)}

    def action_mask(self, agent: str) -> np.ndarray:
        """``observe(agent)["action_mask"]`` alone (all zeros unless ``agent`` is to act): what a
        player that reads only the legal actions needs, without encoding the observation."""
        st = self.state
        if self._seat[agent] == st.current_player:
            return np.frombuffer(st.legal_bytes(), _INT8)  # a new bytearray: writable, not shared
        return np.zeros(self._num_actions, _INT8)

    def step(self, action: Any) -> None:
        agent, dead = agent_to_step(self, "game")
        if dead:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act: action None is only for agents that are done")
        a = as_action(action, self._num_actions, agent)
        st = self.state
        if self._dirty:
            self._clear_rewards()
            self._dirty = False
        version = st.pub_version  # changes exactly when a round ends
        seat, phase = st.current_player, st.phase
        st.apply_action(a)  # ValueError naming the action and the phase if illegal
        self._cumulative_rewards[agent] = 0.0
        self._decisions += 1
        if st.pub_version != version:
            self._round_over()
        else:
            self._encoder.applied(st, seat, phase, a)
            self.agent_selection = self.possible_agents[st.current_player]
        if self.render_mode == "human":
            self.render()

    def _round_over(self) -> None:
        st = self.state
        over = st.is_terminal()
        summary = _summary(st, self.possible_agents)
        dead = False
        rewards, payoff, emitted = self.rewards, st.payoff, self._emitted
        for i, agent in enumerate(self.possible_agents):
            if agent not in rewards:
                continue
            r = payoff[i] - emitted[i]
            if r:
                rewards[agent] = r
                emitted[i] = payoff[i]
                self._dirty = True
            if over or not st.alive[i]:
                self.terminations[agent] = True
                dead = True
            self.infos[agent] = {"last_round": summary}
        if self._dirty:  # otherwise every reward is 0 (cleared at the start of this step)
            self._accumulate_rewards()
        if not over:
            self.agent_selection = self.possible_agents[st.current_player]
        if dead:
            self._deads_step_first()

    def render(self) -> str | None:
        if self.render_mode is None:
            warn("You are calling render method without specifying any render mode.")
            return None
        if self.state is None:
            return None
        text = render_text(self.state)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass

    # ----------------------------------------------------------------- statistics
    def episode_stats(self) -> dict[str, float]:
        """Numbers a trainer logs under ``game/`` (rates are per round played)."""
        st = self.state
        if st is None:
            return {}
        s = st.stats
        rounds = max(s["rounds"], 1)
        knocks = s["knocks"] + s["throw_downs"]
        out = {
            "rounds": float(s["rounds"]),
            "knock_rate": s["knocks"] / rounds,
            "blitz_rate": s["blitzes"] / rounds,
            "deal_blitz_rate": s["deal_blitzes"] / rounds,
            "void_rate": s["voids"] / rounds,
            "reshuffle_rate": s["reshuffles"] / rounds,
            "capped_rate": s["capped"] / rounds,
            "knocker_loss_rate": s["knocker_losses"] / knocks if knocks else 0.0,
            "turns_per_round": s["turns"] / rounds,
            "decisions": float(self._decisions),
            "redeals": float(self._redeals),
        }
        if self.game.options.throw_down:
            out["throw_down_rate"] = s["throw_downs"] / rounds
        if self.game.table_layout:
            out["exchanges_per_round"] = s["exchanges"] / rounds
        if self.game.options.switch_restart:
            out["restart_rate"] = s["restarts"] / rounds
        return out


def _summary(st: ThirtyOneState, agents: list[str]) -> dict[str, Any]:
    """The public result of the last round, keyed by agent (shared by every agent's info);
    ``agents[s]`` names seat ``s``."""
    r = st.last_round or {}
    names = [agents[s] for s in r.get("seats", ())]
    key = summary_key(r) if r else "points"
    knocker = r.get("knocker", -1)
    return {
        "round": r.get("round", 0),
        "kind": r.get("kind", ""),
        "knocker": agents[knocker] if knocker >= 0 else None,
        "values": dict(zip(names, r.get("values", ()), strict=True)),
        key: dict(zip(names, r.get(key, ()), strict=True)),
        "eliminated": [agents[s] for s in r.get("eliminated", ())],
        "void": r.get("void", False),
    }
