"""RLlib PPO with action masking and self-play on Skat (RLlib's new API stack).

Needs the ``ray`` extra: ``pip install -e '.[ray]'``. Then, from the repository root::

    python examples/rllib_skat_ppo.py                                  # local Ray instance, 20 iterations
    python examples/rllib_skat_ppo.py --iterations 200 --num-env-runners 2 --checkpoint checkpoints/rllib_skat
    RAY_ADDRESS=<head>:6379 python examples/rllib_skat_ppo.py --num-env-runners 32   # on a Ray cluster
    python examples/rllib_skat_ppo.py --game thirtyone --env-options '{num_players: 3, lives: 1}'

What it sets up:

* Env: ``envs.rllib.TurnBasedEnv`` -- every seat is an RLlib agent; the observation dict holds
  only the seat to act, as ``{"observations": ..., "action_mask": ...}``.
* Module: RLlib's ``ActionMaskingTorchRLModule`` (PPO's default MLP; the mask is added to the
  logits as log(mask), so illegal actions get probability ~0 when sampling and in the loss).
* Self-play: all seats map to one module, ``"main"`` (parameter sharing): the policy plays
  itself and learns from every seat's decisions. (A league with frozen copies, as in RLlib's
  ``self_play_with_open_spiel.py`` example, maps some seats to other modules.)
* Rewards: Skat tournament points times ``--reward-scale`` (0.01: about +-1 per deal).

Each iteration prints the mean episode return (summed over the 3 seats of a deal: negative,
since tournament scoring is not zero-sum), the mean return of one seat, env steps sampled and
the time taken. ``--checkpoint DIR`` saves the algorithm at the end (``Algorithm.from_checkpoint``
restores it).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout without installing

from envs.rllib import env_creator  # noqa: E402  (needs the ray extra)

ENV_NAME = "skat31_turn_based"
MODULE = "main"


def build_config(game: str = "skat", env_options: dict[str, Any] | None = None, reward_scale: float = 0.01,
                 num_env_runners: int = 0, envs_per_runner: int = 1, train_batch_size: int = 4000,
                 minibatch_size: int = 512, num_epochs: int = 4, lr: float = 3e-4, hidden: tuple[int, ...] = (256, 256),
                 seed: int | None = 1) -> Any:
    """The ``PPOConfig`` of this example (build it with ``.build_algo()``)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env

    register_env(ENV_NAME, env_creator)
    return (
        PPOConfig()
        .environment(ENV_NAME, env_config={"game": game, "env_options": env_options or {},
                                           "reward_scale": reward_scale},
                     # RLlib's env pre-check steps unmasked random actions, which the rules refuse.
                     disable_env_checking=True)
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=envs_per_runner,
                     num_cpus_per_env_runner=1)
        .multi_agent(policies={MODULE}, policy_mapping_fn=lambda agent_id, episode, **kwargs: MODULE)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MODULE: RLModuleSpec(
            module_class=ActionMaskingTorchRLModule,
            model_config={"fcnet_hiddens": list(hidden), "fcnet_activation": "tanh",
                          "head_fcnet_hiddens": [], "vf_share_layers": False})}))
        .training(train_batch_size_per_learner=train_batch_size, minibatch_size=minibatch_size,
                  num_epochs=num_epochs, lr=lr, gamma=1.0, lambda_=0.95, entropy_coeff=0.01, vf_loss_coeff=0.5,
                  grad_clip=0.5)
        .debugging(seed=seed)
    )


def summary(result: dict[str, Any]) -> dict[str, float]:
    """The few numbers of an ``algo.train()`` result this example prints."""
    runners = result.get("env_runners", {})
    module_returns = runners.get("module_episode_returns_mean", {})
    return {
        "episode_return_mean": float(runners.get("episode_return_mean", float("nan"))),
        "seat_return_mean": float(module_returns.get(MODULE, float("nan"))) / 3 if MODULE in module_returns
        else float("nan"),
        "env_steps_lifetime": float(result.get("num_env_steps_sampled_lifetime",
                                               runners.get("num_env_steps_sampled_lifetime", 0))),
        "episodes": float(runners.get("num_episodes", 0)),
    }


def main(argv: list[str] | None = None) -> list[dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="skat", choices=["skat", "thirtyone"])
    parser.add_argument("--env-options", default="{}", help="YAML mapping of env options, e.g. '{scoring: seeger}'")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--num-env-runners", type=int, default=0, help="0: sample in the driver process")
    parser.add_argument("--envs-per-runner", type=int, default=1)
    parser.add_argument("--train-batch-size", type=int, default=4000, help="env steps (all seats) per iteration")
    parser.add_argument("--minibatch-size", type=int, default=512)
    parser.add_argument("--num-epochs", type=int, default=4)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--hidden", default="256,256")
    parser.add_argument("--reward-scale", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--num-cpus", type=int, default=None, help="CPUs of a new local Ray instance")
    parser.add_argument("--checkpoint", help="directory to save the trained algorithm to")
    args = parser.parse_args(argv)

    import ray

    started = False
    if not ray.is_initialized():
        # RAY_ADDRESS / a cluster started here with `ray start --head`, else a new local instance.
        ray.init(num_cpus=args.num_cpus, logging_level="WARNING",
                 runtime_env={"py_modules": [str(Path(__file__).resolve().parent.parent / "envs")]})
        started = True
    algo = None
    history = []
    try:
        algo = build_config(args.game, yaml.safe_load(args.env_options) or {}, args.reward_scale,
                            args.num_env_runners, args.envs_per_runner, args.train_batch_size, args.minibatch_size,
                            args.num_epochs, args.lr, tuple(int(h) for h in args.hidden.split(",")),
                            args.seed).build_algo()
        for i in range(1, args.iterations + 1):
            start = time.time()
            numbers = summary(algo.train())
            numbers["seconds"] = time.time() - start
            history.append(numbers)
            print(f"iter {i:4d}  return/deal {numbers['episode_return_mean']:+8.3f}  "
                  f"per seat {numbers['seat_return_mean']:+7.3f}  env steps {numbers['env_steps_lifetime']:9.0f}  "
                  f"{numbers['seconds']:5.1f} s", flush=True)
        if args.checkpoint:
            path = algo.save_to_path(str(Path(args.checkpoint).resolve()))
            print(f"saved to {path}")
    finally:
        if algo is not None:
            algo.stop()
        if started:
            ray.shutdown()
    return history


if __name__ == "__main__":
    main()
