"""A Skat network with an endgame expert: a base policy (the shipped PPO network) for every decision,
and from trick ``from_trick`` on a second MLP, fitted to a search's move values, for the card play.

Why a second network rather than a fine-tuned base: fine-tuning the 2 x 256 tanh PPO network on PIMC's
endgame labels made it *less* accurate on its own training rows (77.6% -> 75.5% agreement on the
searched decisions after an epoch, at 3e-5 as at 3e-4), because the one small network has to keep
its bidding and early play too. A fresh, wider ReLU MLP that only sees the endgame lowers the search's
regret (its best move's value minus the chosen one's) on held-out decisions from 4.5 to 2.5 points.

Played alone, the expert overrules the base on many near-ties that PIMC's values (double-dummy
outcomes) cannot tell apart, and the base's choice there is worth keeping against real opponents.
So the late rows play the product of the two policies,
``log p(a) = log p_expert(a) + anchor * log p_base(a)`` (renormalised): the expert wins where it is
much surer than the base is. The product needs no action mask (both terms are per-row log-softmaxes,
so the legal argmax is the same however the mask cuts), so the network is an ordinary playing network:
``agents.load``, evaluation, hints and PIMC's ``base=`` take it as they take any checkpoint.

It is built by ``python -m train.pretrain.expert`` (train/pretrain/expert.py); it plays, it is not
trained further (``python -m train.pretrain --init`` and PPO refuse its weights: they fit no actor).

With ``features=True`` the expert reads :mod:`agents.skat_endgame_features` (the unseen cards, master
cards, the card holding the trick...) beside the observation; the base reads the observation alone.

With ``suit_views=K`` (K > 1) a late row is played by the mean of that product over K views of the
position with the suits relabelled as the declared game allows (:mod:`envs.skat.symmetry`: the same game,
exactly), each mapped back to the position's actions: one network asked the same question K ways, whose
errors differ between the views. Still a network, at up to K rows per late decision.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.networks import ACTIVATIONS, NETWORKS, PolicyMLP, build_network, mlp, run_layers
from agents.sparse_mlp import SparseInputMLP


class EndgameExpertNetwork(nn.Module):
    """``base`` (a network spec) everywhere; ``expert`` (an MLP of ``hidden`` widths) joins it in the card
    play from trick ``from_trick`` (1..10) on, weighted as above."""

    kind = "endgame_expert"

    def __init__(self, obs_size: int, num_actions: int, hidden: list[int], activation: str = "relu",
                 base: dict[str, Any] | None = None, from_trick: int = 5, anchor: float = 0.5,
                 features: bool = False, pass_bias: float = 0.0,
                 anchor_from: list[tuple[int, float]] | None = None, suit_views: int = 1) -> None:
        super().__init__()
        from envs.skat.actions import PASS
        from envs.skat.cards import GAME_NAMES, NUM_CARDS
        from envs.skat.observation import GAME_TYPE, HAND, OBSERVATION_SIZE, PHASE, TRICK_COUNT
        from envs.skat.rules import PLAY

        if obs_size != OBSERVATION_SIZE:
            raise ValueError(f"an endgame expert reads the Skat observation ({OBSERVATION_SIZE} floats), got "
                             f"obs_size={obs_size}")
        if activation not in ACTIVATIONS:
            raise ValueError(f"unknown activation {activation!r}; known: {sorted(ACTIVATIONS)}")
        if not isinstance(base, dict):
            raise ValueError("an endgame expert needs its base network's spec (base=...)")
        self.base = build_network(base)
        if not hasattr(self.base, "policy_logits"):
            raise ValueError(f"base network kind {base.get('kind')!r} has no policy to play")
        self.features = None
        if features:
            from agents.skat_endgame_features import NUM_FEATURES, EndgameFeatures

            self.features = EndgameFeatures()
        self.expert = mlp(obs_size + (NUM_FEATURES if features else 0), hidden, num_actions, activation,
                          out_std=0.01)
        # one row at a time (playing), a network costs what its weights cost to read; most of the inputs
        # and ReLU outputs are zero, so that path reads only their weight rows (agents/sparse_mlp.py)
        self._sparse = SparseInputMLP(self.expert)
        plain_base = isinstance(self.base, PolicyMLP) and type(self.base).policy_logits is PolicyMLP.policy_logits
        self._base_sparse = SparseInputMLP(self.base.actor) if plain_base else None
        self.spec = {"kind": self.kind, "obs_size": int(obs_size), "num_actions": int(num_actions),
                     "hidden": [int(w) for w in hidden], "activation": activation,
                     "base": dict(base), "from_trick": int(from_trick), "anchor": float(anchor)}
        if features:  # absent when off: the first shipped expert's spec has no such key
            self.spec["features"] = True
        self.plays_greedy = bool(getattr(self.base, "plays_greedy", False))
        self._play_column = PHASE + PLAY  # the phase one-hot follows PHASE_NAMES, indexed by phase
        self._tricks_column = TRICK_COUNT
        self._pass_action = PASS
        self._game_columns = slice(GAME_TYPE, GAME_TYPE + len(GAME_NAMES))  # suit_views: the views of the declared game
        self._hand_columns = slice(HAND, HAND + NUM_CARDS)
        self.play_from(from_trick)
        self.set_pass_bias(pass_bias)
        self.set_anchor(anchor, anchor_from)
        self.set_suit_views(suit_views)

    def set_suit_views(self, count: int) -> None:
        """Play each late row by the mean over ``count`` suit-relabelled views of it (1: the row alone;
        ``python -m train.pretrain.expert --suit-views``)."""
        from envs.skat.cards import GAME_NAMES
        from envs.skat.symmetry import spread, stack, suit_views

        if int(count) != count or count < 1:
            raise ValueError(f"suit_views must be an integer >= 1, got {count}")
        self.suit_views = int(count)
        # per game type: the views' observation gathers and action maps, stacked
        self._views = [] if count == 1 else [
            tuple(torch.from_numpy(a) for a in stack(spread(suit_views(g), self.suit_views)))
            for g in range(len(GAME_NAMES))]
        if self.suit_views > 1:
            self.spec["suit_views"] = self.suit_views
        else:  # absent when off, as in the files written before it existed
            self.spec.pop("suit_views", None)

    def play_from(self, trick: int) -> None:
        """Let the expert play from ``trick`` (1..10) on, which may be earlier than the trick its labels start
        at (``python -m train.pretrain.expert --play-from-trick``; README "Search agents", ninth round)."""
        if not 1 <= int(trick) <= 10:
            raise ValueError(f"from_trick must be in 1..10, got {trick}")
        self.from_trick = self.spec["from_trick"] = int(trick)

    def set_pass_bias(self, bias: float) -> None:
        """Add ``bias`` to the base's logit of passing in the auction (``--pass-bias``; README "Search agents",
        tenth round). The base learnt its bids against defenders that lose more games than strong ones do;
        against a strong defence its marginal bids lose points, and a positive bias drops the most marginal."""
        if not math.isfinite(float(bias)):
            raise ValueError(f"pass_bias must be a finite number, got {bias}")
        self.pass_bias = float(bias)
        if self.pass_bias:
            self.spec["pass_bias"] = self.pass_bias
        else:  # absent when zero, as in the files written before it existed
            self.spec.pop("pass_bias", None)

    def set_anchor(self, anchor: float, anchor_from: list[tuple[int, float]] | None = None) -> None:
        """Weight the base's log-probabilities by ``anchor`` in the expert's card play, and by the anchor of the
        latest ``(trick, anchor)`` pair of ``anchor_from`` from that trick on (``--anchor-from``; README
        "Search agents", twelfth round): in the last tricks the search's values are nearly exact, and the
        base's vote there mostly overrules good cards."""
        anchors = np.full(11, float(anchor), dtype=np.float32)
        pairs = sorted((int(t), float(a)) for t, a in (anchor_from or []))
        for trick, weight in pairs:
            if not 1 <= trick <= 10:
                raise ValueError(f"anchor_from: trick must be in 1..10, got {trick}")
            anchors[trick:] = weight
        for weight in [anchor] + [a for _, a in pairs]:
            if not (math.isfinite(float(weight)) and float(weight) >= 0):
                raise ValueError(f"anchor must be >= 0 and finite, got {weight}")
        self.anchor = float(anchor)
        self._anchors = anchors if pairs else None  # None: one weight for every trick, no per-row lookup
        self.spec["anchor"] = self.anchor
        if pairs:
            self.spec["anchor_from"] = [[t, a] for t, a in pairs]
        else:  # absent when unused, as in the files written before it existed
            self.spec.pop("anchor_from", None)

    def card_trick(self, obs: torch.Tensor) -> np.ndarray:
        """The trick (1..10) of each row that is card play, 0 for every other decision, as numpy: at a playing
        call of one row, two numpy reads cost a fraction of torch's per-call overhead."""
        columns = obs.detach().cpu().numpy()[:, [self._play_column, self._tricks_column]]
        trick = np.round(columns[:, 1] * np.float32(10)).astype(np.int64) + 1
        return np.where(columns[:, 0] > 0.5, trick, 0)

    def game_types(self, obs: torch.Tensor) -> np.ndarray:
        """The declared game type (0..5: the four suits, grand, null) of each row, -1 before a game is known."""
        games = obs[:, self._game_columns].detach().cpu().numpy()
        return np.where(games.max(1) > 0.5, games.argmax(1), -1)

    def late(self, obs: torch.Tensor) -> np.ndarray:
        """Rows that are card play at trick ``from_trick`` or later (what the expert decides), a numpy mask."""
        return self.card_trick(obs) >= self.from_trick

    def expert_logits(self, obs: torch.Tensor) -> torch.Tensor:
        if self.features is not None:
            obs = torch.cat([obs, self.features(obs)], 1)
        if self._sparse.applies(obs):
            return self._sparse(obs)
        return run_layers(self.expert, obs)

    def base_logits(self, obs: torch.Tensor) -> torch.Tensor:
        if self._base_sparse is not None and self._base_sparse.applies(obs):
            out = self._base_sparse(obs)
        else:
            out = self.base.policy_logits(obs)
        if self.pass_bias:  # passing is legal only in the auction, so the card play's argmax is untouched
            out = out.clone()
            out[:, self._pass_action] += self.pass_bias
        return out

    def policy_logits(self, obs: torch.Tensor) -> torch.Tensor:
        out = self.base_logits(obs)
        tricks = self.card_trick(obs)
        late = tricks >= self.from_trick
        if not late.any():
            return out
        weight: float | torch.Tensor = self.anchor
        if self._anchors is not None:
            anchor = self._anchors[tricks]
            one = (anchor == anchor[0]).all()
            weight = float(anchor[0]) if one else torch.from_numpy(anchor)[:, None].to(out.device)
        if self._views:
            product = self._viewed_product(obs, out, late, weight)
        else:  # the expert on every row and a select: at a playing batch of one row, cheaper than indexing
            product = self._product(obs, weight, out)
        return product if late.all() else torch.where(torch.from_numpy(late)[:, None].to(out.device), product, out)

    def _product(self, obs: torch.Tensor, weight: float | torch.Tensor,
                 base_logits: torch.Tensor | None = None) -> torch.Tensor:
        """``log p_expert + weight * log p_base`` (the base's logits computed here unless given)."""
        base = self.base_logits(obs) if base_logits is None else base_logits
        return torch.log_softmax(self.expert_logits(obs), 1) + weight * torch.log_softmax(base, 1)

    def _viewed_product(self, obs: torch.Tensor, out: torch.Tensor, late: np.ndarray,
                        weight: float | torch.Tensor) -> torch.Tensor:
        """The product of each late row as the mean over its suit views; a row of unknown game or with one card
        left in hand (nothing to choose: trick 10) is played as it is."""
        game = self.game_types(obs)
        choice = (game >= 0) & (obs[:, self._hand_columns].detach().cpu().numpy().sum(1) > 1.5)
        # every late row with a choice is overwritten below
        product = self._product(obs, weight, out) if (late & ~choice).any() else out.clone()
        for g in np.unique(game[late & choice]):
            rows = np.flatnonzero(late & choice & (game == g))
            gathers, actions = self._views[g]
            k = gathers.shape[0]
            viewed = obs[rows][:, None, :].expand(-1, k, -1).gather(
                2, gathers.to(obs.device)[None].expand(len(rows), -1, -1)).reshape(len(rows) * k, -1)
            w = weight if isinstance(weight, float) else weight[rows].repeat_interleave(k, 0)
            values = self._product(viewed, w).reshape(len(rows), k, -1)
            back = values.gather(2, actions.to(obs.device)[None].expand(len(rows), -1, -1))
            product[torch.from_numpy(rows).to(obs.device)] = back.mean(1)
        return product

    def policy_spec(self) -> dict[str, Any]:
        return dict(self.spec)

    def policy_state_dict(self) -> dict[str, torch.Tensor]:
        # contiguous: the weights that agents/sparse_mlp.py keeps by input are stored as any others
        return {k: v.detach().clone(memory_format=torch.contiguous_format) for k, v in self.state_dict().items()}


NETWORKS[EndgameExpertNetwork.kind] = EndgameExpertNetwork
