"""PettingZoo AEC environment for Skat: one deal (auction to scoring), or a list of deals, on any table.

Agents ``player_0..`` (three; four with ``players=4``, two with ``players=2``) sit at fixed table
seats; the dealer rotates by one seat every deal (unless fixed with the ``dealer`` option), so
positions (forehand, middlehand, rearhand) move round the table as in a real session. One
episode is one deal (``episode="list"``: a whole list, see ``envs.skat.series``). Rewards are paid
at the end of each deal in the chosen score system (raw game points, no scaling).

The ISkO table (``variant="isko"``, today's options) serves the frozen 391-vector and 162 actions
(``envs.skat.observation``); every other table the layout of its kind (``envs.skat.observation_x``)
and the extended action table. ``variant=NAME`` picks a preset of ``envs.skat.variants``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from envs.checks import agent_to_step, as_action, as_seat, as_seed, check_keys, check_reset_options
from envs.skat import actions as A
from envs.skat.cards import GAME_NAMES, NUM_CARDS
from envs.skat.deal import POSITION_NAMES, deal_from_deck, parse_deal
from envs.skat.observation import OBSERVATION_SIZE, OBSERVATION_VERSION, ObservationEncoder
from envs.skat.observation_x import ListInfo, layout_for
from envs.skat.observation_x import observe as observe_x
from envs.skat.options import OPTION_NAMES
from envs.skat.render import render_table
from envs.skat.rules import AUCTION, DONE, PLAY, SkatGame, SkatState
from envs.skat.rules.game import parse_table_deal
from envs.skat.series import Series
from envs.wrappers import ClassicWrapper

AGENTS = ("player_0", "player_1", "player_2")  # the three-player table's
_SEAT = {a: i for i, a in enumerate(AGENTS)}
_MASK_BYTES = (A.NUM_ACTIONS + 7) // 8
ENV_OPTIONS = ("render_mode", *OPTION_NAMES)
RESET_OPTIONS = ("deal", "dealer")
DEAL_KEYS = ("hands", "skat", "deck", "dummy", "shuffle")
_DEAL_FORMAT = ("{'hands': [hand of player_0, player_1, ...], 'skat': 'XX YY'} in card notation (e.g. "
                "{'hands': ['CJ SJ ...', ...], 'skat': 'SA SQ'}; two players: 'dummy': the dummy hand; four: the "
                "dealer's hand empty), {'deck': [the cards in dealing order]} or {'shuffle': [integers]}")
POSITION_LABELS = (*POSITION_NAMES, "sitting out")


def env(**kwargs: Any) -> AECEnv:
    """The Skat env with PettingZoo's classic checks (illegal move ends the deal at -1), see envs.wrappers."""
    return ClassicWrapper(raw_env(**kwargs), illegal_reward=-1)


