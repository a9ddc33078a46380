"""``python -m train [--config FILE] [--set key=value ...] [--resume CHECKPOINT] [--check]``

Without arguments: the default config (configs/skat_ppo.yaml), a short Skat PPO run.
``--resume`` continues a run from its ``latest.pt`` with the config stored in it (``--set`` may
still change keys, e.g. ``--set total_timesteps=2000000`` to train longer). ``--check`` does everything
a run does before its first step (the config, the overrides, the checkpoint, the env, the learner and
the opponents) and prints what the run would do, without training or writing anything.
Ctrl-C (or SIGTERM) stops a run within seconds: ``latest.pt`` is written and the exit code is 130.
"""

from __future__ import annotations

import argparse
import sys

from agents.checkpoint import CheckpointError
from train.config import DEFAULT_CONFIG, ConfigError, load_config
from train.interrupt import TrainingInterrupted
from train.trainer import Trainer

NOT_AGENTS = ("self", "snapshot")  # opponent specs that exist only inside a run (the learner's own weights)


def check(trainer: Trainer) -> str:
    """What ``trainer`` would do, in one paragraph, after building one env, its learner and every opponent
    and evaluation agent the config names (a bad spec raises as it would in the run)."""
    import agents
    from envs.games import describe

    cfg = trainer.cfg
    env = describe(cfg.game).raw_env(**cfg.env_options)
    env.reset(seed=cfg.seed)
    specs = dict.fromkeys([*cfg.opponents, *cfg.eval_opponents, cfg.pretrain.teacher])
    for spec in specs:
        if spec and spec not in NOT_AGENTS:
            agents.make(spec, game=cfg.game, seed=cfg.seed)
    options = ", ".join(f"{k}={v}" for k, v in cfg.env_options.items()) or "default table"
    start = f"resumes at step {trainer.global_step:,} (update {trainer.update}) and " if trainer.global_step else ""
    warm = f"; warm start: clone {cfg.pretrain.teacher!r} over {cfg.pretrain.episodes:,} deals" \
        if cfg.pretrain.teacher and trainer.update == 0 and not trainer.pretrain_metrics else ""
    opponents = ", ".join(f"{k}:{v:g}" for k, v in cfg.opponents.items())
    evaluation = ", ".join(cfg.eval_opponents) or "none"
    collection = f"batched collection on {cfg.device}" if cfg.collection == "batched" else \
        f"{cfg.num_workers} {cfg.runtime} workers"
    return (f"check: {cfg.game} ({options}), {cfg.algorithm}, observation {trainer.obs_size} floats, "
            f"{trainer.num_actions} actions; {start}trains to total_timesteps={cfg.total_timesteps:,} with "
            f"{cfg.num_envs} envs x {cfg.num_steps} steps ({collection}){warm}; opponents {opponents}; "
            f"evaluation against {evaluation}. "
            f"Run {cfg.run_name}: TensorBoard logs would go to {trainer.run_dir}, checkpoints to "
            f"{trainer.checkpoint_dir}. Nothing was trained or written.")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m train", description=__doc__.split("\n\n")[1])
    parser.add_argument("--config", help=f"YAML config file (default: {DEFAULT_CONFIG.name})")
    parser.add_argument("--set", dest="overrides", action="extend", nargs="+", default=[], metavar="KEY=VALUE",
                        help="override config keys, e.g. --set num_envs=64 ppo.learning_rate=1e-4")
    parser.add_argument("--resume", metavar="CHECKPOINT", help="continue a run from its latest.pt")
    parser.add_argument("--check", action="store_true",
                        help="check the config, overrides, checkpoint, env and agents, print what the run would "
                             "do and exit without training or writing anything")
    args = parser.parse_args(argv)
    try:
        if args.resume:
            if args.config:
                parser.error("--resume uses the config stored in the checkpoint; change keys with --set")
            trainer = Trainer.resume(args.resume, args.overrides)
        else:
            trainer = Trainer(load_config(args.config or DEFAULT_CONFIG, args.overrides))
        if args.check:
            print(check(trainer))
            return 0
    except (ConfigError, CheckpointError, ValueError, ImportError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"run {trainer.cfg.run_name}: TensorBoard logs in {trainer.run_dir}, checkpoints in {trainer.checkpoint_dir}")
    try:
        results = trainer.train()
    except TrainingInterrupted as e:
        print(f"\n{e}", file=sys.stderr)
        return 130
    for tag, value in results.items():
        print(f"{tag} = {value:.4g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
