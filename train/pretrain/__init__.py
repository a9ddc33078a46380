"""Warm start by behaviour cloning: imitate a teacher (the rule baseline) before self-play RL.

PPO from random weights finds the safe local optimum of Skat quickly -- pass every hand and
collect the defenders' points -- and rarely leaves it; in Thirty-One it needs millions of
decisions to learn what a hand is worth. Starting from a policy that already plays like the
baseline (AlphaStar-style supervised initialisation) lets PPO spend its budget on the part that
matters: beating that baseline. With ``pretrain.teacher`` set in a config the trainer, before its
first update:

1. plays ``pretrain.episodes`` deals (Thirty-One: whole games) with the teacher in every seat and
   records each decision: observation, action mask, the teacher's action, and the seat's return
   from that decision on (scaled and discounted exactly as PPO's value target);
2. trains the learner's network on them: cross-entropy of the masked policy on the teacher's
   action, plus ``value_coef`` x the squared error of the critic on the return, so PPO's first
   advantages come from a critic that already knows what the positions are worth;
3. logs ``pretrain/{accuracy, policy_loss, value_loss}`` on a held-out part of the deals.

A clone errs now and then and so reaches positions its teacher never shows it. With
``pretrain.driver`` (a checkpoint, usually the clone itself) the driver plays the deals, greedily,
and the teacher only labels every decision: one round of DAgger (Ross et al., 2011), which teaches
the way back from the clone's own mistakes. ``--init`` starts the cloning from a checkpoint's
weights instead of fresh ones::

    python -m train.pretrain --init skat_bc.pt --set pretrain.driver=skat_bc.pt pretrain.learning_rate=3e-4 \
        --episodes 40000 --out skat_dagger.pt

``pretrain.teach_only`` narrows the teacher to some kinds of decision, named by the first word of
their action names (Skat: ``bid hold pass pickup hand discard declare kontra re play``;
Thirty-One: ``draw take knock throw_down look discard``); the driver labels the others with its
own greedy moves, so a policy that already beats its teacher somewhere keeps what it learned
there and is taught only where the teacher still plays better (Skat's PPO agent bids better than
the rule agent but discards and declares worse)::

    python -m train.pretrain --init skat_ppo.pt --set pretrain.driver=skat_ppo.pt \
        "pretrain.teach_only=[discard, declare]" --episodes 40000 --out skat_ppo_taught.pt

With a checkpoint as the teacher, ``pretrain.copy_teacher`` makes the policy an exact copy of it
(same ``hidden`` and ``activation``) and fits only the critic or NFSP's Q-network: configs/skat_nfsp.yaml
starts NFSP's average policy as the shipped PPO agent that way.

Expert iteration (configs/skat_exit.yaml): a search agent as the teacher of the network's card play,
the network driving. Its labels are expensive (PIMC: about 0.05 s per card), so ``pretrain.cache``
(a folder) keeps each labelled chunk of deals on disk (train/pretrain/cache.py): a run killed midway
or a second cloning of the same deals labels only what is missing::

    python -m train.pretrain --init skat_ppo.pt --set pretrain.teacher=pimc:preset=fast \
        pretrain.driver=skat_ppo.pt "pretrain.teach_only=[play]" pretrain.cache=runs/exit_cache \
        --episodes 4000 --out skat_exit.pt

``pretrain.opponents`` (spec -> weight) seats other agents at the labelled deals: one seat per deal is
taught, each other seat draws ``self`` (taught too), ``rule`` or a checkpoint (unrecorded), so the labels
cover the positions met against them. ``pretrain.correction_weight`` weights the rows whose label is not
the driver's own move (:func:`train.pretrain.clone.correction_weights`). ``pretrain.soft_temperature=T``
records a search teacher's move values (:meth:`agents.base.Agent.action_values`) and fits softmax(values / T)
(:func:`train.pretrain.clone.soft_targets`) instead of its argmax. An ``--init`` file narrower than
the config's ``hidden`` is widened to the same function first (:func:`agents.networks.widen`).

Neither the teacher's decisions nor the cloning steps count in ``global_step`` (they are not
decisions of the learner); TensorBoard shows them as ``pretrain/decisions``. Deals are played
in chunks seeded by ``(seed, chunk)``, so the data set is the same for any number of worker
processes.

    python -m train.pretrain --config configs/skat_ppo.yaml --out skat_bc.pt   # stand-alone
    python -m train --resume skat_bc.pt --set run_name=skat_finetune            # then RL from it

The stand-alone checkpoint plays (``agents.load``) and resumes as a run at update 0 whose warm
start is done, so one pretraining can seed several fine-tuning runs.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

import agents
from agents.base import Observation
from agents.checkpoint import load as load_checkpoint
from agents.checkpoint import load_named_policy
from arena import Deal, Request, play
from envs.games import describe
from train.interrupt import StopNow, children_ignore_signals, stop_workers
from train.pretrain.cache import ChunkCache, spec_key
from train.pretrain.clone import behaviour_clone, correction_weights, demonstration_q_loss

__all__ = ["CHUNK", "behaviour_clone", "collect_demonstrations", "correction_weights", "demonstration_q_loss",
           "play_teacher", "pretrain", "teacher_data"]

CHUNK = 50  # deals per work item


class Demonstrator:
    """One seat of the teacher's deals, as an arena actor: the teacher is asked every decision (it tracks
    the deal), the driver's move is played if there is a driver, and each decision is recorded."""

    shareable = False

    def __init__(self, recorder: _Recorder, teacher: Any, driver: Any | None) -> None:
        self.recorder, self.teacher, self.driver = recorder, teacher, driver

    def begin(self, table: int, seat: int) -> None:
        self.teacher.reset()

    def credit(self, table: int, seat: int, reward: float) -> None:
        self.recorder.credit(seat, reward)

    def decide(self, requests: list[Request]) -> list[int]:
        played = []
        for request in requests:
            observation = request.observation
            action = int(self.teacher.act(observation))  # asked even when not played: it tracks the deal
            values = self.teacher.action_values() if self.recorder.with_values else None
            played.append(action if self.driver is None else int(self.driver.act(observation)))
            self.recorder.add(request.seat, observation, action, played[-1], values)
        return played