class raw_env(AECEnv, EzPickle):
    metadata = {"render_modes": ["human", "ansi"], "name": "skat_v0", "is_parallelizable": False, "render_fps": 1}

    def __init__(self, render_mode: str | None = None, **options: Any) -> None:
        """Keyword options as in :class:`envs.skat.options.SkatOptions`: ``scoring``, ``kontra``,
        ``ramsch``, ``dealer``, ``variant`` and the variants' options."""
        unknown = sorted(set(options) - set(OPTION_NAMES))
        if unknown:
            raise ValueError(f"unknown Skat env option(s) {unknown}; valid options: {list(ENV_OPTIONS)}")
        EzPickle.__init__(self, render_mode=render_mode, **options)
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r}; expected one of {self.metadata['render_modes']}")
        self.game = SkatGame(**options)
        self.table = table = self.game.table
        self.fixed_dealer = self.game.options.dealer
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(table.seats)]
        self.agents = []
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        if table.classic:
            self.layout, self.observation_version, size = "skat3", OBSERVATION_VERSION, OBSERVATION_SIZE
        else:
            layout = layout_for(table)
            self.layout, self.observation_version, size = layout.name, layout.version, layout.size
        n_actions = table.num_actions
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (size,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (n_actions,), dtype=np.int8),
            }
        )
        act_space = spaces.Discrete(n_actions)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._encoder = ObservationEncoder() if table.classic else None
        self._mask_bytes = (n_actions + 7) // 8
        self._zero_mask = np.zeros(n_actions, dtype=np.int8)
        self._rng = np.random.default_rng()
        self._deal_count = 0
        self.dealer = table.seats - 1
        self.state: SkatState | None = None
        self.series = Series(self.game.options) if self.game.options.episode == "list" else None
        self.deal_log: list[dict[str, Any]] = []  # the deals of this episode (one, or a list's)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # --- seats ----------------------------------------------------------------------------
    def position_of(self, agent: str) -> int:
        """0 forehand, 1 middlehand, 2 rearhand for this deal (3: the dealer sitting out at four;
        at two: 0 the non-dealer, 1 the dealer)."""
        return self.table.position_of(self._seat[agent], self.dealer)

    def agent_at(self, position: int) -> str:
        """The agent deciding for ``position``: its seat's, or for Strohmann's dummy the defender's."""
        t = self.table
        if position == t.dummy:
            declarer = self.state.declarer if self.state is not None else -1
            position = 1 - declarer if declarer in (0, 1) else 0
        return self.possible_agents[t.seat_of(position, self.dealer)]

    # --- PettingZoo API -------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new deal (or list). ``options`` may hold ``dealer`` (the seat that deals this deal) and ``deal``:
        ``{"hands": [hands of player_0, player_1, player_2], "skat": "XX YY"}`` in card notation (four
        players: four hands, the dealer's empty; two players: two hands and ``"dummy"``, Officers'
        Skat: two hands of 16, the 8 face-down cards first), ``{"deck": [the pack's cards]}`` dealt in
        the table's pattern (3-skat-4-3 from forehand on the ISkO table), or ``{"shuffle": [ints]}``
        (``numpy.random.default_rng(ints).permutation`` of the pack, dealt as a deck). Other keys are
        a ValueError. A list (``episode="list"``) starts over; later deals of it come from the seed."""
        options = check_reset_options(options, RESET_OPTIONS)
        seed = as_seed(seed)
        seats = self.table.seats
        dealer = options.get("dealer")
        if dealer is not None:
            dealer = as_seat(dealer, seats, "reset option 'dealer'")
        deal = options.get("deal")
        if deal is not None:
            _check_deal(deal, self.table.classic)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._deal_count = 0
        if self.series is not None:
            self.series.reset()
        self.deal_log = []
        self._deal(deal, dealer)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agent_at(self.state.current_player)

    def _deal(self, deal: dict[str, Any] | None, dealer: int | None = None) -> None:
        """Deal the next deal: the dealer rotates (unless given or fixed), the cards from ``deal`` or the rng."""
        if dealer is not None:
            self.dealer = dealer
        elif self.fixed_dealer is not None:
            self.dealer = self.fixed_dealer
        else:  # the first dealer is the last seat: player_0 leads
            self.dealer = (self.table.seats - 1 + self._deal_count) % self.table.seats
        self._deal_count += 1
        if self.table.classic:
            if deal is not None:
                self.state = self._state_from_deal(deal)
            else:
                hands, skat = deal_from_deck(self._rng.permutation(NUM_CARDS).tolist())
                self.state = self.game.state_from_deal(hands, skat)
            self._encoder.refresh(self.state)
            return
        index = self.series.counted if self.series is not None else self._deal_count - 1
        if deal is None:
            order = self._rng.permutation(self.table.pack.size).tolist()
            self.state = self.game.new_initial_state(deck=order, deal_index=index)
        elif "shuffle" in deal:
            order = np.random.default_rng(deal["shuffle"]).permutation(self.table.pack.size).tolist()
            self.state = self.game.new_initial_state(deck=order, deal_index=index)
        elif "deck" in deal:
            self.state = self.game.new_initial_state(deck=deal["deck"], deal_index=index)
        else:
            piles, skat = self._piles_from_deal(deal)
            self.state = self.game.state_from_piles(piles, skat, index)

    def _state_from_deal(self, deal: dict[str, Any]) -> SkatState:
        if "deck" in deal:
            return self.game.new_initial_state(deck=deal["deck"])
        if "shuffle" in deal:
            order = np.random.default_rng(deal["shuffle"]).permutation(NUM_CARDS).tolist()
            return self.game.new_initial_state(deck=order)
        hands_by_seat, skat = parse_deal(deal["hands"], deal["skat"], AGENTS)
        hands = [hands_by_seat[(self.dealer + 1 + pos) % 3] for pos in range(3)]
        return self.game.state_from_deal(hands, skat)

    def _piles_from_deal(self, deal: dict[str, Any]) -> tuple[list[list[int]], list[int]]:
        """An extended table's deal by seat -> hands by position (the dummy's from ``dummy``)."""
        t = self.table
        hands = deal["hands"]
        if isinstance(hands, str) or not isinstance(hands, list | tuple) or len(hands) != t.seats:
            raise ValueError(f"'hands' must be a list of {t.seats} hands, one per seat "
                             f"({', '.join(self.possible_agents)}), got {hands!r}")
        if t.seats == 4 and hands[self.dealer] not in ("", None, []):
            raise ValueError(f"the dealer (player_{self.dealer}) sits this deal out: its hand must be empty")
        if t.dummy >= 0 and "dummy" not in deal:
            raise ValueError("a two-player table with a dummy hand needs the key 'dummy' in the reset option 'deal'")
        by_position = [hands[t.seat_of(p, self.dealer)] if p != t.dummy else deal["dummy"]
                       for p in range(t.positions)]
        names = [self.possible_agents[t.seat_of(p, self.dealer)] if p != t.dummy else "the dummy"
                 for p in range(t.positions)]
        return parse_table_deal(t, by_position, deal.get("skat"), names)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if self._encoder is not None:
            pos = (_SEAT[agent] - self.dealer - 1) % 3
            return {"observation": self._encoder.vectors[pos].copy(), "action_mask": self.action_mask(agent)}
        vector = observe_x(self.state, self._seat[agent], self.dealer, self._list_info())
        return {"observation": vector, "action_mask": self.action_mask(agent)}

    def _list_info(self) -> ListInfo | None:
        s = self.series
        if s is None:
            return None
        target = self.game.options.target_score or 1
        return ListInfo(s.progress(), [float(t) for t in s.totals], [r / target for r in s.recorded])

    def action_mask(self, agent: str) -> np.ndarray:
        """``observe(agent)["action_mask"]`` alone (all zeros unless ``agent`` is to act): what a
        player that reads only the legal actions needs, without copying the observation."""
        state = self.state
        if self._encoder is not None:
            acting = state.current_player == (_SEAT[agent] - self.dealer - 1) % 3
        else:
            acting = state.current_player >= 0 and self.agent_at(state.current_player) == agent
        if acting:
            n = self.table.num_actions
            bits = state.legal_mask().to_bytes(self._mask_bytes, "little")
            return np.unpackbits(np.frombuffer(bits, np.uint8), count=n, bitorder="little").view(np.int8)
        return self._zero_mask.copy()

    def step(self, action: int) -> None:
        agent, dead = agent_to_step(self, "deal")
        if dead:
            return self._was_dead_step(action)
        action = as_action(action, self.table.num_actions, agent)
        state = self.state
        pos = state.current_player
        phase = state.phase
        if self.series is not None:
            self.rewards = dict.fromkeys(self.agents, 0.0)
        state.apply_action(action)  # raises a ValueError naming the action if it is illegal
        self._cumulative_rewards[agent] = 0.0
        if self._encoder is not None:
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

    def seat_scores(self) -> list[float]:
        """The finished deal's scores by seat (the dummy's chair has none)."""
        state, t = self.state, self.table
        out = [0.0] * t.seats
        for pos in range(t.score_len):
            if pos != t.dummy and pos < t.positions or pos == 3:
                out[t.seat_of(pos, self.dealer)] = float(state.scores[pos])
        return out

    def _finish(self) -> None:
        state = self.state
        if self._encoder is not None and self.series is None:
            for pos in range(3):
                agent = self.agent_at(pos)
                self.rewards[agent] = float(state.scores[pos])
                self.terminations[agent] = True
                self.infos[agent] = {"position": POSITION_NAMES[pos], "score": state.scores[pos]}
            self._log_deal()
            self._accumulate_rewards()
            self.agent_selection = self.agent_at(0)
            return
        scores = self.seat_scores()
        entry = self._log_deal()
        rewards = scores
        if self.series is not None:
            s = self.series
            rewards = s.record([round(x) for x in scores], entry["declarer"], entry["won"], entry["passed_in"],
                               entry["winners"])
            if self.game.options.list_rewards == "end":
                rewards = [0] * len(rewards) if not s.done else (
                    [-r for r in s.recorded] if self.game.options.bierskat else s.totals)
        for seat, agent in enumerate(self.possible_agents):
            self.rewards[agent] = float(rewards[seat])
            self.infos[agent] = self._info(seat, scores[seat])
        self._accumulate_rewards()
        if self.series is not None and not self.series.done:
            self._deal(None)
            self.agent_selection = self.agent_at(self.state.current_player)
            return
        for agent in self.possible_agents:
            self.terminations[agent] = True
        self.agent_selection = self.agent_at(0)

    def _info(self, seat: int, score: float) -> dict[str, Any]:
        pos = self.table.position_of(seat, self.dealer)
        label = POSITION_LABELS[pos] if self.table.seats != 2 or pos < 2 else "dummy"
        info: dict[str, Any] = {"position": label, "score": int(score)}
        s = self.series
        if s is not None:
            info.update(total=s.totals[seat], deal=s.dealt, deals=s.length, won=s.won[seat], lost=s.lost[seat])
            if self.game.options.bierskat:
                info.update(recorded=s.recorded[seat], loser=s.done and seat in s.losers)
        return info

    def _log_deal(self) -> dict[str, Any]:
        """Book the finished deal (for records, evaluation tallies and list infos)."""
        st, t = self.state, self.table
        declarer = t.seat_of(st.declarer, self.dealer) if st.declarer >= 0 else -1
        won = bool(st.outcome.won) if st.outcome is not None and declarer >= 0 else False
        winners: list[int] = []
        if st.contract is None and not st.passed_in and self.game.options.ramsch_scoring == "gewinner":
            winners = [t.seat_of(p, self.dealer) for p in range(3) if st.scores[p] > 0]
        defenders = [t.seat_of(p, self.dealer) for p in range(t.positions) if p not in (st.declarer, t.dummy)
                     ] if declarer >= 0 else []
        entry = {"declarer": declarer, "game_type": st.contract.game if st.contract is not None else -1,
                 "won": won, "passed_in": bool(st.passed_in), "ramsch": st.contract is None and not st.passed_in,
                 "winners": winners, "defenders": defenders,
                 "scores": self.seat_scores() if self._encoder is None else None}
        self.deal_log.append(entry)
        return entry

    def render(self) -> str | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'.")
            return None
        if self.state is None:
            text = "(no deal yet)"
        else:
            t = self.table
            labels = [self.agent_at(p) if p < t.positions and p != t.dummy else "(dummy)" if p == t.dummy else "-"
                      for p in range(3)]
            text = render_table(self.state, labels)
            if t.seats == 4:
                text += f"\n  dealer sitting out: {self.possible_agents[self.dealer]}"
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
        if self.series is not None:
            stats["list_deals"] = float(len(self.deal_log))
        return stats

    def hand_of(self, agent: str) -> list[str]:
        pos = self.position_of(agent)
        if pos > 2:
            return []
        names = self.table.pack.names
        return [names[c] for c in range(self.table.pack.size) if self.state.hands[pos] >> c & 1]


def _check_deal(deal: Any, classic: bool = True) -> None:
    """The shape of the reset option ``deal`` (the cards themselves are checked when it is dealt)."""
    if not isinstance(deal, dict):
        raise ValueError(f"reset option 'deal' must be {_DEAL_FORMAT}; got {deal!r}")
    check_keys(deal, DEAL_KEYS if not classic else ("hands", "skat", "deck", "shuffle"), "reset option 'deal'")
    whole = [k for k in ("deck", "shuffle") if k in deal]
    if whole:
        if len(whole) > 1 or "hands" in deal or "skat" in deal or "dummy" in deal:
            raise ValueError("reset option 'deal' takes either 'deck' or 'hands' and 'skat' (or 'shuffle'), not "
                             "several")
    elif "hands" not in deal or ("skat" not in deal and classic):
        missing = "hands" if "hands" not in deal else "skat"
        raise ValueError(f"reset option 'deal' has no {missing!r}; it must be {_DEAL_FORMAT}")

