"""Batched collection: the learner's games on a vector env (``envs.vector``), all decisions as tensors.

``collection: batched`` in a config selects it. N games run in lockstep inside one vector env (the
game's batched engine where it has one, else ``envs.vector.AECVectorEnv``); each step groups the
games by who is to act: the learner decides for all of its games in one forward pass, each neural
opponent (``self``, ``snapshot``, a checkpoint) in one pass, ``random`` straight from the masks,
an agent with ``act_arrays`` (both games' ``rule`` agents) in one call; other agents decide game
by game from their numpy observation. Games stay in flight
across updates: an update trains on the trajectories completed since the last one (at least
``num_envs * num_steps`` learner decisions), and a trajectory still running carries over (its
early decisions were taken by the previous weights; PPO's stored log-probabilities account for
that). Rewards are credited to each learner seat's last decision, as in ``train.rollout``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from agents import algorithm
from agents.random_agent import RandomAgent
from arena import Episode
from envs.games import describe
from envs.vector import tune_malloc
from train.opponents import SeatFiller, label
from train.rollout import LEARNER, RolloutSpec, batch_rows


class BatchedCollector:
    """Same interface as :class:`train.rollout.Collector`: ``collect(update, plan, snapshots)``, ``close()``."""

    def __init__(self, spec: RolloutSpec, num_envs: int, network: nn.Module, device: str = "cpu") -> None:
        self.spec = spec
        self.network = network
        tune_malloc()  # a step's observations are reused memory, not fresh pages
        self.venv = describe(spec.game).vector_env(num_envs, device=device, seed=spec.seed, **spec.env_options)
        self.num_envs = num_envs
        self.num_seats = self.venv.num_seats
        self.env_shape = (self.venv.obs_size, self.venv.num_actions)
        learner_cls = algorithm(spec.algorithm)
        self.act = learner_cls.act
        self.actor = getattr(learner_cls, "actor", None)
        self.filler = SeatFiller(spec.game, spec.policy_spec, network)
        self.rng = np.random.default_rng([spec.seed, 31337])
        self.state = None
        # per game and seat who sits there: -1 the learner, else an opponent key, self.keys[code]
        self.seat_code = np.zeros((num_envs, self.num_seats), np.int64)
        self.keys: list[Any] = []
        self.key_code: dict[Any, int] = {}
        self.deals = np.zeros(num_envs, np.int64)  # deals started per game (learner seats rotate)
        self.returns = np.zeros((num_envs, self.num_seats))
        self.lengths = np.zeros(num_envs, np.int64)
        self.traj = np.full((num_envs, self.num_seats), -1, np.int64)  # current trajectory id per seat
        self.pending = np.full((num_envs, self.num_seats), -1, np.int64)  # its last transition (row)
        self.next_traj = 0
        self.rows: dict[str, list[np.ndarray]] = {}  # transitions not yet handed to an update
        self.rewards: list[float] = []
        self.traj_ids: list[int] = []
        self.finished_traj: set[int] = set()
        self.traj_rows = np.zeros((num_envs, self.num_seats), np.int64)  # rows recorded of each seat's trajectory
        self.decisions = 0  # learner decisions recorded so far

    # --- seating ----------------------------------------------------------------------------------

    def _seat(self, games: np.ndarray) -> None:
        """New deals in ``games`` (ascending): rotate the learner's seats, draw the opponents (game by
        game, seat by seat, as the filler's random numbers come)."""
        if not len(games):
            return
        n, k = self.num_seats, self.spec.learner_seats
        rotation = (games + self.deals[games]) % n
        self.deals[games] += 1
        learner = (np.arange(n) - rotation[:, None]) % n < k  # the k seats from the rotation on
        codes = np.full((len(games), n), -1, np.int64)
        codes[~learner] = [self._code(key) for key in self.filler.draw_many(int((~learner).sum()))]
        self.seat_code[games] = codes
        self.returns[games] = 0.0
        self.lengths[games] = 0
        self.pending[games] = -1
        self.traj_rows[games] = 0
        traj = np.full((len(games), n), -1, np.int64)
        traj[learner] = self.next_traj + np.arange(int(learner.sum()))  # ids in game, then seat order
        self.next_traj += int(learner.sum())
        self.traj[games] = traj

    def _code(self, key: Any) -> int:
        code = self.key_code.get(key)
        if code is None:
            code = self.key_code[key] = len(self.keys)
            self.keys.append(key)
        return code

    # --- collection -------------------------------------------------------------------------------

    def collect(self, update: int, plan: dict[str, Any], snapshots: list[tuple[int, dict[str, Any]]]
                ) -> tuple[dict[str, np.ndarray], list[Episode]]:
        """Step every game until the trajectories finished since the last call hold ``num_envs * num_steps``
        learner decisions; returns them as a batch (trajectory by trajectory) and the deals that ended."""
        in_flight = self.seat_code[self.seat_code >= 0] if self.state is not None else []  # before: nobody seated
        seated = {self.keys[c] for c in np.unique(in_flight).tolist()}
        self.filler.update_pool(plan, {i: s for i, s in snapshots if ("snapshot", i) not in self.filler.shared},
                                seated)
        rng = np.random.default_rng([self.spec.seed, update, 7])
        self.filler.start_chunk(rng)
        act = self.actor(self.network, rng) if self.actor is not None else (
            lambda obs, mask, traj: self.act(self.network, obs, mask, rng))
        if self.state is None:
            self.state = self.venv.reset()
            self._seat(np.arange(self.num_envs))
        target = self.num_envs * self.spec.num_steps
        episodes: list[Episode] = []
        finished_rows = 0
        while finished_rows < target:
            state = self.state
            player = state.current_player.cpu().numpy()
            obs = state.observation.cpu().numpy()
            mask = state.action_mask.cpu().numpy()
            ended = state.terminated.cpu().numpy()
            actions = np.zeros(self.num_envs, np.int64)  # a game that has ended ignores its action
            live = np.flatnonzero(~ended)
            self.lengths[live] += 1
            code = self.seat_code[live, player[live]]
            groups = self._groups(live[code >= 0], code[code >= 0], player)
            if (code < 0).any():
                games = live[code < 0]
                traj = self.traj[games, player[games]]
                mine_obs, mine_mask = obs[games], mask[games]  # copies: the engine reuses its buffers
                chosen, extra = act(mine_obs, mine_mask, traj)
                actions[games] = chosen
                self._record(mine_obs, mine_mask, chosen, extra, traj, games, player[games])
            for agent, games in groups:
                actions[games] = _decide(agent, obs[games], mask[games])
            self.state = state = self.venv.step(torch.from_numpy(actions).to(state.current_player.device))
            self._seat(np.flatnonzero(ended))  # this step began a new deal in each of them
            rewards = state.rewards.cpu().numpy()
            paid_games, paid_seats = np.nonzero(rewards)
            if len(paid_games):
                paid = rewards[paid_games, paid_seats]
                self.returns[paid_games, paid_seats] += paid
                rows = self.pending[paid_games, paid_seats]
                for row, reward in zip(rows[rows >= 0].tolist(), paid[rows >= 0].tolist(), strict=True):
                    self.rewards[row] += reward * self.spec.reward_scale
            done = np.flatnonzero(state.terminated.cpu().numpy())
            if len(done):
                learner = self.traj[done] >= 0
                self.finished_traj.update(self.traj[done][learner].tolist())
                finished_rows += int(self.traj_rows[done][learner].sum())
            for game in done.tolist():
                labels = [LEARNER if c < 0 else label(self.keys[c]) for c in self.seat_code[game].tolist()]
                episodes.append(Episode(self.returns[game].tolist(), labels, int(self.lengths[game])))
        return self._take_finished(), episodes

    def _groups(self, games: np.ndarray, code: np.ndarray, player: np.ndarray) -> list[tuple[Any, np.ndarray]]:
        """The opponents to act in ``games`` (ascending), with the games of each: an agent that serves
        every seat decides for all of its games at once, any other one game by game."""
        groups: dict[int, tuple[Any, list[int]]] = {}
        for c in np.unique(code).tolist():
            key, mine = self.keys[c], games[code == c]
            if not self.filler.cache.is_shared(key):  # builds it; a shareable agent is shared from now on
                self.filler.agent(key, int(mine[0]), int(player[mine[0]]), self.env_shape)
            if self.filler.cache.is_shared(key):
                agent = self.filler.shared[key]
                groups.setdefault(id(agent), (agent, []))[1].extend(mine.tolist())
                continue
            for game in mine.tolist():
                agent = self.filler.agent(key, game, int(player[game]), self.env_shape)
                groups.setdefault(id(agent), (agent, []))[1].append(game)
        return [(agent, np.sort(np.asarray(mine))) for agent, mine in groups.values()]

    def _record(self, obs: np.ndarray, mask: np.ndarray, actions: np.ndarray, extra: dict[str, np.ndarray],
                traj: np.ndarray, games: np.ndarray, seats: np.ndarray) -> None:
        self.decisions += len(actions)
        for key, values in (("obs", obs), ("mask", mask), ("action", actions), *extra.items()):
            self.rows.setdefault(key, []).append(np.asarray(values))
        self.pending[games, seats] = len(self.rewards) + np.arange(len(games))
        self.rewards.extend([0.0] * len(games))
        self.traj_ids.extend(traj.tolist())
        self.traj_rows[games, seats] += 1  # each game's own seat: no slot twice in one call

    def _take_finished(self) -> dict[str, np.ndarray]:
        """The completed trajectories as a batch; the running ones stay for the next update.

        Rows stay in the blocks ``_record`` appended, uncopied: a block is dropped once none of its
        rows belongs to a running trajectory (a taken row's trajectory id becomes -1), so a long
        game's early decisions are not copied again at every update."""
        if not self.traj_ids:
            return {}
        traj = np.asarray(self.traj_ids)
        finished = np.isin(traj, list(self.finished_traj))
        rewards = np.asarray(self.rewards, np.float32)
        batch = batch_rows(self.rows, rewards, traj, np.flatnonzero(finished)) if finished.any() else {}
        traj[finished] = -1
        sizes = [len(block) for block in self.rows["action"]]
        running = np.logical_or.reduceat(traj >= 0, np.cumsum([0, *sizes[:-1]]))  # per block
        kept = np.repeat(running, sizes)
        remap = np.full(len(traj), -1, np.int64)
        remap[kept] = np.arange(int(kept.sum()))
        remap[traj < 0] = -1  # a taken row gets no more rewards
        self.rows = {k: [b for b, keep in zip(blocks, running.tolist(), strict=True) if keep]
                     for k, blocks in self.rows.items()}
        self.rewards = rewards[kept].tolist()
        self.traj_ids = traj[kept].tolist()
        self.pending = np.where(self.pending >= 0, remap[np.maximum(self.pending, 0)], -1)
        self.finished_traj.clear()
        return batch

    def close(self) -> None:
        pass


def _decide(agent: Any, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Actions of one opponent for many games: one forward pass, a vectorised draw, or one call per game."""
    if hasattr(agent, "act_arrays"):  # a network, the rule agents
        return np.asarray(agent.act_arrays(obs, mask), np.int64)
    if isinstance(agent, RandomAgent):
        return np.where(mask, agent.rng.random(mask.shape), -1.0).argmax(axis=1)
    observations = [{"observation": o, "action_mask": m.astype(np.int8)} for o, m in zip(obs, mask, strict=True)]
    if hasattr(agent, "act_batch"):
        return np.asarray(agent.act_batch(observations), np.int64)
    return np.asarray([agent.act(o) for o in observations], np.int64)
