"""PettingZoo AEC environment for one Skat deal (auction to scoring), over ``envs.skat.rules``.

Agents ``player_0..2`` sit at fixed table seats; the dealer rotates by one seat every reset
(unless fixed with the ``dealer`` option), so positions (forehand, middlehand, rearhand) move
round the table as in a real session. One episode is one deal. Rewards are paid once, at the
end of the deal, in the chosen score system (raw game points, no scaling).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from envs.checks import agent_to_step, as_action, as_seat, as_seed, check_keys, check_reset_options
from envs.skat import actions as A
from envs.skat.cards import CARD_NAMES, GAME_NAMES, NUM_CARDS
from envs.skat.deal import POSITION_NAMES, deal_from_deck, parse_deal
from envs.skat.observation import OBSERVATION_SIZE, OBSERVATION_VERSION, ObservationEncoder
from envs.skat.options import OPTION_NAMES
from envs.skat.render import render_table
from envs.skat.rules import AUCTION, DONE, PLAY, SkatGame, SkatState
from envs.wrappers import ClassicWrapper

AGENTS = ("player_0", "player_1", "player_2")
_SEAT = {a: i for i, a in enumerate(AGENTS)}
_MASK_BYTES = (A.NUM_ACTIONS + 7) // 8
ENV_OPTIONS = ("render_mode", *OPTION_NAMES)
RESET_OPTIONS = ("deal", "dealer")
DEAL_KEYS = ("hands", "skat", "deck")
_DEAL_FORMAT = ("{'hands': [hand of player_0, player_1, player_2], 'skat': 'XX YY'} in card notation (e.g. "
                "{'hands': ['CJ SJ ...', ...], 'skat': 'SA SQ'}), or {'deck': [the 32 cards in dealing order]}")


def env(**kwargs: Any) -> AECEnv:
    """The Skat env with PettingZoo's classic checks (illegal move ends the deal at -1), see envs.wrappers."""
    return ClassicWrapper(raw_env(**kwargs), illegal_reward=-1)


