"""``python -m train.pretrain``: clone a teacher into a playing (and resumable) checkpoint, no RL.

    python -m train.pretrain --config configs/skat_ppo_bc.yaml --out skat_bc.pt
    python -m train.pretrain --init skat_bc.pt --set pretrain.driver=skat_bc.pt --episodes 60000 --out skat_dagger.pt
"""

from __future__ import annotations

import argparse
import sys

from agents import checkpoint
from agents.checkpoint import CheckpointError
from envs.games import GAMES
from train.config import ConfigError, load_config
from train.interrupt import StopNow, signals_stop_now
from train.pretrain import report_stop
from train.trainer import Trainer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m train.pretrain", description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", help="training config giving game, env options, network and pretrain keys")
    parser.add_argument("--set", dest="overrides", action="extend", nargs="+", default=[], metavar="KEY=VALUE")
    parser.add_argument("--game", choices=GAMES)
    parser.add_argument("--teacher", help="the agent to imitate (default: the config's pretrain.teacher, else rule)")
    parser.add_argument("--episodes", type=int)
    parser.add_argument("--init", help="a checkpoint (e.g. an earlier --out) whose config and weights the "
                        "cloning starts from (a policy-only one: its actor, with a fresh critic); no --config then")
    parser.add_argument("--out", required=True, help="where to write the playing checkpoint (.pt)")
    args = parser.parse_args(argv)
    overrides = list(args.overrides)
    if args.teacher:
        overrides.append(f"pretrain.teacher={args.teacher}")
    if args.game:
        overrides.append(f"game={args.game}")
    if args.episodes:
        overrides.append(f"pretrain.episodes={args.episodes}")
    if args.init and args.config:
        parser.error("--init takes the config saved in the checkpoint; change keys with --set instead of --config")
    try:
        base = checkpoint.load(args.init) if args.init else None
        # The teacher defaults to rule only where neither the config nor --set/--teacher names one.
        if not load_config(args.config, overrides, base=base and base["config"]).pretrain.teacher:
            overrides.append("pretrain.teacher=rule")
        if base is not None:
            trainer = (Trainer.resume if "learner" in base else Trainer.from_policy)(args.init, overrides)
        else:
            trainer = Trainer(load_config(args.config, overrides))
    except (ConfigError, CheckpointError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        with signals_stop_now():
            metrics = trainer.pretrain()
    except StopNow as stop:
        return report_stop(stop, trainer.cfg.pretrain.cache)
    path = trainer.save(args.out, pretrain=metrics, **trainer.greedy_mark())  # resumable: `python -m train --resume`
    print(" ".join(f"{k}={v:.4g}" for k, v in metrics.items()))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
