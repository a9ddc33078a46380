"""Our NFSP next to OpenSpiel's PyTorch NFSP: exact exploitability against episodes, in one run.

    python -m train.bench nfsp --game kuhn_poker                      # 300k episodes, ~10 min
    python -m train.bench nfsp --game leduc_poker --points 8 --first 5000   # 600k episodes, ~40 min
    python -m train.bench nfsp --game kuhn_poker --set nfsp.replay_size=200000   # change our config (and theirs)

* ours: ``train.trainer.Trainer`` (``algorithm: nfsp``) on ``envs.openspiel_aec``, the very OpenSpiel
  game as a PettingZoo AEC env; the learner plays every seat (``learner_seats`` = players), so each
  seat draws best response or average policy per episode, as in NFSP. Rollouts are the trainer's
  (``make_collector``), updates ``NFSP.update``; only the episode count decides when to stop.
* OpenSpiel: one ``open_spiel.python.pytorch.nfsp.NFSP`` per player, trained episode by episode as
  in OpenSpiel's ``nfsp_kuhn_pytorch.py`` example, with our hyperparameters mapped onto its arguments
  (:func:`openspiel_kwargs`; the mapping is printed).

At each logged point both have played exactly the same number of episodes (ours stops at the first
update past the point, OpenSpiel is then run to the same count); the exploitability of both average
policies is computed exactly (``train.bench.exploitability``). Writes ``nfsp_<game>.csv``, ``.png``
(exploitability vs episodes, log-log), ``.json`` and our final policy ``nfsp_<game>.pt`` to ``--out``.
Needs the ``exploitability`` extra (``open_spiel``).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from agents.nfsp import linear_schedule
from train.errors import report_error

DEFAULT_EPISODES = {"kuhn_poker": 300_000, "leduc_poker": 600_000}  # ~10 and ~40 min on 2 shared cores

# Our config for the benchmark (``--set`` changes it); OpenSpiel gets the same values where they map.
# The network, reservoir, eta, epsilon and batch follow OpenSpiel's nfsp_kuhn_pytorch.py example; the
# optimiser is ours (Adam), which OpenSpiel's NFSP offers too. The replay buffer holds the last ~10k
# Kuhn episodes (the example's 200k transitions are a third of a 300k-episode run): the best response
# must answer how the others play now, and with the larger buffer both implementations stall near 0.15.
BENCH_CONFIG: dict[str, Any] = {
    "algorithm": "nfsp", "game": "envs.openspiel_aec", "seed": 1,
    "hidden": [128], "activation": "relu", "reward_scale": 1.0,
    "num_envs": 32, "num_steps": 4, "num_workers": 1, "rollout_chunks": 0,
    "opponents": {"self": 1.0}, "snapshot_every": 0, "eval_opponents": [], "checkpoint_every": 0,
    "progress": False, "total_timesteps": 2**62,  # the benchmark stops by episodes
    "nfsp": {"eta": 0.1, "rl_learning_rate": 0.001, "sl_learning_rate": 0.001, "gamma": 1.0, "batch_size": 128,
             "learn_every": 64, "learning_starts": 1000, "replay_size": 20_000, "reservoir_size": 2_000_000,
             "target_update_every": 300, "epsilon_start": 0.06, "epsilon_end": 0.001, "exploration_fraction": 1.0,
             "max_grad_norm": 10.0},
}


def openspiel_kwargs(cfg: Any) -> dict[str, Any]:
    """OpenSpiel NFSP arguments for our config (epsilon is set per episode instead: see :class:`TheirNFSP`).

    * learn_every: OpenSpiel counts each player's steps (its decisions and the final step of each
      episode) and takes one SL and one RL step per ``learn_every`` of them; ours counts decisions;
    * target network: OpenSpiel counts DQN iterations, which advance only in best-response episodes
      (a fraction eta), so ``target_update_every`` RL steps of ours are ``eta * learn_every`` times as
      many of its iterations; its update is soft, weight 0.999 on the new network (1 is refused);
    * the RL step's gradient clipping is set on the inner DQN (NFSP passes it to the SL step only);
    * buffers: OpenSpiel keeps one pair per player, ours one pair for all seats (one network plays
      every seat: the information-state tensor says which), so each of its buffers sees one seat's data.
    """
    n = cfg.nfsp
    return {
        "hidden_layers_sizes": list(cfg.hidden), "reservoir_buffer_capacity": n.reservoir_size,
        "anticipatory_param": n.eta, "batch_size": n.batch_size, "rl_learning_rate": n.rl_learning_rate,
        "sl_learning_rate": n.sl_learning_rate, "min_buffer_size_to_learn": n.learning_starts,
        "learn_every": n.learn_every, "optimizer_str": "adam",
        "gradient_clipping": n.max_grad_norm or None,
        # the inner DQN
        "replay_buffer_capacity": n.replay_size, "discount_factor": float(n.gamma), "loss_str": n.rl_loss,
        "huber_loss_parameter": 1.0,  # with rl_loss=huber: torch's smooth_l1_loss, as ours
        "update_target_network_every": max(1, round(n.target_update_every * n.eta * n.learn_every)),
        "weight_update_coeff": 0.999, "epsilon_start": n.epsilon_start, "epsilon_end": n.epsilon_end,
    }


class OurNFSP:
    """Our trainer's NFSP on the OpenSpiel game, advanced update by update until an episode count."""

    def __init__(self, game: str, total_episodes: int, overrides: list[str], workdir: str) -> None:
        from train.config import load_config
        from train.trainer import Trainer

        # Every seat is the learner (NFSP self-play).
        base = dict(BENCH_CONFIG, env_options={"game": game}, learner_seats=_game(game).num_players(),
                    runs_dir=f"{workdir}/runs", checkpoint_dir=f"{workdir}/checkpoints", run_name=f"bench_nfsp_{game}")
        self.cfg = load_config(base=base, overrides=overrides)
        self.trainer = Trainer(self.cfg)
        self.collector = self.trainer.make_collector()
        self.total = total_episodes
        self.seconds = 0.0

    @property
    def episodes(self) -> int:
        return self.trainer.episodes

    def train_to(self, episodes: int) -> None:
        t, start = self.trainer, time.perf_counter()
        while t.episodes < episodes:
            batch, played = self.collector.collect(t.update, t.pool.plan(), t.pool.snapshots)
            t.learner.update(batch, min(1.0, t.episodes / self.total), t.rng)
            t.update += 1
            t.global_step += len(batch["action"])
            t.episodes += len(played)
        self.seconds += time.perf_counter() - start

    def exploitability(self) -> float:
        from train.bench.exploitability import exploitability

        return exploitability(self.cfg.env_options["game"], self.trainer.learner.network)

    def gradient_steps(self) -> int:
        return self.trainer.learner.rl_steps

    def close(self) -> None:
        self.collector.close()