class _Recorder:
    """The rows of the teacher's deals, with each seat's return-to-go filled in when its deal ends."""

    def __init__(self, gamma: float, reward_scale: float, taught_kinds: np.ndarray | None,
                 with_values: bool = False) -> None:
        self.gamma, self.reward_scale, self.taught_kinds = gamma, reward_scale, taught_kinds
        self.with_values = with_values  # also record the teacher's move values (NaN where it gave none)
        keys = ("obs", "mask", "action", "ret", "deal", "seat", "taught") + (("values",) if with_values else ())
        self.rows: dict[str, list[Any]] = {k: [] for k in keys}
        self.deal = -1  # the deal being played (0, 1, ...)

    def start_deal(self, seats: int) -> None:
        self.deal += 1
        self.base = len(self.rows["action"])  # rows of this deal start here
        self.by_seat: list[list[int]] = [[] for _ in range(seats)]  # per seat: its decisions, as offsets from base
        self.rewards: list[float] = []  # per decision of this deal: reward that reached the seat after it

    def credit(self, seat: int, reward: float) -> None:
        if self.by_seat[seat]:
            self.rewards[self.by_seat[seat][-1]] += reward * self.reward_scale

    def add(self, seat: int, observation: Observation, action: int, played: int,
            values: dict[int, float] | None = None) -> None:
        mask = observation["action_mask"].astype(bool)
        taught = self.taught_kinds is None or bool(self.taught_kinds[mask].any())
        if self.with_values:
            row = np.full(mask.size, np.nan, np.float32)
            for a, v in (values or {}).items() if taught else ():
                row[a] = v
            self.rows["values"].append(row)
        self.by_seat[seat].append(len(self.rewards))
        self.rewards.append(0.0)
        label = action if taught else played
        for key, value in (("obs", np.ravel(observation["observation"])), ("mask", mask), ("action", label),
                           ("taught", taught), ("deal", self.deal), ("seat", seat)):
            self.rows[key].append(value)

    def end_deal(self) -> None:
        returns = self.rows["ret"]
        returns.extend([0.0] * len(self.rewards))
        for decisions in self.by_seat:
            future = 0.0
            for row in reversed(decisions):
                future = self.rewards[row] + self.gamma * future
                returns[self.base + row] = future

    def arrays(self) -> dict[str, np.ndarray]:
        dtypes = {"obs": np.float32, "mask": bool, "action": np.int64, "ret": np.float32, "deal": np.int64,
                  "seat": np.int8, "taught": bool, "values": np.float32}
        return {key: np.asarray(self.rows[key], dtype=dtypes[key]) for key in self.rows}