class raw_env(AECEnv, EzPickle):
    metadata = {"render_modes": ["human", "ansi"], "name": "skat_v0", "is_parallelizable": False, "render_fps": 1}

    def __init__(self, render_mode: str | None = None, **options: Any) -> None:
        """Keyword options as in :class:`envs.skat.options.SkatOptions`: ``scoring``, ``kontra``,
        ``ramsch``, ``dealer``."""
        unknown = sorted(set(options) - set(OPTION_NAMES))
        if unknown:
            raise ValueError(f"unknown Skat env option(s) {unknown}; valid options: {list(ENV_OPTIONS)}")
        EzPickle.__init__(self, render_mode=render_mode, **options)
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r}; expected one of {self.metadata['render_modes']}")
        self.game = SkatGame(**options)
        self.fixed_dealer = self.game.options.dealer
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = []
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (OBSERVATION_SIZE,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (A.NUM_ACTIONS,), dtype=np.int8),
            }
        )
        act_space = spaces.Discrete(A.NUM_ACTIONS)
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self.action_spaces = {a: act_space for a in AGENTS}
        self._encoder = ObservationEncoder()
        self._zero_mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
        self._rng = np.random.default_rng()
        self._deal_count = 0
        self.dealer = 2
        self.state: SkatState | None = None

    observation_version = OBSERVATION_VERSION

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # --- seats ----------------------------------------------------------------------------
    def position_of(self, agent: str) -> int:
        """0 forehand, 1 middlehand, 2 rearhand for this deal."""
        return (AGENTS.index(agent) - self.dealer - 1) % 3

    def agent_at(self, position: int) -> str:
        return AGENTS[(self.dealer + 1 + position) % 3]

    # --- PettingZoo API -------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new deal. ``options`` may hold ``dealer`` (the seat that deals this deal) and ``deal``:
        ``{"hands": [hands of player_0, player_1, player_2], "skat": "XX YY"}`` in card notation, or
        ``{"deck": [32 cards]}`` dealt 3-skat-4-3 from forehand. Other keys are a ValueError."""
        options = check_reset_options(options, RESET_OPTIONS)
        seed = as_seed(seed)
        dealer = options.get("dealer")
        if dealer is not None:
            dealer = as_seat(dealer, 3, "reset option 'dealer'")
        deal = options.get("deal")
        if deal is not None:
            _check_deal(deal)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._deal_count = 0
        if dealer is not None:
            self.dealer = dealer
        elif self.fixed_dealer is not None:
            self.dealer = self.fixed_dealer
        else:
            self.dealer = (2 + self._deal_count) % 3  # the first dealer is player_2: player_0 leads
        self._deal_count += 1
        if deal is not None:
            self.state = self._state_from_deal(deal)
        else:
            hands, skat = deal_from_deck(self._rng.permutation(NUM_CARDS).tolist())
            self.state = self.game.state_from_deal(hands, skat)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos = {a: {} for a in AGENTS}
        self._encoder.refresh(self.state)
        self.agent_selection = self.agent_at(self.state.current_player)

    def _state_from_deal(self, deal: dict[str, Any]) -> SkatState:
        if "deck" in deal:
            return self.game.new_initial_state(deck=deal["deck"])
        hands_by_seat, skat = parse_deal(deal["hands"], deal["skat"], AGENTS)
        hands = [hands_by_seat[(self.dealer + 1 + pos) % 3] for pos in range(3)]
        return self.game.state_from_deal(hands, skat)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        pos = (_SEAT[agent] - self.dealer - 1) % 3
        return {"observation": self._encoder.vectors[pos].copy(), "action_mask": self.action_mask(agent)}

    def action_mask(self, agent: str) -> np.ndarray:
        """``observe(agent)["action_mask"]`` alone (all zeros unless ``agent`` is to act): what a
        player that reads only the legal actions needs, without copying the observation."""
        state = self.state
        if state.current_player == (_SEAT[agent] - self.dealer - 1) % 3:
            bits = state.legal_mask().to_bytes(_MASK_BYTES, "little")
            return np.unpackbits(np.frombuffer(bits, np.uint8), count=A.NUM_ACTIONS, bitorder="little").view(np.int8)
        return self._zero_mask.copy()

    def step(self, action: int) -> None:
        agent, dead = agent_to_step(self, "deal")
        if dead:
            return self._was_dead_step(action)
        action = as_action(action, A.NUM_ACTIONS, agent)
        state = self.state
        pos = state.current_player
        phase = state.phase
        state.apply_action(action)  # raises a ValueError naming the action if it is illegal
        self._cumulative_rewards[agent] = 0.0
        if phase == PLAY:
            self._encoder.after_play(state, pos, action - A.PLAY)
        elif phase == AUCTION:
            self._encoder.after_auction(state, pos)
        else:
            self._encoder.refresh(state)
        if state.phase == DONE:
            self._finish()
        else:
            self.agent_selection = self.agent_at(state.current_player)
        if self.render_mode == "human":
            self.render()

    def _finish(self) -> None:
        state = self.state
        for pos in range(3):
            agent = self.agent_at(pos)
            self.rewards[agent] = float(state.scores[pos])
            self.terminations[agent] = True
            self.infos[agent] = {"position": POSITION_NAMES[pos], "score": state.scores[pos]}
        self._accumulate_rewards()
        self.agent_selection = self.agent_at(0)

    def render(self) -> str | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'.")
            return None
        text = render_table(self.state, [self.agent_at(p) for p in range(3)]) if self.state else "(no deal yet)"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # --- helpers for users ----------------------------------------------------------------
    @staticmethod
    def action_name(action: int) -> str:
        return A.action_name(action)

    @staticmethod
    def action_index(name: str) -> int:
        return A.action_index(name)

    def episode_stats(self) -> dict[str, float]:
        """Numbers about the finished deal, for logging (declarer win, game type, bid...)."""
        s = self.state
        if s is None or s.phase != DONE:
            return {}
        ramsch = s.contract is None and not s.passed_in
        stats: dict[str, float] = {"passed_in": float(s.passed_in), "ramsch": float(ramsch)}
        if s.contract is not None and s.outcome is not None:
            stats.update(
                declarer_win=float(s.outcome.won),
                bid=float(s.bid),
                game_value=float(s.outcome.value),
                overbid=float(s.outcome.overbid),
                hand_game=float(s.contract.hand),
                declarer_points=float(s.outcome.declarer_points),
            )
            for g, name in enumerate(GAME_NAMES):
                stats[f"game_type/{name}"] = float(s.contract.game == g)
        return stats

    def hand_of(self, agent: str) -> list[str]:
        return [CARD_NAMES[c] for c in range(NUM_CARDS) if self.state.hands[self.position_of(agent)] >> c & 1]


def _check_deal(deal: Any) -> None:
    """The shape of the reset option ``deal`` (the cards themselves are checked when it is dealt)."""
    if not isinstance(deal, dict):
        raise ValueError(f"reset option 'deal' must be {_DEAL_FORMAT}; got {deal!r}")
    check_keys(deal, DEAL_KEYS, "reset option 'deal'")
    if "deck" in deal:
        if "hands" in deal or "skat" in deal:
            raise ValueError("reset option 'deal' takes either 'deck' or 'hands' and 'skat', not both")
    elif "hands" not in deal or "skat" not in deal:
        missing = "hands" if "hands" not in deal else "skat"
        raise ValueError(f"reset option 'deal' has no {missing!r}; it must be {_DEAL_FORMAT}")