class TheirNFSP:
    """OpenSpiel's PyTorch NFSP, one agent per player, trained episode by episode (its Kuhn example's loop)."""

    def __init__(self, game: str, cfg: Any, total_episodes: int, seed: int) -> None:
        from open_spiel.python import rl_environment
        from open_spiel.python.pytorch import nfsp

        self.nfsp = nfsp
        self.game = _game(game)
        self.env = rl_environment.Environment(self.game, chance_event_sampler=rl_environment.ChanceEventSampler(seed))
        size = self.env.observation_spec()["info_state"][0]
        actions = self.env.action_spec()["num_actions"]
        kwargs = openspiel_kwargs(cfg)
        self.agents = [nfsp.NFSP(p, size, actions, seed=seed + 10 * p, **kwargs)
                       for p in range(self.game.num_players())]
        self.epsilon = cfg.nfsp.epsilon_start
        for agent in self.agents:
            # Epsilon on our schedule (linear in the share of episodes played), so both explore alike.
            agent._rl_agent.epsilon_schedule = lambda _iteration: self.epsilon
            agent._rl_agent._gradient_norm_clipping = kwargs["gradient_clipping"]
        self.schedule = (cfg.nfsp.epsilon_start, cfg.nfsp.epsilon_end, cfg.nfsp.exploration_fraction)
        self.total = total_episodes
        self.episodes = 0
        self.seconds = 0.0

    def train_to(self, episodes: int) -> None:
        start = time.perf_counter()
        env, agents = self.env, self.agents
        while self.episodes < episodes:
            self.epsilon = linear_schedule(*self.schedule, min(1.0, self.episodes / self.total))
            time_step = env.reset()
            while not time_step.last():
                output = agents[time_step.observations["current_player"]].step(time_step)
                time_step = env.step([output.action])
            for agent in agents:  # the final step of each player: its last transition and reward
                agent.step(time_step)
            self.episodes += 1
        self.seconds += time.perf_counter() - start

    def probabilities(self, obs: np.ndarray, mask: np.ndarray, players: np.ndarray) -> np.ndarray:
        """The average policies' action probabilities, as ``NFSP._act`` computes them (without its sampling)."""
        import torch

        out = np.zeros(mask.shape, np.float64)
        with torch.no_grad():
            for p, agent in enumerate(self.agents):
                rows = players == p
                if rows.any():
                    logits = agent._avg_network(torch.from_numpy(obs[rows]))
                    logits = logits.masked_fill(~torch.from_numpy(mask[rows]), -torch.inf)
                    out[rows] = torch.softmax(logits.double(), dim=1).numpy()
        return out

    def exploitability(self) -> float:
        from train.bench.exploitability import exploitability

        return exploitability(self.game, self.probabilities)

    def gradient_steps(self) -> int:
        """RL gradient steps of all players' Q-networks (Adam's step count)."""
        steps = [a._rl_agent._optimizer.state_dict()["state"].get(0, {}).get("step", 0) for a in self.agents]
        return int(sum(float(s) for s in steps))


