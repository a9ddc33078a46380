"""Policy networks and the action-masking helpers: the one place where illegal actions are masked.

Every network is built from a plain-data *spec* (a dict of ints, strings and lists), so a
checkpoint can rebuild it from the file alone::

    {"kind": "policy", "obs_size": 373, "num_actions": 162, "hidden": [256, 256], "activation": "tanh"}

Kinds: ``policy`` (actor only: what playing needs) and ``actor_critic`` (PPO's learner).

Masking follows sb3-contrib's MaskablePPO and Huang & Ontañón (arXiv:2006.14171): illegal
actions get the large finite logit :data:`ILLEGAL_LOGIT` (not ``-inf``, which turns an
all-masked row into NaNs), and the entropy is taken over the legal actions only.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np
import torch
from torch import nn

from agents import sparse
from agents.gumbel import gumbel_argmax
from agents.legal_head import LegalRows, legal_logp_entropy
from agents.sparse import SparseRows

ILLEGAL_LOGIT = -1e8


class Tanh(nn.Module):
    """``nn.Tanh`` with numpy's tanh on CPU: torch 2.13's CPU tanh is about 10x slower than numpy's
    (0.26 against 0.02 ms on 2048 x 64 floats here), and it was a third of a PPO update's forward
    pass. Both are within a few float32 units in the last place of the exact value."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.device.type != "cpu" or x.dtype not in (torch.float32, torch.float64):
            return torch.tanh(x)
        if x.requires_grad and torch.is_grad_enabled():
            return _NumpyTanh.apply(x)
        return torch.from_numpy(np.tanh(x.detach().numpy()))


class _NumpyTanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        y = torch.from_numpy(np.tanh(x.detach().numpy()))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        (y,) = ctx.saved_tensors
        return torch.ops.aten.tanh_backward(grad, y)


ACTIVATIONS: dict[str, type[nn.Module]] = {"tanh": Tanh, "relu": nn.ReLU}


# --- masking ---------------------------------------------------------------------------------


def mask_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits with every illegal action (``mask`` false/0) set to :data:`ILLEGAL_LOGIT`."""
    return logits.masked_fill(~mask.bool(), ILLEGAL_LOGIT)


def masked_log_probs(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Log-probabilities of the masked categorical distribution (illegal actions ~ -1e8)."""
    return torch.log_softmax(mask_logits(logits, mask), dim=-1)


def masked_entropy(log_probs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Entropy over the legal actions only, from :func:`masked_log_probs` output."""
    # Illegal entries become log p = 0, so they add exp(0) * 0 = 0. (Taking exp() of the -1e8 ones
    # would give 0 too, but through an underflow path about 15x slower than a normal exp.)
    legal_log_probs = log_probs.masked_fill(~mask.bool(), 0.0)
    return -(legal_log_probs.exp() * legal_log_probs).sum(-1)


def masked_logp_entropy(logits: torch.Tensor, mask: torch.Tensor, actions: torch.Tensor
                        ) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probability of ``actions`` and the entropy over the legal actions, per row: what PPO's loss
    needs of the masked distribution. The same numbers as :func:`masked_log_probs` (gathered) and
    :func:`masked_entropy` up to float rounding, with the gradient written out: about ten passes over
    the ``rows x actions`` logits instead of thirty, and no ``exp`` of an illegal logit (torch's CPU
    ``exp`` below -87 takes a scalar path about 12x slower). A row with no legal action counts every
    action as legal, so it stays finite."""
    legal = mask.to(logits.dtype)
    none_legal = legal.sum(-1, keepdim=True) == 0
    if bool(none_legal.any()):
        legal = legal + none_legal.to(logits.dtype)
    return _MaskedLogpEntropy.apply(logits, legal, actions.long())


class _MaskedLogpEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, logits: torch.Tensor, legal: torch.Tensor, actions: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor]:
        offset = min(-ILLEGAL_LOGIT, torch.finfo(logits.dtype).max / 4)  # finite in half precision too
        top = torch.addcmul(logits, legal - 1.0, torch.tensor(offset, dtype=logits.dtype, device=logits.device))
        top = top.amax(-1, keepdim=True)  # the largest legal logit
        shifted = logits - top
        # exp(-87) is still a normal float: legal actions further down get ~1e-38 instead of less
        probs = shifted.clamp(-87.0, 0.0).exp_().mul_(legal)
        total = probs.sum(-1, keepdim=True)
        probs.div_(total)
        log_total = total.log_()
        mean_shifted = (probs * shifted).sum(-1, keepdim=True)
        ctx.save_for_backward(shifted, probs, mean_shifted, actions)
        logp = shifted.gather(1, actions.unsqueeze(1)) - log_total
        return logp.squeeze(1), (log_total - mean_shifted).squeeze(1)

    @staticmethod
    def backward(ctx: Any, grad_logp: torch.Tensor, grad_entropy: torch.Tensor
                 ) -> tuple[torch.Tensor, None, None]:
        shifted, probs, mean_shifted, actions = ctx.saved_tensors
        # d logp_a / dz = onehot_a - p;  d entropy / dz = -p (z - sum_k p_k z_k)
        grad = (shifted - mean_shifted).mul_(grad_entropy.unsqueeze(1)).add_(grad_logp.unsqueeze(1))
        grad.mul_(probs).neg_()
        grad.scatter_add_(1, actions.unsqueeze(1), grad_logp.unsqueeze(1))
        return grad, None, None


