"""``python -m train.pretrain.expert``: fit an endgame expert (:mod:`agents.endgame_expert`) beside a base
checkpoint on a search teacher's move values, and write the two as one playing checkpoint.

The deals and labels are those of ``python -m train.pretrain`` with the same ``--set`` keys (teacher,
driver, ``teach_only``, opponents, cache): a run whose ``pretrain.cache`` already holds them labels
nothing again. Only the searched decisions count (rows where the teacher valued more than one card);
the expert is fitted to softmax(values / ``pretrain.soft_temperature``) over them, the base is left
as it is::

    python -m train.pretrain.expert --init checkpoints/skat_ppo.pt --config configs/skat_exit_expert.yaml \\
        --out checkpoints/skat_exit.pt

(the shipped ``checkpoints/skat_exit.pt``; the config names the teacher, driver, opponents and cache, and
``--set pretrain.episodes=2000`` makes a quick trial of it).

``--expert-init CKPT`` continues from an earlier expert (a DAgger round on new labels) and ``--features``
lets the expert read :mod:`agents.skat_endgame_features` beside the observation
(``configs/skat_exit_dagger.yaml`` has both commands). ``--play-from-trick K`` lets the written expert play
from trick K on although fitted from ``--from-trick``, and ``--pass-bias B`` adds B to the base's logit of
passing in the auction (a positive B bids less), ``--anchor-from K:W`` weighs the base by W instead of
``--anchor`` from trick K on, ``--suit-views K`` plays each late card by the mean over K suit-relabelled views
of the position (:mod:`envs.skat.symmetry`), and ``--suit-augment`` fits on every searched decision in a random
suit view at each step instead. ``--rewrite CKPT --out X`` with any of the playing options does the same to a
written expert without labels or fitting.

It prints the held-out regret (the search's best value minus the chosen card's, points per searched
decision) of the base, the expert alone and the product that plays. ``--score CKPT ...`` fits nothing and
prints that regret for expert checkpoints on the same held-out decisions (``--min-deal N``: only deals a
fit on N episodes never saw), so experts fitted on different labels compare on one set; ``--by-trick`` prints it
per trick over every searched card decision of the labels instead (README "Search agents", eleventh round).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from agents import checkpoint
from agents.checkpoint import CheckpointError
from agents.endgame_expert import EndgameExpertNetwork
from agents.networks import masked_log_probs
from envs.skat.symmetry import stacked_views
from train.config import ConfigError, load_config
from train.interrupt import StopNow, signals_stop_now
from train.pretrain import report_stop, teacher_data
from train.pretrain.clone import soft_cross_entropy, soft_targets


def valued(data: dict[str, np.ndarray]) -> np.ndarray:
    """Which rows the teacher searched: it valued more than one card there."""
    if "values" not in data:
        raise ValueError("the labels carry no move values: set pretrain.soft_temperature > 0 and a search teacher")
    return (~np.isnan(data["values"])).sum(1) > 1


def searched_rows(data: dict[str, np.ndarray], network: EndgameExpertNetwork) -> np.ndarray:
    """Indices of the rows the expert learns from: the teacher valued more than one card, in its phase."""
    rows = np.flatnonzero(valued(data) & network.late(torch.from_numpy(data["obs"])))
    if not len(rows):
        raise ValueError(f"no searched decisions from trick {network.from_trick} on: does the teacher search "
                         "there (pimc's from_trick) and teach the card play (teach_only: [play])?")
    return rows


def expert_weights(start: dict[str, Any], network: EndgameExpertNetwork) -> dict[str, torch.Tensor]:
    """The expert layers of ``start`` (a loaded checkpoint), checked to fit ``network`` and its base."""
    spec = start["metadata"]["network"]
    if spec.get("kind") != EndgameExpertNetwork.kind:
        raise ValueError(f"--expert-init: expected an endgame-expert checkpoint, got a {spec.get('kind')!r} network")
    if spec["base"] != network.spec["base"]:
        raise ValueError("--expert-init: its base network differs from --init's (the expert learnt beside another)")
    if spec.get("features", False) != network.spec.get("features", False):
        raise ValueError("--expert-init: its expert reads other inputs (--features differs)")
    if spec["hidden"] != network.spec["hidden"]:
        raise ValueError(f"--expert-init: its expert has layers {spec['hidden']}, --hidden asks for "
                         f"{network.spec['hidden']}")
    return {k.removeprefix("expert."): v for k, v in start["policy"].items() if k.startswith("expert.")}


def regret(logits: torch.Tensor, mask: torch.Tensor, values: torch.Tensor) -> float:
    """Mean over rows of the best valued card's value minus the value of the card ``logits`` choose."""
    known = ~torch.isnan(values)
    filled = torch.where(known, values, torch.full_like(values, -1e9))
    choice = masked_log_probs(logits, mask).argmax(1)
    chosen = filled.gather(1, choice[:, None]).squeeze(1)
    return float((filled.max(1).values - chosen.clamp(min=-1e8)).mean())


