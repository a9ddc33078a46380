"""The Ray runtime: rollout workers as Ray actors, on this machine or on a Ray cluster.

``python -m train --config FILE --set runtime=ray num_workers=N`` starts ``N`` actors, each a
:class:`train.rollout.RolloutWorker` (its own envs, opponent pool and a copy of the policy). Per
update the learner puts the current weights (and any new pool snapshots) into Ray's object store
once, hands the ``rollout_chunks`` env groups to whichever actor is free, merges the trajectories
in chunk order, updates, and the next update's call carries the new weights. The trainer process
only learns; it runs no envs. A chunk's rollout depends only on ``(seed, update, chunk)``, so
without failures a Ray run collects exactly what the local runtime does with the same
``num_envs`` and ``rollout_chunks``.

Where Ray runs: ``ray_address`` (config) or ``$RAY_ADDRESS``, else a cluster started on this
machine with ``ray start --head``, else a new local instance that the run shuts down at its end.
The project's packages travel to the actors as a runtime environment (``py_modules``), so a
cluster's nodes need only the dependencies (``pip install '.[ray]'``), not this checkout.

Fault tolerance: an actor that dies (crash, OOM kill, lost node) is restarted by Ray (up to
``ray_max_restarts`` times); the chunk it was collecting is dropped from that update, which
simply learns from a smaller batch. Each loss is logged and counted (TensorBoard
``charts/worker_restarts`` and ``charts/lost_chunks``). If every chunk of an update is lost the
update is collected again. A run killed as a whole resumes from its ``latest.pt`` with
``python -m train --resume`` as usual.
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from arena import env_shape
from envs.games import describe
from train.config import RAY_MISSING
from train.rollout import Episode, RolloutSpec, RolloutWorker, merge_batches

try:
    import ray
    from ray.exceptions import RayActorError
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError(RAY_MISSING) from e

STARTUP_WARNING_S = 60.0  # warn if the actors have not started after this long (not enough free CPUs?)
MAX_EMPTY_ROUNDS = 3  # rounds in a row in which every chunk was lost before the run gives up
PROBE_INTERVAL_S = 1.0  # between probes of an actor that Ray is restarting
MAX_PROBE_FAILURES = 600  # probes that fail before the run gives up on a restarting actor (~10 min)


def project_modules() -> list[str]:
    """The directories of the project's packages (``py_modules`` of the actors' runtime env)."""
    import agents
    import envs
    import train

    return [str(Path(m.__file__).resolve().parent) for m in (envs, agents, train)]


def init_ray(address: str = "", **kwargs: Any) -> bool:
    """Connect to (or start) Ray unless this process already did; True if it was started here.

    The project's packages go to every worker as the job's ``py_modules`` (Ray accepts local
    directories only here, at the job level). Who calls ``ray.init`` itself must make them
    importable on the workers in the same way, or install the project on every node.
    """
    if ray.is_initialized():
        return False
    ray.init(address=address or None, logging_level="WARNING", log_to_driver=True,
             runtime_env={"py_modules": project_modules(), "env_vars": {"OMP_NUM_THREADS": "1"}}, **kwargs)
    return True


class RolloutActor:
    """A :class:`RolloutWorker` in a Ray actor process.

    Every ``collect`` call carries the update's plan, weights and snapshots as object refs; the
    actor loads them on the first call of an update. So an actor that Ray restarted after a crash
    (a fresh process, its constructor run again) is up to date on its next call, with no
    bookkeeping on the learner's side.
    """

    def __init__(self, spec: RolloutSpec) -> None:
        torch.set_num_threads(1)
        self.worker = RolloutWorker(spec)
        self.incarnation = uuid.uuid4().hex  # new after every restart
        self.synced_update: int | None = None
        self.snapshot_ids: set[int] = set()

    def info(self) -> dict[str, Any]:
        return {"pid": os.getpid(), "incarnation": self.incarnation, "node": ray.util.get_node_ip_address()}

    def collect(self, update: int, chunk: int, env_ids: list[int], sync: dict[str, Any]
                ) -> tuple[str, dict[str, np.ndarray], list[Episode]]:
        if self.synced_update != update:
            plan = sync["plan"]
            new_ids = [i for i in plan["snapshot_ids"] if i not in self.snapshot_ids]
            # Object-store arrays are read-only views: copy them before torch takes them.
            fetched = ray.get([sync["snapshots"][i] for i in new_ids] + [sync["weights"][0]])
            fetched = [{k: np.array(v) for k, v in state.items()} for state in fetched]
            self.worker.sync(plan, dict(zip(new_ids, fetched[:-1], strict=True)), fetched[-1])
            self.snapshot_ids = set(plan["snapshot_ids"])
            self.synced_update = update
        batch, episodes = self.worker.collect(update, chunk, env_ids)
        return self.incarnation, batch, episodes


class RayCollector:
    """Same interface as :class:`train.rollout.Collector`: ``collect(update, plan, snapshots)`` ->
    ``(batch, episodes)``, ``close()``; plus ``metrics()`` (restart and loss counters)."""

    def __init__(self, spec: RolloutSpec, chunks: list[list[int]], num_workers: int, network: nn.Module,
                 address: str = "", cpus_per_worker: float = 1.0, max_restarts: int = 100, log: Any = None) -> None:
        self.network = network
        self.chunks = chunks
        self.log = log or (lambda message: tqdm.write(message, file=sys.stderr))
        probe = describe(spec.game).raw_env(**spec.env_options)
        self.num_seats = len(probe.possible_agents)
        self.env_shape = env_shape(probe)
        self.max_restarts = max_restarts
        self.restarts = 0  # actor restarts seen (each lost chunk is one, so is a new incarnation)
        self.lost_chunks = 0
        self.failures = [0] * num_workers  # per actor
        self.snapshot_refs: dict[int, Any] = {}
        self.recovering: dict[Any, int] = {}  # probe ref -> actor being restarted by Ray
        self.probe_failures = [0] * num_workers
        self.started_ray = init_ray(address)
        self.actors: list[Any] = []
        try:
            actor_class = ray.remote(RolloutActor).options(
                num_cpus=cpus_per_worker, max_restarts=max_restarts, max_task_retries=0)
            free = ray.available_resources().get("CPU", 0.0)
            if free < num_workers * cpus_per_worker:
                self.log(f"ray: {num_workers} rollout actors need {num_workers * cpus_per_worker:g} CPUs, the cluster "
                         f"has {free:g} free; they wait for resources (lower ray_cpus_per_worker or num_workers)")
            self.actors = [actor_class.remote(spec) for _ in range(num_workers)]
            infos = self._wait_started()
            self.incarnations: list[str | None] = [i["incarnation"] for i in infos]
            nodes = sorted({i["node"] for i in infos})
            self.log(f"ray: {num_workers} rollout actors on {len(nodes)} node(s) {', '.join(nodes)}; "
                     f"{len(self.chunks)} chunks of {len(self.chunks[0])} envs per update")
        except BaseException:
            self.close()
            raise

    def _wait_started(self) -> list[dict[str, Any]]:
        refs = [actor.info.remote() for actor in self.actors]
        while True:
            ready, pending = ray.wait(refs, num_returns=len(refs), timeout=STARTUP_WARNING_S)
            if not pending:
                return ray.get(refs)
            self.log(f"ray: {len(pending)} of {len(refs)} rollout actors not started after {STARTUP_WARNING_S:.0f} s "
                     f"(cluster resources {ray.cluster_resources()}); still waiting")

    def collect(self, update: int, plan: dict[str, Any], snapshots: list[tuple[int, dict[str, Any]]]
                ) -> tuple[dict[str, np.ndarray], list[Episode]]:
        """One rollout of every chunk that survives, merged in chunk order."""
        weights = {k: v.detach().cpu().numpy() for k, v in self.network.state_dict().items()}
        live = {i for i, _ in snapshots}
        for i in [i for i in self.snapshot_refs if i not in live]:
            del self.snapshot_refs[i]
        for i, state in snapshots:
            if i not in self.snapshot_refs:
                self.snapshot_refs[i] = ray.put({k: v.detach().cpu().numpy() for k, v in state.items()})
        # Refs nested in containers reach the actor unresolved: it fetches them once per update.
        sync = {"plan": plan, "weights": [ray.put(weights)], "snapshots": dict(self.snapshot_refs)}
        for _ in range(MAX_EMPTY_ROUNDS):
            results = self._round(update, sync)
            if results:
                ordered = [results[c] for c in sorted(results)]
                return merge_batches([b for b, _ in ordered]), [e for _, eps in ordered for e in eps]
            self.log(f"ray: every chunk of update {update} was lost; collecting it again")
        raise RuntimeError(f"ray: every rollout chunk was lost {MAX_EMPTY_ROUNDS} times in a row")

    def _round(self, update: int, sync: dict[str, Any]) -> dict[int, tuple[dict[str, np.ndarray], list[Episode]]]:
        todo = list(range(len(self.chunks)))
        idle = [a for a in range(len(self.actors)) if a not in self.recovering.values()]
        busy: dict[Any, tuple[int, int]] = {}  # result ref -> (actor, chunk)
        results: dict[int, tuple[dict[str, np.ndarray], list[Episode]]] = {}
        while todo or busy:
            while idle and todo:
                actor, chunk = idle.pop(0), todo.pop(0)
                ref = self.actors[actor].collect.remote(update, chunk, self.chunks[chunk], sync)
                busy[ref] = (actor, chunk)
            if not busy and not self.recovering:
                break
            # Actors Ray is restarting get no work (a call would fail) until their probe answers.
            (ref,), _ = ray.wait(list(busy) + list(self.recovering), num_returns=1)
            if ref in self.recovering:
                actor = self.recovering.pop(ref)
                if self._probe_answered(actor, ref):
                    idle.append(actor)
                continue
            actor, chunk = busy.pop(ref)
            try:
                incarnation, batch, episodes = ray.get(ref)
            except RayActorError as e:
                self._lost(actor, chunk, update, e)
                continue
            if self.incarnations[actor] is not None and incarnation != self.incarnations[actor]:
                self._restarted(actor, f"rollout actor {actor} was restarted between calls")
            self.incarnations[actor] = incarnation
            results[chunk] = (batch, episodes)
            idle.append(actor)
        return results

    def _probe_answered(self, actor: int, ref: Any) -> bool:
        """True when a restarted actor is up again; else it is probed again a little later."""
        try:
            self.incarnations[actor] = ray.get(ref)["incarnation"]
            self.probe_failures[actor] = 0
            return True
        except RayActorError as e:
            self.probe_failures[actor] += 1
            if self.probe_failures[actor] > MAX_PROBE_FAILURES:
                raise RuntimeError(f"ray: rollout actor {actor} did not come back after a crash: {e}") from e
            time.sleep(PROBE_INTERVAL_S)
            self.recovering[self.actors[actor].info.remote()] = actor
            return False

    def _lost(self, actor: int, chunk: int, update: int, error: Exception) -> None:
        self.lost_chunks += 1
        self.incarnations[actor] = None  # its next result comes from the restarted process
        self.recovering[self.actors[actor].info.remote()] = actor
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        self._restarted(actor, f"rollout actor {actor} died ({type(error).__name__}: {reason[:200]}); chunk {chunk} "
                               f"({len(self.chunks[chunk])} envs) of update {update} is dropped")

    def _restarted(self, actor: int, message: str) -> None:
        self.restarts += 1
        self.failures[actor] += 1
        self.log(f"ray: {message}; restart {self.failures[actor]} of this actor, {self.restarts} in this run")
        if self.max_restarts >= 0 and self.failures[actor] > self.max_restarts:
            raise RuntimeError(f"ray: rollout actor {actor} died more than ray_max_restarts={self.max_restarts} "
                               "times; see the worker logs above")

    def metrics(self) -> dict[str, float]:
        return {"charts/worker_restarts": float(self.restarts), "charts/lost_chunks": float(self.lost_chunks)}

    def actor_pids(self) -> list[int]:
        return [info["pid"] for info in ray.get([actor.info.remote() for actor in self.actors])]

    def close(self) -> None:
        for actor in self.actors:
            try:
                ray.kill(actor)
            except Exception:  # already gone
                pass
        self.actors = []
        self.snapshot_refs.clear()
        self.recovering.clear()
        if self.started_ray:
            ray.shutdown()
            self.started_ray = False
