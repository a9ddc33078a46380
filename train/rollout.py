"""Self-play collection: the learner's seats in many envs at once, worker processes, seat rotation.

The deals are played by the arena's lockstep loop (``arena.play``): every env advances to its next
decision, the other seats are played batched per actor, and the :class:`Learner` decides for every
env that waits for it in one forward pass, recording each decision as a transition. Rewards follow
PettingZoo's ``last()`` semantics: what a seat received since its previous action is credited to
that action when the seat is next selected (to act, or once more after the deal ends). Every env
plays whole deals, so each learner seat's trajectory is a complete episode.

:class:`RolloutWorker` owns some envs and fills their seats (learner seats rotate, the rest from
the opponent pool); :class:`Collector` runs worker 0 in the trainer process and the others in
subprocesses. A rollout's randomness comes only from ``(seed, update, worker)``, so a run resumed
from a checkpoint collects exactly what the uninterrupted run would have.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import multiprocessing.connection
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from agents import algorithm
from agents.networks import build_network
from arena import Deal, Episode, Request, env_shape, episode_of, play
from envs.games import describe
from train.interrupt import children_ignore_signals
from train.opponents import SeatFiller, label

LEARNER = "learner"  # the label of a seat played (and recorded) by the learner
LearnerAct = Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, dict[str, np.ndarray]]]  # obs, mask, traj


class Learner:
    """The learner's seats as an arena actor: one batched decision for every table that waits for it,
    each recorded as a transition; rewards are credited to the seat's last transition.

    ``act(obs, mask, traj)`` returns the actions and any extra per-row arrays to keep (log-probs ...);
    ``traj`` holds each row's trajectory id (one per deal and learner seat).
    """

    deferred = True  # decide once no other player can move: one forward pass covers every table

    def __init__(self, act: LearnerAct, reward_scale: float = 1.0) -> None:
        self.act = act
        self.reward_scale = reward_scale
        self.steps: dict[int, int] = {}  # learner transitions per table
        self.traj: dict[tuple[int, int], int] = {}
        self.pending: dict[tuple[int, int], int] = {}  # (table, seat) -> its last transition awaiting reward
        self.next_traj = 0
        self.obs: list[np.ndarray] = []
        self.mask: list[np.ndarray] = []
        self.actions: list[np.ndarray] = []
        self.extras: dict[str, list[np.ndarray]] = {}
        self.rewards: list[float] = []
        self.traj_ids: list[int] = []

    def begin(self, table: int, seat: int) -> None:
        self.traj[table, seat], self.next_traj = self.next_traj, self.next_traj + 1
        self.pending[table, seat] = -1

    def credit(self, table: int, seat: int, reward: float) -> None:
        row = self.pending.get((table, seat), -1)
        if row >= 0:
            self.rewards[row] += reward * self.reward_scale

    def decide(self, requests: list[Request]) -> list[int]:
        # Flattened: PettingZoo's classic envs observe 2-D and 3-D arrays, often of int8.
        obs = np.stack([r.observation["observation"] for r in requests]).reshape(len(requests), -1)
        obs = obs.astype(np.float32, copy=False)
        mask = np.stack([r.observation["action_mask"] for r in requests]).astype(bool)
        traj = np.asarray([self.traj[r.table, r.seat] for r in requests])
        chosen, extra = self.act(obs, mask, traj)
        self.obs.append(obs)
        self.mask.append(mask)
        self.actions.append(chosen)
        for key, values in extra.items():
            self.extras.setdefault(key, []).append(values)
        for r in requests:
            self.pending[r.table, r.seat] = len(self.rewards)
            self.rewards.append(0.0)
            self.traj_ids.append(self.traj[r.table, r.seat])
            self.steps[r.table] = self.steps.get(r.table, 0) + 1
        return chosen.tolist()

    def batch(self) -> dict[str, np.ndarray]:
        """The transitions, trajectory by trajectory (see ``agents.ppo``; ``done`` ends each trajectory)."""
        return _batch(self.obs, self.mask, self.actions, self.extras, self.rewards, self.traj_ids)


def _batch(obs_blocks: list[np.ndarray], mask_blocks: list[np.ndarray], actions: list[np.ndarray],
           extras: dict[str, list[np.ndarray]], rewards: list[float], traj_ids: list[int]) -> dict[str, np.ndarray]:
    if not rewards:
        return {}
    arrays = {"obs": np.concatenate(obs_blocks), "mask": np.concatenate(mask_blocks),
              "action": np.concatenate(actions),
              **{key: np.concatenate(values) for key, values in extras.items()}}
    return batch_rows(arrays, np.asarray(rewards, dtype=np.float32), np.asarray(traj_ids), np.arange(len(rewards)))


def batch_rows(arrays: dict[str, np.ndarray | list[np.ndarray]], rewards: np.ndarray, traj: np.ndarray,
               rows: np.ndarray) -> dict[str, np.ndarray]:
    """The batch of the recorded decisions ``rows`` (of ``arrays``, ``rewards`` and trajectory ids
    ``traj``), trajectory by trajectory in time order, ``done`` on each trajectory's last one: one
    copy of each array. An entry of ``arrays`` may be a list of blocks, read as their concatenation."""
    rows = rows[np.argsort(traj[rows], kind="stable")]
    ids = traj[rows]
    done = np.ones(len(rows), dtype=bool)
    done[:-1] = ids[1:] != ids[:-1]
    batch = {key: values[rows] if isinstance(values, np.ndarray) else take_rows(values, rows)
             for key, values in arrays.items()}
    batch["action"] = batch["action"].astype(np.int64, copy=False)
    batch["reward"], batch["done"] = rewards[rows], done
    return batch


def take_rows(blocks: list[np.ndarray], rows: np.ndarray) -> np.ndarray:
    """``np.concatenate(blocks)[rows]``; where ``rows`` are under half of the blocks' rows, without the
    concatenation (only the chosen rows are copied; above half, one whole copy is the faster way)."""
    starts = np.cumsum([0] + [len(b) for b in blocks])
    if len(blocks) == 1:
        return blocks[0][rows]
    if 2 * len(rows) >= starts[-1]:
        return np.concatenate(blocks)[rows]
    which = np.searchsorted(starts, rows, side="right") - 1
    out = np.empty((len(rows), *blocks[0].shape[1:]), np.result_type(*blocks))
    order = np.argsort(which, kind="stable")
    bounds = np.cumsum([0, *np.bincount(which, minlength=len(blocks)).tolist()])
    for b in np.flatnonzero(np.diff(bounds)).tolist():
        at = order[bounds[b] : bounds[b + 1]]
        out[at] = blocks[b][rows[at] - starts[b]]
    return out


def merge_batches(batches: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Concatenate batches of whole trajectories (trajectories stay contiguous)."""
    batches = [b for b in batches if b]
    return {key: np.concatenate([b[key] for b in batches]) for key in batches[0]} if batches else {}