def play_teacher(game: str, env_options: dict[str, Any], teacher: str, episodes: int, seed: int | list[int],
                 gamma: float = 1.0, reward_scale: float = 1.0, driver: str = "",
                 teach_only: Sequence[str] = (), opponents: dict[str, float] | None = None,
                 values: bool = False) -> dict[str, np.ndarray]:
    """The teacher in every seat for ``episodes`` deals: arrays obs, mask, action, ret (return-to-go),
    and per row the ``deal`` (0..episodes-1) and ``seat`` it comes from.

    One teacher instance per seat (rule agents may keep per-deal state); rewards are credited to the
    decision they follow, as in the trainer's rollouts (the arena's ``last()`` semantics). With a
    ``driver`` (a checkpoint spec) the driver's greedy action is played in every seat while ``action``
    records what the teacher, shown the same observation, would have played (DAgger); with
    ``teach_only`` only decisions among whose legal actions one is of those kinds (first word of the
    action name) get the teacher's action, the others the driver's. ``taught`` marks the rows the
    teacher labelled.

    With ``opponents`` (spec -> weight) only seat ``deal % seats`` is sure to be taught; every other seat
    draws a spec: ``self`` is one more taught seat, any other spec (``rule``, a checkpoint) plays it
    unrecorded, so the data are the taught agent's decisions at tables with those opponents.

    With ``values`` there is one more array, ``values`` [rows, actions]: the teacher's
    :meth:`~agents.base.Agent.action_values` at each taught decision, NaN for actions it gave none.
    """
    description = describe(game)
    env = description.raw_env(**env_options)
    rng = np.random.default_rng(seed)
    teachers = [agents.make(teacher, game=game, seed=int(rng.integers(2**31))) for _ in env.possible_agents]
    driver_agent = agents.make(driver, game=game, greedy=True) if driver else None  # keeps no per-deal state
    recorder = _Recorder(gamma, reward_scale, description.kinds_mask(teach_only, env_options) if teach_only else None,
                         values)
    seats = [Demonstrator(recorder, t, driver_agent) for t in teachers]
    labels = [teacher] * len(seats)
    specs = list(opponents or {})
    weights = np.asarray([opponents[s] for s in specs], dtype=float) if specs else None
    if weights is not None:
        weights /= weights.sum()
    # one instance per seat: a rule agent may keep per-deal state
    others = {spec: [agents.make(spec, game=game, seed=int(rng.integers(2**31))) for _ in seats]
              for spec in specs if spec != "self"}
    started = 0

    def start(table: int) -> Deal | None:
        nonlocal started
        if started == episodes:
            return None
        started += 1
        recorder.start_deal(len(seats))
        if weights is None:
            return Deal(seats, labels, seed=int(rng.integers(2**31)))
        taught = (started - 1) % len(seats)
        drawn = [specs[i] for i in rng.choice(len(specs), size=len(seats), p=weights)]
        drawn[taught] = "self"
        actors = [seats[i] if spec == "self" else others[spec][i] for i, spec in enumerate(drawn)]
        return Deal(actors, [teacher if spec == "self" else spec for spec in drawn], seed=int(rng.integers(2**31)))

    play([env], start, lambda done: recorder.end_deal())
    return recorder.arrays()


def _chunk_job(args: tuple) -> tuple[int, dict[str, np.ndarray]]:
    index, game, env_options, teacher, episodes, seed, gamma, reward_scale, driver, teach_only, opponents, values = args
    torch.set_num_threads(1)
    return index, play_teacher(game, env_options, teacher, episodes, [seed, index], gamma, reward_scale, driver,
                               teach_only, opponents, values)


