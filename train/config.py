"""Training configuration: common keys + one section per algorithm, from YAML and ``--set``.

A config file is flat YAML for the common keys plus one nested mapping per algorithm::

    game: skat
    total_timesteps: 200000
    opponents: {self: 0.6, snapshot: 0.3, rule: 0.1}
    ppo:
      learning_rate: 0.0003

``--set key=value`` overrides a key (``--set ppo.ent_coef=0.02``); values are parsed as YAML
and converted to the key's type (``--set hidden=128,128``, ``--set opponents=self:1,rule:1``).
An unknown key is an error that names it and lists the valid ones.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib.util
import os
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints

import yaml

from agents import ALGORITHMS, TRAINING_ONLY_SPECS, algorithm, split_spec
from agents import make as make_agent
from agents.networks import ACTIVATIONS
from arena import env_shape
from envs.games import GAMES, describe
from train.pretrain.cache import cache_problem

DEFAULT_CONFIG = Path(__file__).resolve().parent.parent / "configs" / "skat_ppo.yaml"


class ConfigError(ValueError):
    """A config that cannot be used; the message names the key."""


@dataclass
class PretrainConfig:
    """Behaviour-cloning warm start before the first update (the ``pretrain:`` section; train/pretrain.py)."""

    teacher: str = ""  # "" -> none; "rule" (or a checkpoint path): imitate it in every seat first
    episodes: int = 20_000  # teacher deals to record (Thirty-One: whole games)
    epochs: int = 4
    batch_size: int = 512
    learning_rate: float = 1e-3
    value_coef: float = 0.5  # weight of the critic's return regression next to the policy's cross-entropy
    holdout: float = 0.05  # share of decisions held out for pretrain/accuracy
    q_margin: float = 0.2  # NFSP: how far (in scaled return) the best response's Q starts other moves below the
    #                         teacher's (DQfD's large-margin loss, train/pretrain: demonstration_q_loss)
    copy_teacher: bool = False  # a checkpoint teacher of the learner's layer sizes: the policy starts as its exact
    #                             copy, and the cloning fits only the critic (NFSP: the best response's Q-network)
    driver: str = ""  # DAgger: a checkpoint that plays the deals (greedily) while the teacher labels every decision
    teach_only: list[str] = field(default_factory=list)  # with a driver: action kinds (first word of an action
    #                       name: "discard", "declare") the teacher labels; the driver keeps its own other moves
    cache: str = ""  # a folder keeping each labelled chunk of deals (train/pretrain/cache.py): reruns and runs
    #                  killed midway reuse the chunks done; "" -> no cache
    correction_weight: float = 1.0  # with a driver: loss weight of the rows where the teacher's label differs
    #   from the driver's own greedy move (the corrections a teacher that mostly agrees with it makes)
    soft_temperature: float = 0.0  # > 0: fit the policy to softmax(teacher's move values / T) where a search
    #   teacher gives them (pimc: this seat's mean score per card), not to its argmax; 0 -> the labels
    opponents: dict[str, float] = field(default_factory=dict)  # {} -> the teacher (or driver) in every seat;
    #   else one seat per deal (rotating) is taught, and each other seat draws a spec by weight: "self" is one
    #   more taught seat, "rule", "random" or a checkpoint plays unrecorded (DAgger on deals against rule)


@dataclass
class CommonConfig:
    """Keys common to every algorithm. Steps count learner decisions (transitions)."""

    game: str = "skat"
    env_options: dict[str, Any] = field(default_factory=dict)  # passed to the env's raw_env(...)
    algorithm: str = "ppo"
    run_name: str = ""  # "" -> <game>_<algorithm>_<seed>_<unix time>
    seed: int = 1
    total_timesteps: int = 200_000
    num_envs: int = 32  # env instances, split over the workers
    num_steps: int = 32  # learner decisions per env per update (whole episodes: a little more)
    num_workers: int = 2  # processes collecting rollouts (the trainer process is one of them)
    rollout_chunks: int = 0  # env groups handed to free workers; 0: one per worker (fastest on an idle
    #                          machine); > 0: also balances busy cores, and the data no longer depends on num_workers
    torch_threads: int = 1  # torch threads of the update (more can stall when the cores are shared)
    collection: str = "envs"  # "envs": AEC envs in worker processes; "batched": one vector env (envs.vector) of
    #                           num_envs games in the trainer process, every decision group in one pass
    device: str = "cpu"  # collection=batched: where the vector env's tensors live ("cpu", "cuda")
    runtime: str = "local"  # "local": worker processes on this machine; "ray": num_workers Ray actors collect
    #                         and the trainer process only learns (pip install '.[ray]'; train/ray_runtime.py)
    ray_address: str = ""  # runtime=ray: "" -> $RAY_ADDRESS, else a cluster started on this machine, else a new
    #                        local instance; "auto" or "host:port" -> that cluster; "local" -> always a new instance
    ray_cpus_per_worker: float = 1.0  # CPUs Ray reserves for each rollout actor
    ray_max_restarts: int = 100  # restarts of each rollout actor before the run fails; -1: unlimited
    hidden: list[int] = field(default_factory=lambda: [256, 256])
    activation: str = "tanh"
    reward_scale: float = 1.0  # multiplies env rewards for learning (logs show raw returns)
    learner_seats: int = 1  # seats per deal the learner plays and learns from; they rotate
    opponents: dict[str, float] = field(default_factory=lambda: {"self": 1.0})  # spec -> weight
    snapshot_every: int = 10  # updates between copies of the learner added to the pool
    pool_size: int = 8  # snapshots kept (oldest dropped)
    pool_sampling: str = "uniform"  # or "recency": snapshot i of k drawn with weight i+1
    eval_every: int = 10  # updates between evaluations (0: only at the end)
    eval_episodes: int = 200  # deals per evaluation opponent, seats rotated
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "rule"])  # [] -> no evaluation
    eval_greedy: bool = False  # evaluate the argmax policy instead of sampling
    eval_duplicate: bool = False  # replay each deal with the opponent in the agent's seat: eval/advantage_vs_*
    best_metric: str = "eval/mean_score_vs_rule"
    checkpoint_every: int = 10  # updates between checkpoints (latest.pt)
    runs_dir: str = "runs"
    checkpoint_dir: str = "checkpoints"
    progress: bool = True
    pretrain: PretrainConfig = field(default_factory=PretrainConfig)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @property
    def algo(self) -> Any:
        """The section of the algorithm being trained (``cfg.ppo`` when ``algorithm: ppo``)."""
        return getattr(self, self.algorithm)


# One section per registered algorithm (``ppo:``, ``nfsp:`` ...), its dataclass taken from the
# algorithm's ``Config``: a new algorithm in agents.ALGORITHMS brings its config section with it.
TrainConfig = dataclasses.make_dataclass(
    "TrainConfig", [(name, algorithm(name).Config, field(default_factory=algorithm(name).Config))
                    for name in ALGORITHMS], bases=(CommonConfig,))
TrainConfig.__module__ = __name__
TrainConfig.__doc__ = "A training config: the common keys plus one section per algorithm (see CommonConfig)."
SECTIONS = {name for name, hint in get_type_hints(TrainConfig).items() if dataclasses.is_dataclass(hint)}
POOL_SAMPLING = ("uniform", "recency")
RUNTIMES = ("local", "ray")
COLLECTIONS = ("envs", "batched")
# What to use instead of "rule" in a game without a rule-based agent (a PettingZoo env module), by config key.
NO_RULE_INSTEAD = {"opponents": "random, self, snapshot or a checkpoint",
                   "eval_opponents": "random or a checkpoint, e.g. --set eval_opponents=random "
                                     "best_metric=eval/mean_score_vs_random",
                   "pretrain.teacher": "random or a checkpoint",
                   "pretrain.opponents": "random, self or a checkpoint"}
RAY_MISSING = ("runtime=ray needs Ray, an optional extra: pip install -e '.[ray]' "
               "(or pip install 'ray[rllib]==2.60.0'); --set runtime=local runs without it")


def load_config(path: str | os.PathLike | None = None, overrides: list[str] | None = None,
                base: dict[str, Any] | None = None) -> TrainConfig:
    """Defaults <- ``base`` dict (e.g. a checkpoint's config) <- YAML file <- ``--set`` overrides."""
    cfg = TrainConfig()
    if base is not None:
        _apply(cfg, base, "checkpoint config")
    if path is not None:
        path = Path(path)
        if not path.is_file():
            raise ConfigError(f"config file {str(path)!r} not found")
        try:
            data = yaml.safe_load(path.read_text()) or {}
        except yaml.YAMLError as e:
            raise ConfigError(f"{path}: not valid YAML: {' '.join(str(e).split())}") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: expected a mapping of config keys at the top level")
        _apply(cfg, data, str(path))
    game_before, set_env_options = cfg.game, False
    for item in overrides or []:
        key, sep, text = item.partition("=")
        if not sep:
            raise ConfigError(f"--set expects key=value, got {item!r}")
        name, dot, sub = key.strip().partition(".")
        try:
            value = yaml.safe_load(text) if text.strip() else ""
        except yaml.YAMLError as e:
            raise ConfigError(f"--set {item!r}: the value is not valid YAML: {' '.join(str(e).split())}") from None
        if dot:  # a section key (ppo.ent_coef) or one entry of a mapping (env_options.num_players)
            current = getattr(cfg, name, None)
            value = {**current, sub: value} if isinstance(current, dict) else {sub: value}
        set_env_options |= name == "env_options"
        _apply(cfg, {name: value}, "--set")
    if cfg.game != game_before and cfg.env_options and not set_env_options:
        raise ConfigError(f"--set game={cfg.game} changes the game, but env_options {cfg.env_options} come from the "
                          f"{game_before} config and are not {cfg.game} options; give the {cfg.game} ones with "
                          f"--set env_options={{}} (or env_options.KEY=VALUE)")
    validate(cfg)
    return cfg


def _apply(obj: Any, data: dict[str, Any], source: str, prefix: str = "") -> None:
    hints = get_type_hints(type(obj))
    for key, value in data.items():
        if key not in hints:
            valid = sorted(hints)
            close = difflib.get_close_matches(str(key), valid, n=1)
            hint = f" (did you mean {prefix + close[0]!r}?)" if close else ""
            raise ConfigError(f"{source}: unknown config key {prefix + str(key)!r}{hint}; "
                              f"valid keys{' of ' + prefix[:-1] if prefix else ''}: {', '.join(valid)}")
        if key in SECTIONS and not prefix:
            if not isinstance(value, dict):
                raise ConfigError(f"{source}: {key!r} is a section; give a mapping or use --set {key}.<key>=value")
            _apply(getattr(obj, key), value, source, prefix=f"{key}.")
        else:
            setattr(obj, key, _coerce(value, hints[key], f"{source}: {prefix}{key}"))


def _coerce(value: Any, hint: Any, where: str) -> Any:
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, types.UnionType):
        if value is None or (isinstance(value, str) and value.lower() in ("none", "null", "")):
            return None
        return _coerce(value, next(a for a in args if a is not type(None)), where)
    if origin is list:
        if isinstance(value, str):
            items = [v for v in value.split(",") if v.strip()]
        else:
            items = value if isinstance(value, list) else [value]  # hidden=64 -> [64]
        if any(isinstance(v, list | dict) for v in items):
            raise ConfigError(f"{where}: expected a flat list, got {value!r}")
        return [_coerce(yaml.safe_load(v) if isinstance(v, str) else v, args[0], where) for v in items]
    if origin is dict:
        if isinstance(value, str):  # "a:1,b:2"
            pairs = [p.rpartition(":") for p in value.split(",") if p.strip()]
            value = {k.strip(): yaml.safe_load(v) for k, _, v in pairs}
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: expected a mapping, got {value!r}")
        return {str(k): v if args[1] is Any else _coerce(v, args[1], where) for k, v in value.items()}
    if hint is bool:
        if isinstance(value, bool):
            return value
        raise ConfigError(f"{where}: expected true or false, got {value!r}")
    if hint in (int, float):
        try:
            number = float(value) if isinstance(value, str) else value
            if isinstance(number, bool) or not isinstance(number, int | float):
                raise TypeError
            if hint is int:
                if number != int(number):
                    raise ValueError
                return int(number)
            return float(number)
        except (TypeError, ValueError):
            raise ConfigError(f"{where}: expected {hint.__name__}, got {value!r}") from None
    if hint is str:
        return str(value)
    return value