def masked_kl(log_p: torch.Tensor, log_q: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """KL(p || q) over the legal actions only, per row, from two :func:`masked_log_probs` outputs."""
    legal = mask.bool()  # illegal entries have p = 0 and add nothing (set to 0 as in masked_entropy)
    log_p, log_q = log_p.masked_fill(~legal, 0.0), log_q.masked_fill(~legal, 0.0)
    return (log_p.exp() * (log_p - log_q)).masked_fill(~legal, 0.0).sum(-1)


def sample_actions(log_probs: torch.Tensor, rng: np.random.Generator) -> np.ndarray:
    """One action per row by the Gumbel-max trick, with noise from ``rng`` (reproducible).

    Illegal actions sit at about -1e8 and can never win against legal ones plus bounded noise.
    """
    values = log_probs.numpy()
    if values.dtype == np.float32 and values.ndim == 2:  # the compiled draw: the same actions, faster
        actions = np.empty(values.shape[0], np.int64)
        gumbel_argmax(values, rng.random(size=values.shape), ILLEGAL_LOGIT / 2, actions)
        return actions
    noise = rng.gumbel(size=tuple(log_probs.shape)).astype(np.float32)
    return (values + noise).argmax(axis=1)


def greedy_actions(log_probs: torch.Tensor) -> np.ndarray:
    """The most probable legal action per row."""
    return log_probs.argmax(dim=1).numpy()


# --- optimiser -------------------------------------------------------------------------------


def adam(params: Any, lr: float, eps: float = 1e-8) -> torch.optim.Adam:
    """Adam with the fused kernel: on CPU about 6x faster per step than the default per-tensor loop
    for these small MLPs, which matters because PPO takes 16 small steps per update."""
    return torch.optim.Adam(params, lr=lr, eps=eps, fused=True)


# --- networks --------------------------------------------------------------------------------


_INIT = {"on": True}


@contextlib.contextmanager
def weights_loaded_next() -> Iterator[None]:
    """Build networks without the orthogonal initialisation: their weights are loaded right after
    (a checkpoint), and the QR decompositions took about half of a checkpoint's load time."""
    before = _INIT["on"]
    _INIT["on"] = False
    try:
        yield
    finally:
        _INIT["on"] = before


def layer_init(layer: nn.Linear, std: float = float(np.sqrt(2)), bias: float = 0.0) -> nn.Linear:
    """CleanRL's orthogonal initialisation."""
    if _INIT["on"]:
        nn.init.orthogonal_(layer.weight, std)
        nn.init.constant_(layer.bias, bias)
    return layer


def mlp(in_size: int, hidden: list[int], out_size: int, activation: str, out_std: float) -> nn.Sequential:
    act = ACTIVATIONS[activation]
    layers: list[nn.Module] = []
    size = in_size
    for width in hidden:
        layers += [layer_init(nn.Linear(size, width)), act()]
        size = width
    layers.append(layer_init(nn.Linear(size, out_size), std=out_std))
    return nn.Sequential(*layers)


def run_layers(layers: nn.Sequential, x: torch.Tensor, start: int = 0, stop: int | None = None) -> torch.Tensor:
    """``layers[start:stop](x)`` through each layer's ``forward``: at acting batch sizes (a few rows per
    call, thousands of calls per rollout) skipping ``Module.__call__`` saves about 15%."""
    for layer in list(layers)[start:stop]:
        x = layer.forward(x)
    return x


class PolicyMLP(nn.Module):
    """An actor MLP alone: what a playing agent needs (checkpoints, snapshots, opponents)."""

    kind = "policy"

    def __init__(self, obs_size: int, num_actions: int, hidden: list[int], activation: str = "tanh") -> None:
        super().__init__()
        self.spec = network_spec(self.kind, obs_size, num_actions, hidden, activation)
        self.actor = mlp(obs_size, hidden, num_actions, activation, out_std=0.01)

    def policy_logits(self, obs: torch.Tensor) -> torch.Tensor:
        """Unmasked action logits; every network kind offers this for playing."""
        return run_layers(self.actor, obs)


class ActorCritic(PolicyMLP):
    """Separate actor and critic MLPs over the observation vector (CleanRL's layout)."""

    kind = "actor_critic"

    def __init__(self, obs_size: int, num_actions: int, hidden: list[int], activation: str = "tanh") -> None:
        super().__init__(obs_size, num_actions, hidden, activation)
        self.critic = mlp(obs_size, hidden, 1, activation, out_std=1.0)

    def value(self, obs: torch.Tensor | SparseRows) -> torch.Tensor:
        """The critic alone (PPO's values of a whole batch need no policy logits)."""
        first = self.critic[0]
        return run_layers(self.critic, sparse.linear(obs, first.weight, first.bias), 1).squeeze(-1)

    def evaluate(self, obs: torch.Tensor | SparseRows) -> tuple[torch.Tensor, torch.Tensor]:
        """Policy logits and values together, for the update (over a :class:`agents.sparse.SparseRows`
        batch, only its non-zero entries are multiplied). The two first layers are two products: joining
        their weights and splitting the result cost more (the split's gradient copies the hidden layer;
        5-7% of a 256-wide Skat update)."""
        actor_in, value = self._first_layers_and_value(obs)
        return run_layers(self.actor, actor_in, 1), value

    def evaluate_legal(self, obs: torch.Tensor | SparseRows, legal: LegalRows
                       ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """What PPO's loss needs, with the policy head on the legal actions only
        (:mod:`agents.legal_head`): log p of each row's taken action, the entropy, the value."""
        actor_in, value = self._first_layers_and_value(obs)
        head = self.actor[-1]
        logp, entropy = legal_logp_entropy(run_layers(self.actor, actor_in, 1, -1), head.weight, head.bias, legal)
        return logp, entropy, value

    def _first_layers_and_value(self, obs: torch.Tensor | SparseRows) -> tuple[torch.Tensor, torch.Tensor]:
        first_actor = self.actor[0]
        return sparse.linear(obs, first_actor.weight, first_actor.bias), self.value(obs)

    def policy_spec(self) -> dict[str, Any]:
        """Spec of the playing part (a :class:`PolicyMLP`)."""
        return {**self.spec, "kind": PolicyMLP.kind}

    def policy_state_dict(self) -> dict[str, torch.Tensor]:
        """Weights of the playing part; they load into a :class:`PolicyMLP`."""
        return {k: v.detach().clone() for k, v in self.state_dict().items() if k.startswith("actor.")}


NETWORKS: dict[str, type[nn.Module]] = {PolicyMLP.kind: PolicyMLP, ActorCritic.kind: ActorCritic}
# Kinds defined by an algorithm's module, imported when first asked for (they register themselves).
LAZY_NETWORKS = {"nfsp": "agents.nfsp", "q_roles": "agents.dmc", "endgame_expert": "agents.endgame_expert"}


def _known(kind: Any) -> bool:
    if kind not in NETWORKS and kind in LAZY_NETWORKS:
        import importlib

        importlib.import_module(LAZY_NETWORKS[kind])
    return kind in NETWORKS


def network_spec(kind: str, obs_size: int, num_actions: int, hidden: list[int], activation: str,
                 **extra: Any) -> dict[str, Any]:
    """The plain-data description :func:`build_network` rebuilds a network from (``extra``: what a kind
    needs beyond the sizes, e.g. the game whose roles a DMC network splits by)."""
    if not _known(kind):
        raise ValueError(f"unknown network kind {kind!r}; known: {sorted(set(NETWORKS) | set(LAZY_NETWORKS))}")
    if activation not in ACTIVATIONS:
        raise ValueError(f"unknown activation {activation!r}; known: {sorted(ACTIVATIONS)}")
    if not hidden or any(int(w) <= 0 for w in hidden):
        raise ValueError(f"hidden must be a non-empty list of positive layer widths, got {hidden!r}")
    return {"kind": kind, "obs_size": int(obs_size), "num_actions": int(num_actions),
            "hidden": [int(w) for w in hidden], "activation": activation, **extra}


def build_network(spec: dict[str, Any]) -> nn.Module:
    """A fresh network from its spec (see the module docstring)."""
    spec = dict(spec)
    kind = spec.pop("kind", None)
    if not _known(kind):
        raise ValueError(f"unknown network kind {kind!r}; known: {sorted(set(NETWORKS) | set(LAZY_NETWORKS))}")
    return NETWORKS[kind](**spec)


def widen(state: dict[str, torch.Tensor], into: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """``state``, an MLP's weights, placed in ``into``, those of an MLP of the same depth and wider (or as
    wide) layers, so that the wider one computes the same function: each old unit keeps its weights, the
    new units keep ``into``'s fresh incoming weights, and every weight from a new unit to an old one is
    zero (Net2Net's function-preserving widening, Chen et al. 2016, with zero instead of split outgoing
    weights: the new units learn from the first gradient step and change nothing before it).

    Keys missing from ``into`` are kept as they are (the caller's ``load_state_dict`` reports them).
    Raises ValueError if a layer of ``state`` is wider than its place in ``into``.
    """
    out: dict[str, torch.Tensor] = {}
    for key, old in state.items():
        target = into.get(key)
        if target is None or target.shape == old.shape:
            out[key] = old
            continue
        if target.dim() != old.dim() or any(o > t for o, t in zip(old.shape, target.shape, strict=True)):
            raise ValueError(f"{key}: {tuple(old.shape)} does not fit in {tuple(target.shape)}")
        wide = target.detach().clone()
        rows = old.shape[0]
        wide[:rows] = 0.0  # the old units: no weight from a new unit ...
        wide[(slice(0, rows), *(slice(0, s) for s in old.shape[1:]))] = old  # ... and their own weights
        out[key] = wide
    return out