def collect_demonstrations(game: str, env_options: dict[str, Any], teacher: str, episodes: int, seed: int,
                           workers: int = 1, gamma: float = 1.0, reward_scale: float = 1.0,
                           progress: bool = True, driver: str = "",
                           teach_only: Sequence[str] = (), cache: str = "",
                           opponents: dict[str, float] | None = None, values: bool = False) -> dict[str, np.ndarray]:
    """:func:`play_teacher` over ``episodes`` deals in chunks of :data:`CHUNK`, on ``workers`` processes.

    With ``cache`` (a folder) each chunk is written there once labelled and read back by later runs
    with the same key instead of labelled again (train/pretrain/cache.py), so a run killed midway
    resumes where it stopped and a second cloning of the same deals labels nothing.
    """
    for spec in filter(None, (teacher, driver, *(s for s in opponents or {} if s != "self"))):
        agents.make(spec, game=game)  # fail here, with the spec's own error, not inside a worker
    sizes = [min(CHUNK, episodes - start) for start in range(0, episodes, CHUNK)]
    parts: dict[int, dict[str, np.ndarray]] = {}
    store = _chunk_cache(cache, game, env_options, teacher, driver, teach_only, seed, gamma, reward_scale, opponents,
                         values)
    if store is not None:
        for index, size in enumerate(sizes):
            part = store.load(index, size)
            if part is not None:
                parts[index] = part
    jobs = [(i, game, env_options, teacher, n, seed, gamma, reward_scale, driver, tuple(teach_only), opponents, values)
            for i, n in enumerate(sizes) if i not in parts]
    who = f"{teacher} labels {driver}" if driver else f"{teacher} plays"
    if teach_only:
        who += f" ({', '.join(teach_only)})"
    if opponents:
        who += f" against {', '.join(opponents)}"
    # Over chunks, the cached ones done from the start: tqdm's rate and ETA count only the new ones.
    bar = tqdm(total=len(sizes), initial=len(parts), unit="chunk", desc=f"pretrain: {who}", disable=not progress,
               dynamic_ncols=True)
    if parts:
        bar.set_postfix_str(f"{len(parts)} cached", refresh=False)

    def done(index: int, part: dict[str, np.ndarray]) -> None:
        parts[index] = part
        if store is not None:
            store.save(index, sizes[index], part)
        bar.update(1)

    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            done(*_chunk_job(job))
    else:
        # as the evaluation's pool: the workers ignore SIGINT and SIGTERM (Ctrl-C is the parent's); on Ctrl-C the
        # chunks in progress are dropped (the finished ones are in the cache) and the workers killed
        with ProcessPoolExecutor(min(workers, len(jobs)), mp_context=mp.get_context("spawn")) as pool:
            with children_ignore_signals():  # the pool's processes start here
                futures = [pool.submit(_chunk_job, job) for job in jobs]
            try:
                for future in as_completed(futures):
                    done(*future.result())
            except BaseException:
                stop_workers(pool, futures)
                raise
    bar.close()
    ordered = [dict(parts[i]) for i in range(len(sizes))]
    for i, part in enumerate(ordered):
        part["deal"] = part["deal"] + i * CHUNK  # unique over chunks
    return {key: np.concatenate([p[key] for p in ordered]) for key in ordered[0]}


def _chunk_cache(folder: str, game: str, env_options: dict[str, Any], teacher: str, driver: str,
                 teach_only: Sequence[str], seed: int, gamma: float, reward_scale: float,
                 opponents: dict[str, float] | None = None, values: bool = False) -> ChunkCache | None:
    """The cache of this collection's chunks: keyed by everything that decides a chunk's data."""
    if not folder:
        return None
    env = describe(game).raw_env(**env_options)
    observation = {"version": getattr(env, "observation_version", None), "layout": getattr(env, "layout", None),
                   "size": int(np.prod(env.observation_space(env.possible_agents[0])["observation"].shape))}
    key = {"game": game, "env_options": env_options, "observation": observation, "teacher": spec_key(teacher),
           "driver": spec_key(driver), "teach_only": sorted(teach_only), "seed": seed, "gamma": gamma,
           "reward_scale": reward_scale}
    if opponents:  # absent without them: the chunks cached before the option existed keep their key
        key["opponents"] = {spec_key(s): w for s, w in sorted(opponents.items())}
    if values:  # likewise: chunks without the teacher's move values keep their key
        key["values"] = True
    return ChunkCache(folder, json.loads(json.dumps(key, sort_keys=True, default=str)))