@dataclass(frozen=True)
class RolloutSpec:
    """Everything a rollout worker needs, in one picklable piece (sent to worker processes and Ray actors)."""

    game: str
    env_options: dict[str, Any]
    chunk_size: int  # envs per chunk
    algorithm: str
    network_spec: dict[str, Any]  # the learner's acting network
    policy_spec: dict[str, Any]  # its playing policy (snapshots are built from it)
    learner_seats: int
    num_steps: int  # learner decisions per env per update
    reward_scale: float
    seed: int


class RolloutWorker:
    """Env instances of one game, and everything needed to fill their seats and act, in one process.

    It can collect any *chunk* of the ``num_envs`` envs: a chunk's rollout depends only on
    ``(seed, update, chunk)``, not on which process runs it, so the batch is the same for any
    number of worker processes.
    """

    def __init__(self, spec: RolloutSpec, network: nn.Module | None = None) -> None:
        self.spec = spec
        game = describe(spec.game)
        self.envs = [game.raw_env(**spec.env_options) for _ in range(spec.chunk_size)]
        self.num_seats = len(self.envs[0].possible_agents)
        self.env_shape = env_shape(self.envs[0])
        learner_cls = algorithm(spec.algorithm)
        self.act = learner_cls.act
        # An algorithm with acting state per trajectory (NFSP: best response or average policy, drawn
        # per deal and seat) offers ``actor(network, rng)``: a fresh acting function per rollout.
        self.actor = getattr(learner_cls, "actor", None)
        self.network = network if network is not None else build_network(spec.network_spec)
        self.filler = SeatFiller(spec.game, spec.policy_spec, self.network)

    def sync(self, plan: dict[str, Any], new_snapshots: dict[int, Any],
             weights: dict[str, np.ndarray] | None = None) -> None:
        """Take the learner's current weights and opponent pool (once per update)."""
        if weights is not None:
            self.network.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()})
        self.filler.update_pool(plan, new_snapshots)

    def collect(self, update: int, chunk: int, env_ids: list[int]) -> tuple[dict[str, np.ndarray], list[Episode]]:
        """Whole deals on the envs ``env_ids`` until each has ``num_steps`` learner decisions."""
        spec = self.spec
        rng = np.random.default_rng([spec.seed, update, chunk])
        self.filler.start_chunk(rng)
        envs = self.envs[: len(env_ids)]
        started = [0] * len(envs)
        n = self.num_seats

        def act(obs: np.ndarray, mask: np.ndarray, traj: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
            return self.act(self.network, obs, mask, rng)

        learner = Learner(self.actor(self.network, rng) if self.actor is not None else act, spec.reward_scale)

        def start(i: int) -> Deal | None:
            if learner.steps.get(i, 0) >= spec.num_steps:
                return None
            rotation = (env_ids[i] + started[i]) % n
            started[i] += 1
            learner_seats = {(rotation + j) % n for j in range(spec.learner_seats)}
            actors: list[Any] = []
            players: list[str] = []
            for seat in range(n):
                if seat in learner_seats:
                    actors.append(learner)
                    players.append(LEARNER)
                else:
                    key = self.filler.draw()
                    actors.append(self.filler.agent(key, i, seat, self.env_shape))
                    players.append(label(key))
            return Deal(actors, players, seed=int(rng.integers(2**31)))

        episodes: list[Episode] = []
        play(envs, start, lambda done: episodes.append(episode_of(done)))
        return learner.batch(), episodes


def _worker_main(conn: Any, spec: RolloutSpec) -> None:
    torch.set_num_threads(1)
    try:
        worker = RolloutWorker(spec)
        conn.send(("ready", None))
        while True:
            command, payload = conn.recv()
            if command == "close":
                break
            if command == "sync":
                worker.sync(**payload)
            else:
                conn.send(("ok", worker.collect(**payload)))
    except (KeyboardInterrupt, EOFError, BrokenPipeError, ConnectionResetError):
        pass  # stopped, or the trainer is gone: exit quietly
    except BaseException:
        with contextlib.suppress(OSError):
            conn.send(("error", traceback.format_exc()))
    finally:
        conn.close()


def split_envs(num_envs: int, num_chunks: int) -> list[list[int]]:
    """The env ids of each chunk: ``num_envs`` split as evenly as possible."""
    return [ids.tolist() for ids in np.array_split(np.arange(num_envs), num_chunks)]


class Collector:
    """Collects the envs in ``chunks`` (lists of env ids), handed out to ``num_workers`` processes.

    The trainer process is one of the workers. Chunks go to whichever process is free, so a
    process slowed down by other load on the machine simply takes fewer of them.
    """

    def __init__(self, spec: RolloutSpec, chunks: list[list[int]], num_workers: int, network: nn.Module) -> None:
        self.network = network
        self.chunks = chunks
        self.local = RolloutWorker(spec, network=network)
        self.env_shape = self.local.env_shape
        self.num_seats = self.local.num_seats
        self.remotes: list[tuple[Any, Any, set[int]]] = []  # (connection, process, snapshot ids sent)
        context = mp.get_context("spawn")
        for _ in range(1, num_workers):
            parent, child = context.Pipe()
            process = context.Process(target=_worker_main, args=(child, spec), daemon=True)
            with children_ignore_signals():
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
            if process.is_alive():  # workers ignore SIGTERM (children_ignore_signals): terminate() would not stop it
                process.kill()
                process.join(timeout=5)
        self.remotes = []