def _game(name: str) -> Any:
    from envs.openspiel_aec import load_game

    return load_game(name)


def uniform_exploitability(game: str) -> float:
    """The exploitability of uniform random play: where every learner starts from."""
    from train.bench.exploitability import exploitability

    return exploitability(game, lambda obs, mask, players: mask.astype(np.float64))


def log_points(episodes: int, points: int, first: int) -> list[int]:
    """``points`` episode counts from ``first`` to ``episodes``, evenly spaced on a log scale."""
    first = min(first, episodes)
    return sorted({int(round(x)) for x in np.geomspace(first, episodes, max(points, 1))} | {episodes})


def run(game: str, episodes: int, points: list[int], overrides: list[str], seed: int, out: Path,
        openspiel: bool = True, progress: bool = True) -> list[dict[str, Any]]:
    """Train both to each point in turn; the rows of the table. Our final policy goes to ``out``."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny networks: more threads only wait on each other (the trainer does the same)
    try:
        with tempfile.TemporaryDirectory() as workdir:
            ours = OurNFSP(game, episodes, [f"seed={seed}", *overrides], workdir)
            try:
                theirs = TheirNFSP(game, ours.cfg, episodes, seed) if openspiel else None
                print(describe_setup(game, ours.cfg, theirs is not None), flush=True)
                rows = side_by_side(ours, theirs, points, episodes, progress, game)
            finally:
                ours.close()
            out.mkdir(parents=True, exist_ok=True)
            ours.trainer.save(out / f"nfsp_{game}.pt", full=False)
    finally:
        torch.set_num_threads(threads)
    return rows


def side_by_side(ours: OurNFSP, theirs: TheirNFSP | None, points: list[int], episodes: int, progress: bool,
                 game: str) -> list[dict[str, Any]]:
    from tqdm import tqdm

    rows: list[dict[str, Any]] = []
    with tqdm(total=episodes, unit="episode", disable=not progress, dynamic_ncols=True, desc=f"nfsp {game}") as bar:
        for point in points:
            ours.train_to(point)
            row: dict[str, Any] = {"episodes": ours.episodes, "ours": ours.exploitability(),
                                   "ours_seconds": ours.seconds, "ours_rl_steps": ours.gradient_steps()}
            if theirs is not None:
                theirs.train_to(ours.episodes)  # exactly as many episodes as ours
                row.update(openspiel=theirs.exploitability(), openspiel_seconds=theirs.seconds,
                           openspiel_rl_steps=theirs.gradient_steps())
                row["ratio"] = row["ours"] / row["openspiel"]
            rows.append(row)
            bar.update(min(ours.episodes, episodes) - bar.n)
            bar.write(format_row(row))
    return rows


def describe_setup(game: str, cfg: Any, openspiel: bool) -> str:
    n = cfg.nfsp
    lines = [f"NFSP on OpenSpiel's {game}: ours (train.trainer on envs.openspiel_aec, one network for all "
             f"{cfg.learner_seats} seats) vs OpenSpiel's pytorch NFSP (one agent per player)" if openspiel else
             f"NFSP on OpenSpiel's {game}: ours only",
             f"  ours: hidden {cfg.hidden} {cfg.activation}, Adam rl {n.rl_learning_rate} sl {n.sl_learning_rate}, "
             f"batch {n.batch_size}, learn_every {n.learn_every} decisions, learning_starts {n.learning_starts}, "
             f"replay {n.replay_size}, reservoir {n.reservoir_size}, eta {n.eta}, epsilon {n.epsilon_start} -> "
             f"{n.epsilon_end} over {n.exploration_fraction:.0%} of the episodes, target every "
             f"{n.target_update_every} RL steps, {n.rl_loss} loss, grad clip {n.max_grad_norm}; "
             f"{cfg.num_envs} envs x {cfg.num_steps} decisions per update"]
    if openspiel:
        lines.append(f"  OpenSpiel: {openspiel_kwargs(cfg)}; epsilon on our schedule")
    return "\n".join(lines)


def format_row(row: dict[str, Any]) -> str:
    text = f"{row['episodes']:>10,}  ours {row['ours']:.4f} ({row['ours_seconds']:6.0f} s)"
    if "openspiel" in row:
        text += f"  OpenSpiel {row['openspiel']:.4f} ({row['openspiel_seconds']:6.0f} s)  ratio {row['ratio']:.2f}"
    return text


def table(rows: list[dict[str, Any]]) -> str:
    both = "openspiel" in rows[0]
    head = f"{'episodes':>10}  {'ours':>8}" + (f"  {'OpenSpiel':>9}  {'ours/OS':>7}" if both else "")
    head += f"  {'ours s':>7}" + (f"  {'OS s':>7}" if both else "")
    lines = [head, "-" * len(head)]
    for r in rows:
        line = f"{r['episodes']:>10,}  {r['ours']:>8.4f}"
        if both:
            line += f"  {r['openspiel']:>9.4f}  {r['ratio']:>7.2f}"
        line += f"  {r['ours_seconds']:>7.0f}" + (f"  {r['openspiel_seconds']:>7.0f}" if both else "")
        lines.append(line)
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]], game: str, path: Path, uniform: float | None = None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    x = [r["episodes"] for r in rows]
    ax.loglog(x, [r["ours"] for r in rows], "o-", label="ours (agents/nfsp.py via train.trainer)")
    if "openspiel" in rows[0]:
        ax.loglog(x, [r["openspiel"] for r in rows], "s--", label="OpenSpiel pytorch NFSP")
    if uniform is not None:
        ax.axhline(uniform, color="grey", linestyle=":", linewidth=1, label=f"uniform random play ({uniform:.3g})")
    ax.set_xlabel("episodes")
    ax.set_ylabel("exploitability of the average policy")
    ax.set_title(f"NFSP on {game}: exact exploitability (OpenSpiel)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m train.bench nfsp", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="kuhn_poker", help="an OpenSpiel two-player zero-sum game with "
                        "information-state tensors: kuhn_poker (default), leduc_poker, ...")
    parser.add_argument("--episodes", type=int, help=f"training episodes (default {DEFAULT_EPISODES})")
    parser.add_argument("--points", type=int, default=8, help="logged points, log-spaced (default 8)")
    parser.add_argument("--first", type=int, default=2000, help="episodes at the first logged point (default 2000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--set", dest="overrides", action="extend", nargs="+", default=[], metavar="KEY=VALUE",
                        help="change our config (train.config keys, e.g. nfsp.eta=0.2); OpenSpiel follows")
    parser.add_argument("--skip-openspiel", action="store_true", help="train and log ours only")
    parser.add_argument("--out", default="runs/bench_nfsp", help="folder for csv, png, json and our policy")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    try:
        import open_spiel  # noqa: F401
    except ImportError:
        print("error: this benchmark needs OpenSpiel: pip install -e '.[exploitability]'", file=sys.stderr)
        return 2
    from agents.checkpoint import CheckpointError
    from train.config import ConfigError

    episodes = args.episodes or DEFAULT_EPISODES.get(args.game, 300_000)
    if episodes < 1 or args.points < 1 or args.first < 1:
        print("error: --episodes, --points and --first must be at least 1", file=sys.stderr)
        return 2
    out = Path(args.out)
    start = time.perf_counter()
    try:
        rows = run(args.game, episodes, log_points(episodes, args.points, args.first), args.overrides, args.seed,
                   out, openspiel=not args.skip_openspiel, progress=not args.no_progress)
    except (ConfigError, CheckpointError, ValueError) as e:
        return report_error(e)
    wall = time.perf_counter() - start
    print(f"\nexploitability of the average policy on {args.game} (exact; 0 = Nash equilibrium), seed {args.seed}")
    print(table(rows))
    stem = out / f"nfsp_{args.game}"
    with open(f"{stem}.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    plot(rows, args.game, Path(f"{stem}.png"), uniform_exploitability(args.game))
    Path(f"{stem}.json").write_text(json.dumps({"game": args.game, "episodes": episodes, "seed": args.seed,
                                                "overrides": args.overrides, "wall_seconds": wall, "rows": rows},
                                               indent=1))
    if "ratio" in rows[0]:
        worst = max(r["ratio"] for r in rows)
        print(f"worst ratio ours/OpenSpiel {worst:.2f} (target <= 1.5); final: ours {rows[-1]['ours']:.4f}, "
              f"OpenSpiel {rows[-1]['openspiel']:.4f}")
    print(f"wall time {wall:.0f} s; wrote {stem}.csv, .png, .json and .pt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