def teacher_data(game: str, env_options: dict[str, Any], cfg: Any, seed: int, workers: int, gamma: float = 1.0,
                 reward_scale: float = 1.0, progress: bool = True) -> dict[str, np.ndarray]:
    """:func:`collect_demonstrations` of a ``PretrainConfig``: the data a warm start clones (the same again
    for the same seed, which is how a resumed NFSP run gets its demonstrations back)."""
    return collect_demonstrations(game, env_options, cfg.teacher, cfg.episodes, seed, workers, gamma, reward_scale,
                                  progress, cfg.driver, cfg.teach_only, getattr(cfg, "cache", ""),
                                  getattr(cfg, "opponents", None), getattr(cfg, "soft_temperature", 0.0) > 0)


def report_stop(stop: StopNow, cache: str) -> int:
    """What the labelling commands print when Ctrl-C or SIGTERM stops them; their exit code (130)."""
    kept = (f"the finished chunks are kept in {cache}: the same command labels only the missing ones" if cache
            else "no chunk is kept (pretrain.cache=FOLDER keeps the finished ones for the next run)")
    print(f"\nstopped by {stop}; {kept}", file=sys.stderr)
    return 130


def copy_teacher_policy(network: nn.Module, teacher: str) -> None:
    """Start ``network``'s policy (its ``actor`` layers) as an exact copy of the checkpoint ``teacher``'s
    playing network (``pretrain.copy_teacher``), which the cloning then leaves as it is (it fits only the
    critic or Q-network): fitted from scratch, a network of the same shape reached 93-95% agreement and
    lost strength on the way."""
    path, policy = agents.split_spec(teacher)
    source, _greedy = load_named_policy(load_checkpoint(path), policy, path)
    theirs, ours = source.spec, network.spec
    keys = ("obs_size", "num_actions", "hidden", "activation")
    if not hasattr(source, "actor") or any(theirs.get(k) != ours.get(k) for k in keys):
        raise ValueError(f"pretrain.copy_teacher: {teacher!r} has a {({k: theirs.get(k) for k in keys})} policy, the "
                         f"learner {({k: ours.get(k) for k in keys})}; set hidden and activation to the teacher's")
    network.actor.load_state_dict(source.actor.state_dict())


def pretrain(network: nn.Module, game: str, env_options: dict[str, Any], cfg: Any, seed: int, workers: int,
             gamma: float = 1.0, reward_scale: float = 1.0, progress: bool = True,
             torch_threads: int = 1, keep: Any = None) -> dict[str, float]:
    """Collect the teacher's deals and clone them into ``network`` (``cfg``: a ``PretrainConfig``).

    ``torch_threads`` as for PPO's update: more than one can stall badly on shared cores. ``keep``
    (optional) is called with the collected data before the cloning (NFSP keeps some of it).
    """
    data = teacher_data(game, env_options, cfg, seed, workers, gamma, reward_scale, progress)
    if keep is not None:
        keep(data)
    if getattr(cfg, "correction_weight", 1.0) != 1.0 and cfg.driver:
        data = {**data, "weight": correction_weights(data, cfg.driver, cfg.correction_weight)}
    copy = getattr(cfg, "copy_teacher", False)
    if copy:
        copy_teacher_policy(network, cfg.teacher)
    threads = torch.get_num_threads()
    torch.set_num_threads(torch_threads)
    try:
        return behaviour_clone(network, data, cfg.epochs, cfg.batch_size, cfg.learning_rate, cfg.value_coef,
                               cfg.holdout, seed, progress, q_margin=getattr(cfg, "q_margin", 0.2), fit_policy=not copy,
                               soft_temperature=getattr(cfg, "soft_temperature", 0.0))
    finally:
        torch.set_num_threads(threads)
