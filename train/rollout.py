"""Vectorised self-play collection: many AEC envs in lockstep, worker processes, seat rotation.

:func:`play` runs a list of PettingZoo AEC envs together. Each tick every env advances to its
next decision; decisions are grouped by who makes them, and each group is decided in one call
(one batched forward pass for the learner and for each neural opponent). Rewards follow
PettingZoo's ``last()`` semantics: what a seat received since its previous action is read when
it is next selected -- to act, or once more after the deal ends -- and credited to that previous
action. Every env plays whole deals, so each learner seat's trajectory is a complete episode.

:class:`RolloutWorker` owns some envs and fills their seats (learner seats rotate, the rest from
the opponent pool); :class:`Collector` runs worker 0 in the trainer process and the others in
subprocesses. A rollout's randomness comes only from ``(seed, update, worker)``, so a run resumed
from a checkpoint collects exactly what the uninterrupted run would have.
"""

from __future__ import annotations

import multiprocessing as mp
import multiprocessing.connection
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from pettingzoo import AECEnv
from torch import nn

from agents import algorithm
from agents.networks import build_network
from envs.gym import aec_env
from train.opponents import SeatFiller, label

LEARNER = "learner"  # a seat played (and recorded) by the learner
Seating = tuple[int, list[Any], list[str]]  # (env seed, one actor per seat, one label per seat)
LearnerAct = Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, dict[str, np.ndarray]]]  # obs, mask, traj


@dataclass
class Episode:
    """One finished deal of one env."""

    returns: list[float]  # raw (unscaled) return of every seat
    players: list[str]  # who played each seat: "learner", "random", "rule", "self", "snapshot", a path
    length: int  # decisions taken (all seats)
    stats: dict[str, float] = field(default_factory=dict)  # env.unwrapped.episode_stats(), if offered
    seed: int = -1  # the env seed the deal was reset with: with the seating, it names the deal


@dataclass
class _Slot:
    actors: list[Any]
    players: list[str]
    seed: int
    seat_of: dict[str, int]
    returns: list[float]
    pending: list[int]  # per seat: index of its last learner transition awaiting reward, or -1
    traj: list[int]  # per seat: trajectory id (learner seats)
    length: int = 0


