"""``python -m train [--config FILE] [--set key=value ...] [--resume CHECKPOINT]``

Without arguments: the default config (configs/skat_ppo.yaml), a short Skat PPO run.
``--resume`` continues a run from its ``latest.pt`` with the config stored in it (``--set`` may
still change keys, e.g. ``--set total_timesteps=2000000`` to train longer).
"""

from __future__ import annotations

import argparse
import sys

from agents.checkpoint import CheckpointError
from train.config import DEFAULT_CONFIG, ConfigError, load_config
from train.interrupt import TrainingInterrupted
from train.trainer import Trainer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m train", description=__doc__.split("\n\n")[1])
    parser.add_argument("--config", help=f"YAML config file (default: {DEFAULT_CONFIG.name})")
    parser.add_argument("--set", dest="overrides", action="extend", nargs="+", default=[], metavar="KEY=VALUE",
                        help="override config keys, e.g. --set num_envs=64 ppo.learning_rate=1e-4")
    parser.add_argument("--resume", metavar="CHECKPOINT", help="continue a run from its latest.pt")
    args = parser.parse_args(argv)
    try:
        if args.resume:
            if args.config:
                parser.error("--resume uses the config stored in the checkpoint; change keys with --set")
            trainer = Trainer.resume(args.resume, args.overrides)
        else:
            trainer = Trainer(load_config(args.config or DEFAULT_CONFIG, args.overrides))
    except (ConfigError, CheckpointError) as e:
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