def held_out(data: dict[str, np.ndarray], rows: np.ndarray, holdout: float, rng: np.random.Generator) -> np.ndarray:
    """Which of ``rows`` belong to held-out deals: a ``holdout`` share of their deals, drawn with ``rng``
    (the fit's generator, seeded ``[seed, 4243]``: :func:`score_experts` draws the same deals)."""
    deals = data["deal"][rows] if "deal" in data else np.arange(len(rows))
    unique = np.unique(deals)
    held = rng.permutation(unique)[: max(1, int(len(unique) * holdout))] if holdout > 0 and len(unique) > 1 else []
    return np.isin(deals, held)


def score_experts(paths: list[str], data: dict[str, np.ndarray], holdout: float, seed: int, min_deal: int = 0
                  ) -> list[dict[str, float]]:
    """Held-out regret of endgame-expert checkpoints on the decisions a fit on ``data`` would hold out (the
    same split for every checkpoint), from deal ``min_deal`` on: deals a fit on fewer episodes never saw."""
    scores = []
    for path in paths:
        network = _scored_expert(path)
        rows = searched_rows(data, network)
        test = rows[held_out(data, rows, holdout, np.random.default_rng([seed, 4243]))]
        if "deal" in data:
            test = test[data["deal"][test] >= min_deal]
        if not len(test):
            raise ValueError(f"--score: no held-out decisions from deal {min_deal} on")
        obs, mask = torch.from_numpy(data["obs"][test]), torch.from_numpy(data["mask"][test]).bool()
        values = torch.from_numpy(data["values"][test])
        scores.append(held_out_regret(network, obs, mask, values))
    return scores


def _scored_expert(path: str) -> EndgameExpertNetwork:
    loaded = checkpoint.load(path, game="skat")
    if loaded["metadata"]["network"].get("kind") != EndgameExpertNetwork.kind:
        raise ValueError(f"--score: {path} is not an endgame-expert checkpoint")
    return checkpoint.load_policy_network(loaded, path).eval()


def regret_by_trick(path: str, data: dict[str, np.ndarray]) -> list[dict[str, float]]:
    """``--score CKPT --by-trick``: the regret of the checkpoint's base and of what it plays at every trick the
    labels search, over all their searched card decisions (for checkpoints not fitted on these labels)."""
    network = _scored_expert(path)
    searched = valued(data)
    obs, values = torch.from_numpy(data["obs"]), torch.from_numpy(data["values"])
    masks = torch.from_numpy(data["mask"]).bool()
    tricks = network.card_trick(obs)
    table = []
    for trick in range(1, 11):
        rows = torch.from_numpy(np.flatnonzero(searched & (tricks == trick)))
        if not len(rows):
            continue
        mask, values_here = masks[rows], values[rows]
        with torch.no_grad():
            table.append({"trick": trick, "decisions": len(rows),
                          "base": regret(network.base.policy_logits(obs[rows]), mask, values_here),
                          "played": regret(network.policy_logits(obs[rows]), mask, values_here)})
    return table


def held_out_regret(network: EndgameExpertNetwork, obs: torch.Tensor, mask: torch.Tensor, values: torch.Tensor
                    ) -> dict[str, float]:
    """The regret of the base, the expert alone and the product that plays, on held-out decisions."""
    with torch.no_grad():
        return {"expert/regret_base": regret(network.base.policy_logits(obs), mask, values),
                "expert/regret_expert": regret(network.expert_logits(obs), mask, values),
                "expert/regret_played": regret(network.policy_logits(obs), mask, values),
                "expert/test_decisions": float(len(obs))}