def play(envs: list[AECEnv], start: Callable[[int, int], Seating | None], learner: LearnerAct | None = None,
         reward_scale: float = 1.0) -> tuple[list[Episode], dict[str, np.ndarray]]:
    """Play deals until ``start(env_index, learner_steps_of_env)`` returns None for every env.

    Returns the finished episodes and the learner transitions, ordered trajectory by trajectory
    (see ``agents.ppo`` for the batch layout; ``done`` marks each trajectory's last step).
    ``learner(obs, mask, traj)`` also gets each row's trajectory id (one per deal and learner seat).
    """
    slots: list[_Slot | None] = [None] * len(envs)
    steps = [0] * len(envs)  # learner transitions per env
    episodes: list[Episode] = []
    obs_blocks: list[np.ndarray] = []
    mask_blocks: list[np.ndarray] = []
    actions: list[np.ndarray] = []
    extras: dict[str, list[np.ndarray]] = {}
    rewards: list[float] = []
    traj_ids: list[int] = []
    next_traj = 0
    mask_of = [getattr(env, "action_mask", None) for env in envs]  # the mask-only path, where the env has one

    def begin(i: int) -> bool:
        nonlocal next_traj
        seating = start(i, steps[i])
        if seating is None:
            slots[i] = None
            return False
        seed, actors, players = seating
        env = envs[i]
        env.reset(seed=seed)
        n = len(actors)
        traj = [-1] * n
        for seat, actor in enumerate(actors):
            if actor is LEARNER:
                traj[seat], next_traj = next_traj, next_traj + 1
            elif hasattr(actor, "reset"):
                actor.reset()
        seat_of = {agent: seat for seat, agent in enumerate(env.possible_agents)}
        slots[i] = _Slot(actors, players, seed, seat_of, [0.0] * n, [-1] * n, traj)
        return True

    def advance(i: int) -> tuple[Any, int, dict[str, np.ndarray]] | None:
        """Move env i to its next decision: (actor, seat, observation); None when out of deals."""
        env = envs[i]
        mask_only = mask_of[i]
        while True:
            slot = slots[i]
            while env.agents:
                agent = env.agent_selection
                _, reward, terminated, truncated, _ = env.last(observe=False)
                seat = slot.seat_of[agent]
                if reward:
                    slot.returns[seat] += reward
                    if slot.pending[seat] >= 0:
                        rewards[slot.pending[seat]] += reward * reward_scale
                if terminated or truncated:
                    slot.pending[seat] = -1
                    env.step(None)
                    continue
                actor = slot.actors[seat]
                if mask_only is not None and actor is not LEARNER and not getattr(actor, "needs_observation", True):
                    # A player that reads only the mask gains nothing from batching: it acts at once.
                    slot.length += 1
                    env.step(actor.act({"action_mask": mask_only(agent)}))
                    continue
                return actor, seat, env.observe(agent)
            stats = env.unwrapped.episode_stats() if hasattr(env.unwrapped, "episode_stats") else {}
            episodes.append(Episode(slot.returns, slot.players, slot.length, dict(stats), slot.seed))
            if not begin(i):
                return None

    active = [i for i in range(len(envs)) if begin(i)]
    while active:
        # Play the other seats, batched per actor, until every env waits for the learner (or is done)...
        learner_requests: list[tuple[int, int, dict[str, np.ndarray]]] = []
        waiting = active
        while waiting:
            groups: dict[int, tuple[Any, list[tuple[int, dict[str, np.ndarray]]]]] = {}
            for i in waiting:
                decision = advance(i)
                if decision is None:
                    continue
                actor, seat, obs = decision
                slots[i].length += 1
                if actor is LEARNER:
                    learner_requests.append((i, seat, obs))
                else:
                    groups.setdefault(id(actor), (actor, []))[1].append((i, obs))
            waiting = []
            for actor, requests in groups.values():
                for (i, _), action in zip(requests, actor.act_batch([o for _, o in requests]), strict=True):
                    envs[i].step(int(action))
                    waiting.append(i)
        active = [i for i, _, _ in learner_requests]
        if not learner_requests:
            break

        # ...then decide for all of them in one batched forward pass and record the transitions.
        obs = np.stack([o["observation"] for _, _, o in learner_requests]).astype(np.float32, copy=False)
        mask = np.stack([o["action_mask"] for _, _, o in learner_requests]).astype(bool)
        traj = np.asarray([slots[i].traj[seat] for i, seat, _ in learner_requests])
        chosen, extra = learner(obs, mask, traj)
        obs_blocks.append(obs)
        mask_blocks.append(mask)
        actions.append(chosen)
        for key, values in extra.items():
            extras.setdefault(key, []).append(values)
        for (i, seat, _), action in zip(learner_requests, chosen.tolist(), strict=True):
            slot = slots[i]
            slot.pending[seat] = len(rewards)
            rewards.append(0.0)
            traj_ids.append(slot.traj[seat])
            steps[i] += 1
            envs[i].step(action)

    return episodes, _batch(obs_blocks, mask_blocks, actions, extras, rewards, traj_ids)


def _batch(obs_blocks: list[np.ndarray], mask_blocks: list[np.ndarray], actions: list[np.ndarray],
           extras: dict[str, list[np.ndarray]], rewards: list[float], traj_ids: list[int]) -> dict[str, np.ndarray]:
    if not rewards:
        return {}
    order = np.argsort(np.asarray(traj_ids), kind="stable")  # trajectory by trajectory, in time order
    traj = np.asarray(traj_ids)[order]
    done = np.ones(len(order), dtype=bool)
    done[:-1] = traj[1:] != traj[:-1]
    batch = {"obs": np.concatenate(obs_blocks)[order], "mask": np.concatenate(mask_blocks)[order],
             "action": np.concatenate(actions).astype(np.int64)[order],
             "reward": np.asarray(rewards, dtype=np.float32)[order], "done": done}
    for key, values in extras.items():
        batch[key] = np.concatenate(values)[order]
    return batch


