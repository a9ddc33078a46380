"""The batched Thirty-One env: N games as torch tensors on one device, ``reset()`` / ``step(actions)``.

    venv = thirtyone_v0.vector_env(num_envs=1024, device="cpu", seed=0, num_players=4, lives=3)
    state = venv.reset()
    state = venv.step(actions)  # int64 [N]: one action per game, for the seat to act

Every slot behaves as one AEC env (``envs.thirtyone.env.raw_env``) reset after each game: the same
observation (``OBSERVATION_VERSION``), action mask, acting seat, rewards (an eliminated player's
in the step that eliminates it, the winner's at the end; minus the lives lost with
``episode="round"``) and ending, as :class:`envs.vector.VectorState`. A finished game shows no
decision (observation zeros, mask all False, ``current_player`` 0, as ``envs.vector.AECVectorEnv``);
the next ``step`` starts a new game there. The first deal of a game that would end it or
eliminate a player before any decision is dealt again, as the AEC env does.

Options: ``num_players``, ``lives``, ``free_ride``, ``episode``, ``reward_scheme``, ``first_dealer``,
``knock_allowed``, ``min_knock_score``, ``knocker_penalty``, ``knocker_tie``, ``max_turns``; the
others (the points game, the 32-card deck, the bonus hands, ``throw_down``, ``stock_exhausted=
"draw"``) must keep their defaults: a ValueError names the one that does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from envs.thirtyone import actions as A
from envs.thirtyone.cards import NUM_CARDS, check_deck
from envs.thirtyone.observation import OBS_SIZE, OBSERVATION_VERSION
from envs.thirtyone.options import ThirtyOneOptions, validate_options
from envs.thirtyone.rules import PHASE_NAMES
from envs.thirtyone.vector.engine import (
    ALIVE,
    CUR,
    DEALER,
    N_OUT,
    PHASE,
    Batch,
    Rules,
    advance,
    deal,
    settle_rounds,
)
from envs.thirtyone.vector.observe import Context, Seen, legal_mask, observe
from envs.thirtyone.vector.tables import tables
from envs.vector import VectorState, action_tensor, resolve_backend

# Options the engine does not implement: they must keep their default (the scat table's).
UNSUPPORTED = ("scoring", "three_of_a_kind", "three_aces", "straight_flush", "ranking", "deck", "exchange",
               "throw_down", "stock_exhausted", "switch_restart", "max_rounds")
IGNORED = ("target_score", "ante")  # options of the points and pot games only
SUPPORTED = tuple(f for f in ThirtyOneOptions.__dataclass_fields__ if f not in UNSUPPORTED + IGNORED)


def check_supported(options: ThirtyOneOptions) -> None:
    """A ValueError naming the first option (or value) the batched engine does not support."""
    default = ThirtyOneOptions()
    for key in UNSUPPORTED:
        if getattr(options, key) != getattr(default, key):
            raise ValueError(f"the batched Thirty-One engine does not support {key}={getattr(options, key)!r} yet "
                             f"(variant {options.variant!r}; only the default {getattr(default, key)!r}); use the "
                             f"AEC env (envs.vector.AECVectorEnv) for it. Supported options: {', '.join(SUPPORTED)}")
    if options.reward_scheme == "tokens":
        raise ValueError("the batched Thirty-One engine does not support reward_scheme='tokens' yet ('win' and "
                         "'placement' it does); use the AEC env (envs.vector.AECVectorEnv) for it")


class ThirtyOneVectorEnv:
    """N Thirty-One games advanced together (see the module docstring). ``validate=False`` skips
    the legality check of the actions. ``record=True`` keeps :attr:`log`: the random choices of each
    step or reset (``("start", slot, first dealer)``, ``("deal", slot, cards dealt in order)``,
    ``("draw", slot, card)``), for replaying the games elsewhere (the tests do). ``backend``:
    ``"torch"`` (tensor operations, any device), ``"numba"`` (the compiled CPU kernel of
    ``envs.thirtyone.vector.kernel``), ``"auto"`` (the kernel on a CPU)."""

    num_actions = A.NUM_ACTIONS

    @property
    def log(self) -> list[tuple] | None:
        return self.batch.log
    obs_size = observation_size = OBS_SIZE
    observation_version = OBSERVATION_VERSION

    def __init__(self, num_envs: int, device: str | torch.device = "cpu", seed: int | None = None,
                 validate: bool = True, record: bool = False, backend: str = "auto", **options: Any) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.options = validate_options(**options)
        check_supported(self.options)
        self.num_envs = num_envs
        self.num_seats = self.options.num_players
        self.device = torch.device(device)
        self.backend = resolve_backend(backend, self.device)
        self.validate = bool(validate)
        self.R = Rules(self.options)
        self.T = tables(self.num_seats, self.device)
        self._ctx = Context(self.T, self.R, self.options)
        self.batch = Batch(num_envs, self.num_seats, self.device, game_major=self.backend == "numba")
        self._gen = torch.Generator(device=self.device)
        self._seed(seed)
        self.batch.log = [] if record else None
        self._kernel = None
        if self.backend == "numba":
            from envs.thirtyone.vector.kernel import CpuKernel

            self._kernel = CpuKernel(self.T, self.R, self._ctx, self.options, num_envs, record)
            self._kernel.warm()
        self._mask: torch.Tensor | None = None
        self._ended = torch.zeros(0, dtype=torch.int64, device=self.device)

    def _seed(self, seed: int | None) -> None:
        if seed is None:
            self._gen.seed()
        elif isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer (or None), got {seed!r}")
        else:
            self._gen.manual_seed(seed)

    # --- dealing ------------------------------------------------------------------------------
    def _decks(self, k: int) -> torch.Tensor:
        """[52, k]: k shuffled decks (card ids in dealing order)."""
        keys = torch.randint(0, 2**62, (k, NUM_CARDS), generator=self._gen, device=self.device)
        return keys.argsort(1).t().contiguous()

    def _seat(self, idx: torch.Tensor, dealers: torch.Tensor | None = None) -> None:
        """A new game in slots ``idx`` before its first deal: everybody in, the first dealer drawn
        (or ``dealers``, or the ``first_dealer`` option)."""
        b, n, k = self.batch, self.num_seats, len(idx)
        if dealers is not None:
            dealer = dealers
        elif self.options.first_dealer is not None:
            dealer = torch.full((k,), self.options.first_dealer, dtype=torch.int64, device=self.device)
        else:
            dealer = torch.randint(0, n, (k,), generator=self._gen, device=self.device)
        s = torch.zeros(b.s.shape[0], k, dtype=torch.int64, device=self.device)
        s[ALIVE] = (1 << n) - 1
        s[DEALER] = dealer
        b.s.index_copy_(1, idx, s)
        b.tokens.index_fill_(1, idx, self.R.start_tokens)
        if b.log is not None:
            b.log += [("start", slot, d) for slot, d in zip(idx.tolist(), dealer.tolist(), strict=True)]

    def _start(self, idx: torch.Tensor, decks: torch.Tensor | None = None, dealers: torch.Tensor | None = None) -> None:
        """New games in slots ``idx`` (dealt again while the first deal would end the game or
        eliminate a player, as the AEC env's reset does; a chosen deck that does is a ValueError)."""
        b, R = self.batch, self.R
        pending = idx
        while len(pending):
            k = len(pending)
            self._seat(pending, dealers)
            deck = self._decks(k) if decks is None else decks
            ordered = torch.full((k,), decks is not None, dtype=torch.bool, device=self.device)
            blitz = deal(b, pending, deck, ordered, self.T)
            chain = pending[blitz]
            over = settle_rounds(b, chain, torch.full_like(chain, -1), self.T, R, self._decks, None)
            bad = over[pending] | (b.s[N_OUT, pending] > 0)
            if decks is not None and bool(bad.any()):
                i = int(pending[bad][0])
                raise ValueError(f"the deck of slot {i} deals a blitz that ends the episode or eliminates a player "
                                 "before any decision; pick another deck order")
            pending = pending[bad]

    # --- the API --------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, deals: Any = None,
              dealer: int | Sequence[int] | torch.Tensor | None = None) -> VectorState:
        """New games in every slot. ``seed`` reseeds. ``deals``: N chosen decks for the first round
        (each a list of the 52 cards in dealing order, as the AEC env's ``{"deck": [...]}``, or an
        int64 tensor [N, 52] of card ids): dealt one card at a time from the dealer's left, the next
        turned up, the rest drawn in order. ``dealer``: the first dealer, a seat or one per slot."""
        if seed is not None:
            self._seed(seed)
        n = self.num_envs
        idx = torch.arange(n, device=self.device)
        dealers = self._dealer_arg(dealer) if dealer is not None else None
        decks = self._deck_arg(deals) if deals is not None else None
        if self.batch.log is not None:
            self.batch.log = []
        self._start(idx, decks, dealers)
        if self._kernel is not None:  # the kernel's own generator, seeded from this env's
            self._kernel.seed(int(torch.randint(0, 2**63 - 1, (1,), generator=self._gen, device=self.device)))
        self._terminated = torch.zeros(n, dtype=torch.bool, device=self.device)
        self._ended = self._terminated.nonzero().squeeze(1)
        return self._state(torch.zeros(n, self.num_seats, dtype=torch.float32, device=self.device))

    def step(self, actions: Any) -> VectorState:
        """One action per slot (int64 [N]) for the seat to act; a slot whose game ended in the
        previous step starts a new game instead (its action is ignored)."""
        a = self._action_arg(actions)
        if self._mask is None:
            raise ValueError("step() before reset(): call reset() to deal")
        if self.validate:
            self._check(a)
        b = self.batch
        if b.log is not None:
            b.log = []
        a = a.clamp(0, A.NUM_ACTIONS - 1)
        if self._kernel is not None:
            return self._step_kernel(a)
        rand = torch.rand(self.num_envs, generator=self._gen, device=self.device)
        # the games that ended in the last step start in the deals of this one
        rewards, over = advance(b, a, self.T, self.R, rand, self._decks, self._ended, self._seat)
        self._terminated = over
        self._ended = over.nonzero().squeeze(1)
        return self._state(rewards.t().contiguous())

    def _kernel_outputs(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """New observation, mask (kept for the action check) and player tensors for the kernel to fill."""
        N = self.num_envs
        self._mask = torch.empty(N, A.NUM_ACTIONS, dtype=torch.bool)
        return torch.empty(N, OBS_SIZE, dtype=torch.float32), self._mask, torch.empty(N, dtype=torch.int64)

    def _step_kernel(self, a: torch.Tensor) -> VectorState:
        fresh = self._terminated
        rewards = torch.empty(self.num_envs, self.num_seats, dtype=torch.float32)
        over = torch.empty(self.num_envs, dtype=torch.bool)
        observation, mask, player = self._kernel_outputs()
        log = self._kernel.step(self.batch, a.numpy(), fresh.numpy(), rewards.numpy(), over.numpy(),
                                observation.numpy(), mask.numpy(), player.numpy())
        if log is not None:
            self.batch.log = log
        self._terminated = over
        return VectorState(observation, mask, player, rewards, over)

    def _state(self, rewards: torch.Tensor) -> VectorState:
        b = self.batch
        if self._kernel is not None:  # after a reset: no game is over
            observation, mask, player = self._kernel_outputs()
            self._kernel.observe(b, observation.numpy(), mask.numpy(), player.numpy())
            return VectorState(observation, mask, player, rewards, self._terminated)
        seen = Seen(b, self.T)
        self._mask = legal_mask(b, self.T, self.R, seen)
        observation = observe(b, self.T, self.R, self._ctx, seen)
        player = b.s[CUR].clone()
        if len(self._ended):  # a finished game has no decision, as envs.vector.AECVectorEnv shows it
            observation.index_fill_(0, self._ended, 0.0)
            self._mask.index_fill_(0, self._ended, False)
            player.index_fill_(0, self._ended, 0)
        return VectorState(observation, self._mask, player, rewards, self._terminated)

    def close(self) -> None:
        """Nothing to release; here for the envs' interface."""

    # --- input checks ---------------------------------------------------------------------------
    def _action_arg(self, actions: Any) -> torch.Tensor:
        return action_tensor(actions, self.num_envs, self.device, "game")

    def _check(self, a: torch.Tensor) -> None:
        in_range = (a >= 0) & (a < A.NUM_ACTIONS)
        legal = self._mask.gather(1, a.clamp(0, A.NUM_ACTIONS - 1)[:, None]).squeeze(1) & in_range
        bad = ~legal & ~self._terminated
        if bool(bad.any()):
            i = int(bad.nonzero()[0, 0])
            act = int(a[i])
            name = A.ACTION_NAMES[act] if 0 <= act < A.NUM_ACTIONS else f"{act} (out of range 0..{A.NUM_ACTIONS - 1})"
            legal_names = [A.ACTION_NAMES[j] for j in self._mask[i].nonzero().squeeze(1).tolist()[:12]]
            raise ValueError(f"illegal Thirty-One action {name!r} in slot {i} for player_{int(self.batch.s[CUR, i])} "
                             f"in phase {PHASE_NAMES[int(self.batch.s[PHASE, i])]}; legal: {', '.join(legal_names)}")

    def _dealer_arg(self, dealer: Any) -> torch.Tensor:
        d = torch.as_tensor(dealer, device=self.device)
        n = self.num_seats
        if d.dtype == torch.bool or d.dtype.is_floating_point or d.dim() > 1:
            raise ValueError(f"dealer must be a seat 0..{n - 1}, or one per slot, got {dealer!r}")
        d = d.to(torch.int64).expand(self.num_envs) if d.dim() == 0 else d.to(torch.int64)
        if d.shape != (self.num_envs,) or bool(((d < 0) | (d >= n)).any()):
            raise ValueError(f"dealer must be a seat 0..{n - 1}, or {self.num_envs} of them, got {dealer!r}")
        return d.clone()

    def _deck_arg(self, deals: Any) -> torch.Tensor:
        n = self.num_envs
        if isinstance(deals, torch.Tensor):
            rows = deals.tolist()
        elif isinstance(deals, str | bytes) or not isinstance(deals, Sequence) or len(deals) != n:
            raise ValueError(f"deals must be a list of {n} decks (one per slot) or an int64 tensor [{n}, 52]")
        else:
            rows = [d["deck"] if isinstance(d, dict) and set(d) == {"deck"} else d for d in deals]
        if len(rows) != n:
            raise ValueError(f"deals must hold {n} decks (one per slot), got {len(rows)}")
        out = []
        for i, deck in enumerate(rows):
            try:
                out.append(check_deck(deck, 52))
            except ValueError as e:
                raise ValueError(f"deal {i}: {e}") from None
        return torch.tensor(out, dtype=torch.int64, device=self.device).t().contiguous()


def vector_env(num_envs: int, device: str | torch.device = "cpu", seed: int | None = None, validate: bool = True,
               backend: str = "auto", **options: Any) -> ThirtyOneVectorEnv:
    """``num_envs`` Thirty-One games on ``device`` (see :class:`ThirtyOneVectorEnv`)."""
    return ThirtyOneVectorEnv(num_envs, device=device, seed=seed, validate=validate, backend=backend, **options)