def random_views(obs: torch.Tensor, games: np.ndarray, rng: np.random.Generator
                 ) -> tuple[torch.Tensor, torch.Tensor]:
    """Each row in a suit view of its game drawn at random (:mod:`envs.skat.symmetry`; ``games``: the game type
    of each row, -1 keeps the row as it is), and the action maps that read the view's logits back in the row's
    own actions: ``logits(viewed).gather(1, maps)``."""
    gathers, maps, first, counts = stacked_views()
    known = games >= 0
    pick = np.zeros(len(games), dtype=np.int64)  # view 0: the identity
    g = games[known]
    pick[known] = first[g] + (rng.random(len(g)) * counts[g]).astype(np.int64)
    return obs.gather(1, torch.from_numpy(gathers[pick])), torch.from_numpy(maps[pick])


def fit_endgame_expert(base: dict[str, Any], data: dict[str, np.ndarray], hidden: list[int], from_trick: int,
                       anchor: float, temperature: float, epochs: int, batch_size: int, learning_rate: float,
                       holdout: float, seed: int, progress: bool = True,
                       warm_start: dict[str, Any] | None = None, features: bool = False,
                       anchor_from: list[tuple[int, float]] | None = None, suit_augment: bool = False
                       ) -> tuple[EndgameExpertNetwork, dict[str, float]]:
    """The network (``base``: a loaded checkpoint) with an expert fitted to ``data``; held-out metrics.

    The expert is fresh, or with ``warm_start`` (a loaded endgame-expert checkpoint over the same base, of
    ``hidden`` widths) continues from that one's expert: a DAgger round keeps what earlier labels taught.
    ``anchor_from`` (``--anchor-from``) is set before the held-out regret, so "played" is what gets written.
    With ``suit_augment`` every training row is seen, at each step, in a random suit view of its game (the
    same position under relabelled suits, :func:`random_views`); the held-out rows are scored as they are.
    """
    torch.manual_seed(seed)
    network = EndgameExpertNetwork(base["metadata"]["obs_size"], base["metadata"]["num_actions"], hidden, "relu",
                                   base=base["metadata"]["network"], from_trick=from_trick, anchor=anchor,
                                   features=features, anchor_from=anchor_from)
    network.base.load_state_dict(base["policy"])
    network.base.eval()
    if warm_start is not None:
        network.expert.load_state_dict(expert_weights(warm_start, network))
    rows = searched_rows(data, network)
    sub = {k: data[k][rows] for k in ("obs", "mask", "action", "values")}
    target, _ = soft_targets(sub, temperature, ties_to_label=False)  # every searched row is valued
    rng = np.random.default_rng([seed, 4243])
    is_test = held_out(data, rows, holdout, rng)
    train, test = np.flatnonzero(~is_test), np.flatnonzero(is_test)
    obs, mask = torch.from_numpy(sub["obs"]), torch.from_numpy(sub["mask"]).bool()
    values = torch.from_numpy(sub["values"])
    metrics: dict[str, float] = {}
    if warm_start is not None and len(test):
        with torch.no_grad():
            metrics["expert/regret_warm_start"] = regret(network.expert_logits(obs[test]), mask[test], values[test])
    games = network.game_types(obs) if suit_augment else None
    params = list(network.expert.parameters())
    optimizer = torch.optim.Adam(params, lr=learning_rate)
    steps = epochs * math.ceil(len(train) / batch_size)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: max(0.05, 1.0 - step / max(1, steps)))
    bar = tqdm(total=steps, unit="batch", desc="endgame expert", disable=not progress, dynamic_ncols=True)
    network.expert.train()
    for _epoch in range(epochs):
        perm = torch.from_numpy(train[rng.permutation(len(train))])
        for start in range(0, len(perm), batch_size):
            idx = perm[start : start + batch_size]
            if suit_augment:
                viewed, maps = random_views(obs[idx], games[idx.numpy()], rng)
                logits = network.expert_logits(viewed).gather(1, maps)
            else:
                logits = network.expert_logits(obs[idx])
            log_probs = masked_log_probs(logits, mask[idx])
            loss = soft_cross_entropy(log_probs, target[idx]).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            bar.update(1)
            if bar.n % 50 == 0:
                bar.set_postfix_str(f"loss={loss.item():.3f}")
    bar.close()
    network.eval()
    metrics.update({"expert/searched_decisions": float(len(rows)), "expert/train_decisions": float(len(train))})
    if len(test):
        metrics.update(held_out_regret(network, obs[test], mask[test], values[test]))
    return network, metrics