def merge_batches(batches: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Concatenate batches of whole trajectories (trajectories stay contiguous)."""
    batches = [b for b in batches if b]
    return {key: np.concatenate([b[key] for b in batches]) for key in batches[0]} if batches else {}


class RolloutWorker:
    """Env instances of one game, and everything needed to fill their seats and act, in one process.

    It can collect any *chunk* of the ``num_envs`` envs: a chunk's rollout depends only on
    ``(seed, update, chunk)``, not on which process runs it, so the batch is the same for any
    number of worker processes.
    """

    def __init__(self, game: str, env_options: dict[str, Any], chunk_size: int, algorithm_name: str,
                 network_spec: dict[str, Any], policy_spec: dict[str, Any], learner_seats: int, num_steps: int,
                 reward_scale: float, seed: int, network: nn.Module | None = None) -> None:
        self.envs = [aec_env(game, **env_options) for _ in range(chunk_size)]
        probe = self.envs[0]
        self.num_seats = len(probe.possible_agents)
        self.env_shape = (probe.observation_space(probe.possible_agents[0])["observation"].shape[0],
                          int(probe.action_space(probe.possible_agents[0]).n))
        self.act = algorithm(algorithm_name).act
        # An algorithm with acting state per trajectory (NFSP: best response or average policy, drawn
        # per deal and seat) offers ``actor(network, rng)``: a fresh acting function per rollout.
        self.actor = getattr(algorithm(algorithm_name), "actor", None)
        self.network = network if network is not None else build_network(network_spec)
        self.filler = SeatFiller(game, policy_spec, self.network)
        self.learner_seats = min(learner_seats, self.num_seats)
        self.num_steps = num_steps
        self.reward_scale = reward_scale
        self.seed = seed

    def sync(self, plan: dict[str, Any], new_snapshots: dict[int, Any],
             weights: dict[str, np.ndarray] | None = None) -> None:
        """Take the learner's current weights and opponent pool (once per update)."""
        if weights is not None:
            self.network.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()})
        self.filler.update_pool(plan, new_snapshots)

    def collect(self, update: int, chunk: int, env_ids: list[int]) -> tuple[dict[str, np.ndarray], list[Episode]]:
        """Whole deals on the envs ``env_ids`` until each has ``num_steps`` learner decisions."""
        rng = np.random.default_rng([self.seed, update, chunk])
        self.filler.start_chunk(rng)
        envs = self.envs[: len(env_ids)]
        started = [0] * len(envs)
        n = self.num_seats

        def start(i: int, learner_steps: int) -> Seating | None:
            if learner_steps >= self.num_steps:
                return None
            rotation = (env_ids[i] + started[i]) % n
            started[i] += 1
            learner_seats = {(rotation + j) % n for j in range(self.learner_seats)}
            actors: list[Any] = []
            players: list[str] = []
            for seat in range(n):
                if seat in learner_seats:
                    actors.append(LEARNER)
                    players.append(LEARNER)
                else:
                    key = self.filler.draw()
                    actors.append(self.filler.agent(key, i, seat, self.env_shape))
                    players.append(label(key))
            return int(rng.integers(2**31)), actors, players

        def learner(obs: np.ndarray, mask: np.ndarray, traj: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
            return self.act(self.network, obs, mask, rng)

        act = self.actor(self.network, rng) if self.actor is not None else learner
        episodes, batch = play(envs, start, act, self.reward_scale)
        return batch, episodes


def _worker_main(conn: Any, kwargs: dict[str, Any]) -> None:
    torch.set_num_threads(1)
    try:
        worker = RolloutWorker(**kwargs)
        conn.send(("ready", None))
        while True:
            command, payload = conn.recv()
            if command == "close":
                break
            if command == "sync":
                worker.sync(**payload)
            else:
                conn.send(("ok", worker.collect(**payload)))
    except KeyboardInterrupt:
        pass
    except BaseException:
        conn.send(("error", traceback.format_exc()))
    finally:
        conn.close()


class Collector:
    """Collects ``num_envs`` envs in ``num_chunks`` chunks, handed out to ``num_workers`` processes.

    The trainer process is one of the workers. Chunks go to whichever process is free, so a
    process slowed down by other load on the machine simply takes fewer of them.
    """

    def __init__(self, game: str, env_options: dict[str, Any], num_envs: int, num_chunks: int, num_workers: int,
                 algorithm_name: str, network_spec: dict[str, Any], policy_spec: dict[str, Any], network: nn.Module,
                 learner_seats: int, num_steps: int, reward_scale: float, seed: int) -> None:
        self.network = network
        self.chunks = [ids.tolist() for ids in np.array_split(np.arange(num_envs), num_chunks)]
        common = dict(game=game, env_options=env_options, chunk_size=len(self.chunks[0]),
                      algorithm_name=algorithm_name, network_spec=network_spec, policy_spec=policy_spec,
                      learner_seats=learner_seats, num_steps=num_steps, reward_scale=reward_scale, seed=seed)
        self.local = RolloutWorker(network=network, **common)
        self.env_shape = self.local.env_shape
        self.num_seats = self.local.num_seats
        self.remotes: list[tuple[Any, Any, set[int]]] = []  # (connection, process, snapshot ids sent)
        context = mp.get_context("spawn")
        for _ in range(1, num_workers):
            parent, child = context.Pipe()
            process = context.Process(target=_worker_main, args=(child, common), daemon=True)
            process.start()
            child.close()
            self.remotes.append((parent, process, set()))
        for conn, _, _ in self.remotes:
            self._receive(conn)

    def collect(self, update: int, plan: dict[str, Any], snapshots: list[tuple[int, dict[str, Any]]]
                ) -> tuple[dict[str, np.ndarray], list[Episode]]:
        """One rollout of every chunk, merged in chunk order."""
        if self.remotes:
            weights = {k: v.detach().cpu().numpy() for k, v in self.network.state_dict().items()}
        for conn, _, sent in self.remotes:
            new = {i: {k: v.numpy() for k, v in s.items()} for i, s in snapshots if i not in sent}
            sent.clear()
            sent.update(i for i, _ in snapshots)
            conn.send(("sync", dict(plan=plan, new_snapshots=new, weights=weights)))
        self.local.sync(plan, {i: s for i, s in snapshots if ("snapshot", i) not in self.local.filler.shared})

        todo = list(range(len(self.chunks)))
        results: dict[int, tuple[dict[str, np.ndarray], list[Episode]]] = {}
        idle = [conn for conn, _, _ in self.remotes]
        busy: dict[Any, int] = {}
        while todo or busy:
            while idle and todo:  # hand the next chunks to the free processes
                conn, chunk = idle.pop(), todo.pop(0)
                conn.send(("collect", dict(update=update, chunk=chunk, env_ids=self.chunks[chunk])))
                busy[conn] = chunk
            if todo:  # work on the last chunk here meanwhile
                chunk = todo.pop()
                results[chunk] = self.local.collect(update, chunk, self.chunks[chunk])
            for conn in mp.connection.wait(list(busy), timeout=None if not todo else 0) if busy else []:
                results[busy.pop(conn)] = self._receive(conn)
                idle.append(conn)
        ordered = [results[c] for c in range(len(self.chunks))]
        return merge_batches([b for b, _ in ordered]), [e for _, eps in ordered for e in eps]

    @staticmethod
    def _receive(conn: Any) -> Any:
        try:
            status, payload = conn.recv()
        except EOFError:
            raise RuntimeError("a rollout worker process died (see its error output above)") from None
        if status == "error":
            raise RuntimeError(f"rollout worker failed:\n{payload}")
        return payload

    def close(self) -> None:
        for conn, process, _ in self.remotes:
            try:
                conn.send(("close", None))
            except (BrokenPipeError, OSError):
                pass
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
        self.remotes = []
