"""The cloning itself: fit a network's policy (and its critic or Q-network) to labelled decisions.

Split from :mod:`train.pretrain`, which collects the labels: :func:`behaviour_clone` takes any arrays of
``obs``, ``mask``, ``action``, ``ret`` (and optionally ``deal``, ``taught``, ``weight``).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

import agents
from agents.networks import adam, mask_logits, masked_log_probs
from agents.nfsp import large_margin_loss


def demonstration_q_loss(q: torch.Tensor, mask: torch.Tensor, action: torch.Tensor, ret: torch.Tensor,
                         margin: float) -> torch.Tensor:
    """DQfD's warm start of a Q-network from demonstrations (Hester et al. 2018, arXiv:1704.03732):
    the squared error of Q(s, teacher's action) against the teacher's return, plus the large-margin
    loss (:func:`agents.nfsp.large_margin_loss`). Greedy on Q then plays the teacher's move, and every
    other legal move starts ``margin`` below it until the DQN's own exploration finds out what it is
    worth; regression alone would leave the moves the teacher never makes at arbitrary values.
    """
    q_taken = q.gather(1, action[:, None]).squeeze(1)
    return ((q_taken - ret) ** 2).mean() + large_margin_loss(q, mask, action, margin).mean()


def behaviour_clone(network: nn.Module, data: dict[str, np.ndarray], epochs: int, batch_size: int,
                    learning_rate: float, value_coef: float, holdout: float, seed: int,
                    progress: bool = True, device: str | None = None, q_margin: float = 0.2,
                    fit_policy: bool = True, soft_temperature: float = 0.0) -> dict[str, float]:
    """Fit ``network``'s policy to the teacher's actions (and its critic, if any, to the returns).

    A network with a Q-head instead of a critic (NFSP's best response) gets
    :func:`demonstration_q_loss` with ``q_margin`` in its place, weighted by ``value_coef``.
    ``fit_policy=False`` (the policy is already the teacher's own, ``pretrain.copy_teacher``) fits only
    that value part, and only its parameters move.

    With ``soft_temperature`` T > 0 the rows that carry the teacher's move values (``data["values"]``, NaN
    where none) are fitted to softmax(values / T) over the valued actions instead of the one label
    (distillation, Hinton et al. 2015): a search's argmax between two nearly equal cards is a coin
    flip that changes with its sampled worlds, its values say how close the call was.

    Returns held-out metrics: ``pretrain/accuracy`` (greedy action = teacher's), ``policy_loss``
    (cross-entropy) and, for actor-critics, ``value_loss`` (NFSP: ``q_loss`` and ``q_accuracy``,
    how often greedy on Q plays the teacher's move). Runs on ``device`` (default: CUDA when
    available, a plain supervised job that a GPU speeds up a lot) and leaves the network on the CPU.
    """
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    rng = np.random.default_rng([seed, 4242])
    n = len(data["action"])
    if n == 0:
        raise ValueError("pretraining data is empty: the teacher made no decisions")
    # Hold out whole deals: decisions of one deal are too alike to test each other.
    deals = np.unique(data["deal"]) if "deal" in data else np.arange(n)
    held = rng.permutation(deals)[: max(1, int(len(deals) * holdout))] if holdout > 0 and len(deals) > 1 else []
    is_test = np.isin(data["deal"] if "deal" in data else np.arange(n), held)
    test, train = np.flatnonzero(is_test), np.flatnonzero(~is_test)
    n_test = len(test)
    tensors = {k: torch.from_numpy(data[k]).to(device) for k in ("obs", "mask", "action", "ret")}
    weight = torch.from_numpy(np.asarray(data["weight"], dtype=np.float32)).to(device) if "weight" in data else None
    soft = soft_targets(data, soft_temperature, device) if soft_temperature > 0 else None
    network.to(device)
    has_value = hasattr(network, "value")
    has_q = not has_value and hasattr(network, "q_values")  # NFSP: its best response starts from the teacher too
    value_part = network.critic if has_value else network.q if has_q else None
    if not fit_policy and value_part is None:
        raise ValueError("nothing to fit: the policy is the teacher's copy and the network has no value part")
    fitted = list(network.parameters() if fit_policy else value_part.parameters())
    optimizer = adam(fitted, lr=learning_rate)
    steps_per_epoch = math.ceil(len(train) / batch_size)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: max(0.05, 1.0 - step / max(1, epochs * steps_per_epoch)))

    def losses(idx: torch.Tensor, with_policy: bool = True) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        obs, mask, action = (tensors[k].index_select(0, idx) for k in ("obs", "mask", "action"))
        if with_policy:
            log_probs = masked_log_probs(network.policy_logits(obs), mask)
            taken = log_probs.gather(1, action[:, None]).squeeze(1)
            if soft is not None:
                target, valued = soft[0].index_select(0, idx), soft[1].index_select(0, idx)
                taken = torch.where(valued, -soft_cross_entropy(log_probs, target), taken)
            if weight is None:
                policy_loss = -taken.mean()
            else:  # weighted mean: the held-out loss stays comparable between weightings
                w = weight.index_select(0, idx)
                policy_loss = -(taken * w).sum() / w.sum()
            correct = (log_probs.argmax(1) == action).float().mean()
        else:  # a copied policy is left as it is: only the value part is fitted and measured per step
            policy_loss = correct = torch.zeros((), device=obs.device)
        if has_value:
            value_loss = ((network.value(obs) - tensors["ret"][idx]) ** 2).mean()
        elif has_q:
            value_loss = demonstration_q_loss(network.q_values(obs), mask, action, tensors["ret"][idx], q_margin)
        else:
            value_loss = torch.zeros(())
        return policy_loss, value_loss, correct

    bar = tqdm(total=epochs * steps_per_epoch, unit="batch", desc="pretrain: cloning", disable=not progress,
               dynamic_ncols=True)
    network.train()
    for _epoch in range(epochs):
        perm = torch.from_numpy(train[rng.permutation(len(train))]).to(device)
        for start in range(0, len(perm), batch_size):
            policy_loss, value_loss, _ = losses(perm[start : start + batch_size], with_policy=fit_policy)
            loss = policy_loss + value_coef * value_loss if fit_policy else value_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(fitted, 1.0)
            optimizer.step()
            schedule.step()
            bar.update(1)
            if bar.n % 50 == 0:  # .item() waits for the device
                bar.set_postfix_str(f"loss={(policy_loss if fit_policy else value_loss).item():.3f}")
    bar.close()
    network.to("cpu")
    metrics = {"pretrain/decisions": float(n), "pretrain/train_decisions": float(len(train))}
    if n_test:
        with torch.no_grad():
            sums = np.zeros(3)
            for start in range(0, n_test, 4096):
                idx = torch.from_numpy(test[start : start + 4096]).to(device)
                sums += np.array([t.item() for t in losses(idx)]) * len(idx)
        policy_loss, value_loss, accuracy = (float(x) for x in sums / n_test)
        metrics.update({"pretrain/accuracy": accuracy, "pretrain/policy_loss": policy_loss})
        if has_value:
            metrics["pretrain/value_loss"] = value_loss
        if has_q:
            metrics["pretrain/q_loss"] = value_loss
            with torch.no_grad():
                agree = 0.0
                for start in range(0, n_test, 4096):
                    idx = torch.from_numpy(test[start : start + 4096]).to(device)
                    greedy = mask_logits(network.q_values(tensors["obs"][idx]), tensors["mask"][idx]).argmax(1)
                    agree += (greedy == tensors["action"][idx]).float().sum().item()
            metrics["pretrain/q_accuracy"] = agree / n_test
        taught = test[data["taught"][test]] if "taught" in data and not data["taught"].all() else test[:0]
        if len(taught):  # teach_only: how often the result now plays the teacher's move where it was taught
            correct = 0.0
            with torch.no_grad():
                for start in range(0, len(taught), 4096):
                    idx = taught[start : start + 4096]
                    correct += losses(torch.from_numpy(idx).to(device))[2].item() * len(idx)
            metrics.update({"pretrain/taught_accuracy": correct / len(taught),
                            "pretrain/taught_decisions": float(data["taught"].sum())})
    return metrics


def correction_weights(data: dict[str, np.ndarray], driver: str, weight: float) -> np.ndarray:
    """Per row: ``weight`` where the teacher's label is not the driver's own greedy move, else 1.

    A search teacher that tracks its driver (PIMC with the driver as its base) agrees with it on most
    decisions; measured on the endgame search's labels of the network's deals, it differed on 6% of the
    taught card decisions, and a plain clone learned only 15-19% of those corrections while copying the
    driver on the rest (train/pretrain: ``pretrain.correction_weight``). Weighting the corrections is
    what makes the clone learn the search's deviations rather than the driver it already is.
    """
    agent = agents.make(driver, greedy=True)
    moves = np.concatenate([agent.act_arrays(data["obs"][start : start + 8192], data["mask"][start : start + 8192])
                            for start in range(0, len(data["action"]), 8192)])
    corrected = moves != data["action"]
    if "taught" in data:
        corrected &= data["taught"]
    return np.where(corrected, weight, 1.0).astype(np.float32)


def soft_cross_entropy(log_probs: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Per row: the cross-entropy of masked ``log_probs`` against a ``target`` distribution (actions with zero
    target mass, the illegal ones among them at log p ~ -1e8, add nothing)."""
    return -(target * torch.where(target > 0, log_probs, torch.zeros_like(log_probs))).sum(1)


def soft_targets(data: dict[str, np.ndarray], temperature: float, device: str = "cpu", ties_to_label: bool = True
                 ) -> tuple[torch.Tensor, torch.Tensor]:
    """Per row: softmax(values / ``temperature``) over the actions the teacher valued (zero elsewhere), and
    whether the row has such values (rows without them keep their one label).

    The actions valued the same as the label give their share to it: a search breaks ties by its base
    agent's choice (PIMC's values are outcome classes, so ties are common), and that choice, made from
    what the seat can see, is worth keeping; split evenly, it would be unlearned. ``ties_to_label=False``
    splits them evenly (the endgame expert, which plays beside that base agent, :mod:`agents.endgame_expert`)."""
    if "values" not in data:
        raise ValueError("pretrain.soft_temperature: the data have no move values (collect them with the option set)")
    values = torch.from_numpy(np.asarray(data["values"], dtype=np.float32))
    valued_actions = ~torch.isnan(values)
    valued = valued_actions.sum(1) > 1  # one valued action is no choice: its label says the same
    if not bool(valued.any()):
        raise ValueError("pretrain.soft_temperature: the teacher gave no move values (only a search teacher such "
                         "as pimc does), so there is nothing soft to fit")
    logits = torch.where(valued_actions, values / temperature, torch.tensor(-math.inf))
    logits[~valued] = 0.0  # placeholder rows: their target is never used
    target = torch.softmax(logits, 1)
    if not ties_to_label:
        return target.to(device), valued.to(device)
    label = torch.from_numpy(np.asarray(data["action"], dtype=np.int64))[:, None]
    tied = valued_actions & (torch.abs(values - values.gather(1, label)) <= 1e-4)
    share = torch.where(tied, target, torch.zeros_like(target)).sum(1, keepdim=True)
    target = torch.where(tied, torch.zeros_like(target), target).scatter_add(1, label, share)
    return target.to(device), valued.to(device)