def written_metadata(source: dict[str, Any], network: EndgameExpertNetwork, out: str, **extra: Any) -> dict[str, Any]:
    """A written expert's metadata: ``source``'s (the base's, or the rewritten file's), renewed for ``network``."""
    kept = {k: v for k, v in source.items() if k not in ("network", "created", "project_version", "eval")}
    return checkpoint.make_metadata(**{**kept, "network": network.policy_spec(), **extra, "run_name": Path(out).stem})


def rewrite(source: str, out: str, play_from_trick: int | None = None, pass_bias: float | None = None,
            anchor: float | None = None, anchor_from: list[tuple[int, float]] | None = None,
            suit_views: int | None = None) -> int:
    """``--rewrite``: the endgame-expert checkpoint ``source`` written to ``out``, its expert playing from
    another trick, its base's pass logit shifted, the base's weight in the product changed and/or its late
    rows played over suit views; the weights are copied as they are."""
    try:
        data = checkpoint.load(source, game="skat")
        network = checkpoint.load_policy_network(data, source)
        if not isinstance(network, EndgameExpertNetwork):
            raise ValueError(f"{source} holds no endgame expert (its network is "
                             f"{data['metadata']['network'].get('kind')!r})")
        if play_from_trick is not None:
            network.play_from(play_from_trick)
        if pass_bias is not None:
            network.set_pass_bias(pass_bias)
        if anchor is not None or anchor_from is not None:
            kept = [tuple(pair) for pair in network.spec.get("anchor_from", [])]
            network.set_anchor(network.anchor if anchor is None else anchor,
                               kept if anchor_from is None else anchor_from)
        if suit_views is not None:
            network.set_suit_views(suit_views)
    except (CheckpointError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    meta = written_metadata(data["metadata"], network, out, rewritten_from=source)
    print(f"wrote {checkpoint.save(out, meta, network.policy_state_dict(), data['config'])}")
    return 0


def anchor_pair(text: str) -> tuple[int, float]:
    """``--anchor-from TRICK:WEIGHT`` read as (trick, weight)."""
    trick, sep, weight = text.partition(":")
    try:
        if not sep:
            raise ValueError
        return int(trick), float(weight)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected TRICK:WEIGHT such as 7:0.25, got {text!r}") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m train.pretrain.expert", description=__doc__.split("\n\n")[0])
    parser.add_argument("--init",
                        help="the base checkpoint (a Skat policy), e.g. checkpoints/skat_ppo.pt")
    parser.add_argument("--config", help="a training config naming the labelled deals (default: the --init "
                        "checkpoint's own config), e.g. configs/skat_exit_expert.yaml")
    parser.add_argument("--set", dest="overrides", action="extend", nargs="+", default=[], metavar="KEY=VALUE",
                        help="pretrain.* keys choosing the labelled deals, as for python -m train.pretrain")
    parser.add_argument("--episodes", type=int, help="labelled deals (pretrain.episodes)")
    parser.add_argument("--hidden", default="512,512,512", help="the expert's layer widths (default 512,512,512)")
    parser.add_argument("--features", action="store_true",
                        help="the expert also reads agents.skat_endgame_features (unseen and master cards, the "
                        "card holding the trick...)")
    parser.add_argument("--from-trick", type=int, default=5,
                        help="the expert is fitted on the card play from this trick on, and plays from it unless "
                        "--play-from-trick says otherwise (default 5)")
    parser.add_argument("--play-from-trick", type=int,
                        help="the written expert plays from this trick on (default: --from-trick), though fitted "
                        "on the decisions from --from-trick on")
    parser.add_argument("--pass-bias", type=float,
                        help="add this to the base's logit of passing in the auction: a positive value bids "
                        "less (default 0: the base bids as it learnt; README \"Search agents\", tenth round)")
    parser.add_argument("--suit-views", type=int,
                        help="play each late card by the mean over this many views of the position with its suits "
                        "relabelled as the game allows (envs.skat.symmetry; default 1: the position alone)")
    parser.add_argument("--suit-augment", action="store_true",
                        help="fit on each searched decision in a random suit view of its game at every step (up to "
                        "6x or 24x the positions from the same labels; envs.skat.symmetry)")
    parser.add_argument("--rewrite", metavar="CKPT",
                        help="label and fit nothing: write this endgame-expert checkpoint again with "
                        "--play-from-trick, --pass-bias, --anchor, --anchor-from and/or --suit-views (--init not "
                        "needed)")
    parser.add_argument("--anchor", type=float,
                        help="weight of the base's log-probabilities in the late card play (default 0.5)")
    parser.add_argument("--anchor-from", action="append", type=anchor_pair, metavar="TRICK:WEIGHT",
                        help="from this trick on, weigh the base by WEIGHT instead (repeatable), e.g. 7:0.25")
    parser.add_argument("--expert-init", help="continue from this endgame-expert checkpoint's expert (a DAgger "
                        "round), e.g. checkpoints/skat_exit.pt; default: a fresh expert")
    parser.add_argument("--epochs", type=int, default=7)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--out", help="where to write the playing checkpoint (.pt)")
    parser.add_argument("--score", action="extend", nargs="+", default=[], metavar="CKPT",
                        help="fit nothing: print these endgame-expert checkpoints' regret on the held-out decisions "
                        "a fit on these labels would keep aside")
    parser.add_argument("--by-trick", action="store_true",
                        help="with --score, the regret at each trick over every searched card decision of the "
                        "labels (a search teacher with from_trick=2 labels tricks 2-10)")
    parser.add_argument("--min-deal", type=int, default=0,
                        help="with --score, only held-out deals numbered this and up (those a fit on that many "
                        "episodes never saw)")
    args = parser.parse_args(argv)
    if not args.out and not args.score:
        parser.error("--out is required (or --score CKPT to score checkpoints)")
    if args.rewrite:
        changes = (args.play_from_trick, args.pass_bias, args.anchor, args.anchor_from, args.suit_views)
        if all(change is None for change in changes) or not args.out:
            parser.error("--rewrite needs --out and one or more of --play-from-trick, --pass-bias, --anchor, "
                         "--anchor-from, --suit-views")
        return rewrite(args.rewrite, args.out, *changes)
    if not args.init:
        parser.error("--init is required (the base checkpoint, e.g. checkpoints/skat_ppo.pt)")
    overrides = list(args.overrides) + ([f"pretrain.episodes={args.episodes}"] if args.episodes else [])
    try:
        hidden = [int(w) for w in args.hidden.split(",")]
        base = checkpoint.load(args.init, game="skat")
        warm_start = checkpoint.load(args.expert_init, game="skat") if args.expert_init else None
        cfg = load_config(args.config, overrides) if args.config else load_config(None, overrides, base=base["config"])
        pre = cfg.pretrain
        if not pre.teacher:
            raise ConfigError("pretrain.teacher: name the search that labels the endgame (e.g. pimc:...)")
        if pre.soft_temperature <= 0:
            raise ConfigError("pretrain.soft_temperature: must be > 0 here (the expert learns the move values)")
        with signals_stop_now():
            data = teacher_data(cfg.game, cfg.env_options, pre, cfg.seed, cfg.num_workers,
                                getattr(cfg.algo, "gamma", 1.0), cfg.reward_scale, cfg.progress)
        if args.score and args.by_trick:
            for path in args.score:
                print(f"{path}: regret per searched card decision, all {len(np.unique(data['deal']))} labelled deals")
                print("trick  decisions   base  played")
                for row in regret_by_trick(path, data):
                    print(f"{row['trick']:5d} {row['decisions']:10d} {row['base']:6.2f} {row['played']:7.2f}")
            return 0
        if args.score:
            for path, scores in zip(args.score, score_experts(args.score, data, pre.holdout, cfg.seed,
                                                              args.min_deal), strict=True):
                print(f"{path}: " + " ".join(f"{k.removeprefix('expert/')}={v:.4g}" for k, v in scores.items()))
            return 0
        anchor = 0.5 if args.anchor is None else args.anchor
        network, metrics = fit_endgame_expert(base, data, hidden, args.from_trick, anchor, pre.soft_temperature,
                                              args.epochs, pre.batch_size, args.learning_rate, pre.holdout, cfg.seed,
                                              cfg.progress, warm_start, args.features, args.anchor_from,
                                              args.suit_augment)
        if args.play_from_trick is not None:
            network.play_from(args.play_from_trick)
        if args.pass_bias is not None:
            network.set_pass_bias(args.pass_bias)
        if args.suit_views is not None:
            network.set_suit_views(args.suit_views)
    except (ConfigError, CheckpointError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except StopNow as stop:
        return report_stop(stop, pre.cache)
    meta = written_metadata(base["metadata"], network, args.out, expert=metrics, greedy=True, base=args.init,
                            expert_init=args.expert_init or "", suit_augment=args.suit_augment)
    path = checkpoint.save(args.out, meta, network.policy_state_dict(), cfg.to_dict())
    print(" ".join(f"{k}={v:.4g}" for k, v in metrics.items()))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