# What turns off every warm-start key of the shipped NFSP configs (an error about one of them names all).
SCRATCH = ("(from scratch: pretrain.teacher= pretrain.copy_teacher=false nfsp.demo_weight=0 nfsp.demo_reservoir=0 "
           "nfsp.anchor_weight=0)")


def validate(cfg: TrainConfig) -> None:
    """Check values that have a type but also a range or a fixed set; build the env and every opponent once,
    so a bad option or checkpoint fails here, before a run directory exists."""

    def fail(key: str, message: str) -> None:
        raise ConfigError(f"config key {key!r}: {message}")

    try:
        game = describe(cfg.game)
    except ValueError as e:
        fail("game", str(e))
    if cfg.algorithm not in ALGORITHMS:
        fail("algorithm", f"unknown algorithm {cfg.algorithm!r}; known: {sorted(ALGORITHMS)}")
    for key in ("total_timesteps", "num_envs", "num_steps", "num_workers", "torch_threads", "learner_seats",
                "pool_size", "eval_episodes"):
        if getattr(cfg, key) < 1:
            fail(key, f"must be at least 1, got {getattr(cfg, key)}")
    for key in ("rollout_chunks", "snapshot_every", "eval_every", "checkpoint_every"):
        if getattr(cfg, key) < 0:
            fail(key, f"must be >= 0, got {getattr(cfg, key)}")
    if not cfg.hidden or any(width < 1 for width in cfg.hidden):
        fail("hidden", f"needs at least one layer width, each at least 1, got {cfg.hidden}")
    if cfg.activation not in ACTIVATIONS:
        fail("activation", f"expected one of {sorted(ACTIVATIONS)}, got {cfg.activation!r}")
    if not cfg.reward_scale > 0:
        fail("reward_scale", f"must be > 0, got {cfg.reward_scale}")
    if cfg.pool_sampling not in POOL_SAMPLING:
        fail("pool_sampling", f"expected one of {list(POOL_SAMPLING)}, got {cfg.pool_sampling!r}")
    try:
        probe = game.raw_env(**cfg.env_options)
    except (ValueError, TypeError) as e:
        fail("env_options", f"{cfg.env_options} is not a valid {cfg.game} table: {e}")
    try:
        env_shape(probe)
    except ValueError as e:
        fail("game", f"{cfg.game} cannot be trained on: {e}")
    seats = len(probe.possible_agents)
    if cfg.learner_seats > seats:
        fail("learner_seats", f"{cfg.game} with these env_options has {seats} seats, got {cfg.learner_seats}")
    for key, mix in (("opponents", cfg.opponents), ("pretrain.opponents", cfg.pretrain.opponents or None)):
        if mix is not None and (not mix or any(w < 0 for w in mix.values()) or sum(mix.values()) <= 0):
            fail(key, f"needs specs with non-negative weights and a positive sum, got {mix!r}")
    for key, specs in (("opponents", list(cfg.opponents)), ("eval_opponents", cfg.eval_opponents),
                       ("pretrain.teacher", [cfg.pretrain.teacher]),
                       ("pretrain.opponents", list(cfg.pretrain.opponents))):
        if "rule" in specs and game.rule_agent is None:
            with_rule = ", ".join(g for g in GAMES if describe(g).rule_agent)
            fail(key, f"{cfg.game} has no rule-based agent ('rule' exists for {with_rule}); use "
                      f"{NO_RULE_INSTEAD[key]}")
    for key, specs in (("opponents", list(cfg.opponents)), ("eval_opponents", cfg.eval_opponents)):
        for spec in specs:
            if key == "eval_opponents" and spec in TRAINING_ONLY_SPECS:
                fail(key, f"{spec!r} cannot be an evaluation opponent")
            if spec not in ("random", "rule", *TRAINING_ONLY_SPECS):
                _check_agent(spec, cfg.game, probe, key, fail)
    if cfg.runtime not in RUNTIMES:
        fail("runtime", f"expected one of {list(RUNTIMES)}, got {cfg.runtime!r}")
    if cfg.collection not in COLLECTIONS:
        fail("collection", f"expected one of {list(COLLECTIONS)}, got {cfg.collection!r}")
    if cfg.collection == "batched" and cfg.runtime != "local":
        fail("collection", "batched collection runs in the trainer process: it needs runtime=local")
    if cfg.device not in ("cpu", "cuda") and not cfg.device.startswith("cuda:"):
        fail("device", f"expected cpu, cuda or cuda:N, got {cfg.device!r}")
    if cfg.device != "cpu":
        import torch

        if not torch.cuda.is_available():
            fail("device", f"{cfg.device!r} asked for, but torch sees no CUDA device here")
    if cfg.runtime == "ray" and importlib.util.find_spec("ray") is None:
        fail("runtime", RAY_MISSING)
    if cfg.ray_cpus_per_worker <= 0:
        fail("ray_cpus_per_worker", f"must be > 0, got {cfg.ray_cpus_per_worker}")
    if cfg.ray_max_restarts < -1:
        fail("ray_max_restarts", f"must be >= -1 (-1: unlimited), got {cfg.ray_max_restarts}")
    for name in ALGORITHMS:
        section = getattr(cfg, name)
        for key, message in (section.problems() if hasattr(section, "problems") else {}).items():
            fail(f"{name}.{key}", message)
    pre = cfg.pretrain
    for key, why in (("demo_weight", "the margin loss is on the teacher's decisions"),
                     ("demo_reservoir", "it puts the teacher's decisions into the reservoir"),
                     ("anchor_weight", "it anchors the average policy to its warm start")):
        if cfg.algorithm == "nfsp" and getattr(cfg.nfsp, key) > 0 and not pre.teacher:
            fail(f"nfsp.{key}", f"needs pretrain.teacher: {why} {SCRATCH}")
    searcher = pre.teacher.partition(":")[0] in game.agent_specs  # the game's own search agent: pimc:preset=fast
    if pre.copy_teacher and (pre.teacher in ("", "rule", "random") or searcher):
        fail("pretrain.copy_teacher", f"needs a checkpoint as pretrain.teacher, got {pre.teacher!r} {SCRATCH}")
    if pre.teacher and not searcher and (pre.teacher in TRAINING_ONLY_SPECS or (
            pre.teacher not in ("rule", "random") and not os.path.isfile(split_spec(pre.teacher)[0]))):
        searchers = "".join(f", {name}" for name in game.agent_specs)
        fail("pretrain.teacher", f"{pre.teacher!r} is neither rule, random{searchers} nor an existing checkpoint file")
    if pre.teacher not in ("", "rule", "random"):
        _check_agent(pre.teacher, cfg.game, probe, "pretrain.teacher", fail, search=True)
    if (problem := cache_problem(pre.cache)) is not None:
        fail("pretrain.cache", problem)
    if pre.driver and not os.path.isfile(pre.driver):
        fail("pretrain.driver", f"{pre.driver!r} is not an existing checkpoint file")
    if pre.driver:
        _check_agent(pre.driver, cfg.game, probe, "pretrain.driver", fail)
    if pre.driver and not pre.teacher:
        fail("pretrain.driver", "needs pretrain.teacher: the teacher labels the driver's decisions")
    if pre.opponents and not pre.teacher:
        fail("pretrain.opponents", "needs pretrain.teacher: the opponents play against its taught seats")
    for spec in pre.opponents:
        if spec not in ("self", "random", "rule"):  # a search agent may sit there too: pimc:preset=endgame
            _check_agent(spec, cfg.game, probe, "pretrain.opponents", fail, search=True)
    if pre.teach_only and not pre.driver:
        fail("pretrain.teach_only", "needs pretrain.driver: the driver labels the decisions the teacher does not")
    if pre.teach_only:
        try:
            game.kinds_mask(pre.teach_only, cfg.env_options)
        except ValueError as e:
            fail("pretrain.teach_only", str(e))
    for key in ("episodes", "epochs", "batch_size"):
        if getattr(pre, key) < 1:
            fail(f"pretrain.{key}", f"must be at least 1, got {getattr(pre, key)}")
    if not pre.learning_rate > 0:
        fail("pretrain.learning_rate", f"must be > 0, got {pre.learning_rate}")
    if not pre.soft_temperature >= 0:
        fail("pretrain.soft_temperature", f"must be >= 0 (0: clone the labels), got {pre.soft_temperature}")
    if not pre.correction_weight > 0:
        fail("pretrain.correction_weight", f"must be > 0, got {pre.correction_weight}")
    if pre.correction_weight != 1.0 and not pre.driver:
        fail("pretrain.correction_weight", "needs pretrain.driver: it weights the labels that differ from its moves")
    if pre.q_margin < 0:
        fail("pretrain.q_margin", f"must be >= 0, got {pre.q_margin}")
    if not 0.0 <= pre.holdout < 1.0:
        fail("pretrain.holdout", f"must be in [0, 1), got {pre.holdout}")
    if not cfg.best_metric.startswith("eval/"):
        fail("best_metric", f"must be an eval/ tag such as 'eval/mean_score_vs_rule', got {cfg.best_metric!r}")


def _check_agent(spec: str, game: str, env: Any, key: str, fail: Any, search: bool = False) -> None:
    """A spec other than the baselines must be a loadable checkpoint of this game that fits the env, or
    with ``search``, one of the game's own search agents with valid options (``pimc:preset=fast``)."""
    from agents import checkpoint
    from arena import env_shape

    if search and spec.partition(":")[0] in describe(game).agent_specs:
        try:
            make_agent(spec, game=game)
        except ValueError as e:
            fail(key, str(e))
        return
    path = split_spec(spec)[0]
    if not os.path.isfile(path):
        fail(key, f"{spec!r} is neither random, rule, self, snapshot nor an existing checkpoint file")
    try:
        metadata = checkpoint.load(path, game=game)["metadata"]
        checkpoint.check_env_shape(metadata, *env_shape(env), where=spec)
    except checkpoint.CheckpointError as e:
        fail(key, str(e))
