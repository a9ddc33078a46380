"""The batched Skat env: N deals as torch tensors on one device, ``reset()`` / ``step(actions)``.

    venv = skat_v0.vector_env(num_envs=4096, device="cpu", seed=0, scoring="tournament")
    state = venv.reset()
    state = venv.step(actions)  # int64 [N]: one action per deal, for the seat to act

Every slot behaves as one AEC env (``envs.skat.env.raw_env``) reset after each deal: the same
observation (``OBSERVATION_VERSION``), action mask, acting seat (``player_i``, the dealer rotating
one seat per deal unless the ``dealer`` option fixes it), rewards and ending. Differences:

* ``state.rewards`` [N, 3] is what each seat received in this step: the deal's scores in the step
  that ends it, zero otherwise.
* A deal that ends shows ``terminated`` and its rewards, and no decision: observation zeros,
  action mask all False, ``current_player`` 0 (as ``envs.vector.AECVectorEnv``, the contract's
  reference, shows a finished game). The next ``step`` deals a new deal in that slot (the action
  given for it is ignored) and returns the new deal's first decision.
* Deals are drawn from a torch generator seeded by ``seed``: the same seed, batch size and device
  give the same deals, not the AEC env's. Chosen deals come in through ``reset(deals=...)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import torch

from envs.skat import actions as A
from envs.skat.cards import FULL_DECK, NUM_CARDS, cards_of
from envs.skat.deal import deal_from_deck, parse_deal
from envs.skat.env import AGENTS, DEAL_KEYS
from envs.skat.observation import OBSERVATION_SIZE, OBSERVATION_VERSION
from envs.skat.options import SkatOptions, validate_options
from envs.skat.rules import PHASE_NAMES
from envs.skat.vector.engine import CUR, DEALER, DEALS, DECLARER, PHASE, TCOUNT, Batch, advance, card_points
from envs.skat.vector.observe import Context, legal_mask, observe
from envs.skat.vector.score import rewards_by_seat, seat_tables
from envs.skat.vector.tables import tables
from envs.vector import VectorState, action_tensor, resolve_backend


@dataclass
class SkatVectorState(VectorState):
    """What ``reset`` and ``step`` return: the contract's fields (``envs.vector.VectorState``:
    observation float32 [N, OBSERVATION_SIZE] of the acting seat, action_mask bool [N, NUM_ACTIONS],
    current_player int64 [N] (forehand's seat once the deal is over), rewards float32 [N, 3] by
    seat, terminated bool [N]) and three of Skat's. Every tensor is new: later steps never change it."""

    phase: torch.Tensor  # int64 [N]: the rules core's phase (envs.skat.rules.PHASE_NAMES; 7 done)
    declarer: torch.Tensor  # int64 [N]: the declarer's seat, -1 before the auction ends or none
    dealer: torch.Tensor  # int64 [N]: the dealer's seat


def check_supported(options: SkatOptions) -> None:
    """A ValueError naming the options of ``options`` the batched engine does not play: it plays the
    ISkO table (``scoring``, ``kontra``, ``ramsch``, ``dealer``), not the extended tables."""
    if options.classic:
        return
    default = SkatOptions()
    other = [f"{f.name}={getattr(options, f.name)!r}" for f in fields(options)
             if f.name != "variant" and getattr(options, f.name) != getattr(default, f.name)
             and f.name not in ("scoring", "kontra", "ramsch", "dealer")]
    raise ValueError(f"the batched Skat engine does not support variant={options.variant!r} ({', '.join(other)}) "
                     "yet: it plays the ISkO table with the options scoring, kontra, ramsch and dealer; use the "
                     "AEC env (envs.vector.AECVectorEnv) for the other tables")


class SkatVectorEnv:
    """N Skat deals advanced together (see the module docstring). Options as ``raw_env``'s:
    ``scoring``, ``kontra``, ``ramsch``, ``dealer``. ``validate=False`` skips the legality check of
    the actions (an illegal action then gives undefined results, but never an error).
    ``compile=True`` computes the observations with ``torch.compile`` (Inductor; a C++
    compiler on a CPU): the observation two to three times faster (a step a fifth to a third), after
    a compilation of some tens of seconds per batch size and process (``envs.skat.vector.compiled``).
    ``backend``: ``"torch"`` (tensor operations, any device), ``"numba"`` (the compiled CPU kernel of
    ``envs.skat.vector.kernel``: the rules of a step, the observation and the mask), ``"auto"`` (the
    kernel on a CPU unless ``compile=True``)."""

    num_seats = 3
    num_actions = A.NUM_ACTIONS
    obs_size = observation_size = OBSERVATION_SIZE
    observation_version = OBSERVATION_VERSION

    def __init__(self, num_envs: int, device: str | torch.device = "cpu", seed: int | None = None,
                 validate: bool = True, compile: bool = False, backend: str = "auto", **options: Any) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.options = validate_options(**options)
        check_supported(self.options)
        self.num_envs = num_envs
        self.device = torch.device(device)
        if compile and backend == "numba":
            raise ValueError("compile=True is the torch engine's observation; it does not go with backend='numba'")
        self.backend = "torch" if compile and backend == "auto" else resolve_backend(backend, self.device)
        self.validate = bool(validate)
        self.T = tables(self.device)
        self._ctx = Context(self.T, self.options, num_envs)
        # the seat of position q when dealer d deals at d * 4 + 1 + q, -1 for no position (q = -1)
        self._seat_or_none = torch.cat((torch.full((3, 1), -1, device=self.device), self.T.seat_of.view(3, 3)),
                                       1).view(-1)
        self._compiled = None
        if compile:
            from envs.skat.vector.compiled import Compiled

            self._compiled = Compiled(self.T, self._ctx, self.options.ramsch)
        self._kernel = None
        if self.backend == "numba":
            from envs.skat.vector.kernel import CpuKernel

            self._kernel = CpuKernel(self.T, self._ctx, self.options.kontra, self.options.ramsch)
            self._kernel.warm()
        self._seats = seat_tables(self.T, self.options.scoring)
        self._scorer = None
        if self.backend == "numba":
            from envs.skat.vector.score_kernel import ScoreKernel

            self._scorer = ScoreKernel(self.T, self._seats, self.options.ramsch)
        self.batch = Batch(num_envs, self.device)
        self._gen = torch.Generator(device=self.device)
        self._seed(seed)
        self._mask: torch.Tensor | None = None
        self._terminated = torch.zeros(num_envs, dtype=torch.bool, device=self.device)
        self._ended = self._terminated.nonzero().squeeze(1)  # the slots of the deals that just ended

    # --- deals ------------------------------------------------------------------------------
    def _seed(self, seed: int | None) -> None:
        if seed is None:
            self._gen.seed()
        else:
            if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
                raise ValueError(f"seed must be a non-negative integer (or None), got {seed!r}")
            self._gen.manual_seed(seed)
        self._pool = torch.zeros(5, 0, dtype=torch.int64, device=self.device)
        self._pool_at = 0

    def _random_deals(self, m: int) -> torch.Tensor:
        """[5, m]: hands by position, skat and the skat's card points of m shuffled decks, dealt
        3-skat-4-3 (drawn in blocks of at least N deals, so that an auto-reset of a few slots costs
        little)."""
        if self._pool_at + m > self._pool.shape[1]:
            k = max(m, self.num_envs)
            keys = torch.randint(0, 2**62, (k, NUM_CARDS), generator=self._gen, device=self.device)
            deck = keys.argsort(1)  # a uniformly random card order per deal
            bits = self.T.bit[deck][:, self.T.deal_order]  # slots grouped by pile
            fresh = torch.cat((bits[:, :30].view(k, 3, 10).sum(2), bits[:, 30:].sum(1, keepdim=True)), 1)
            fresh = torch.cat((fresh.t(), card_points(fresh[:, 3], self.T)[None]))
            self._pool = torch.cat((self._pool[:, self._pool_at:], fresh), 1)
            self._pool_at = 0
        out = self._pool[:, self._pool_at:self._pool_at + m]
        self._pool_at += m
        return out

    def _next_dealers(self, idx: torch.Tensor) -> torch.Tensor:
        if self.options.dealer is not None:
            return torch.full_like(idx, self.options.dealer)
        return (2 + self.batch.s[DEALS, idx]) % 3  # the first dealer is player_2: player_0 leads

    def _deal(self, idx: torch.Tensor, cards: torch.Tensor | None = None, dealer: torch.Tensor | None = None) -> None:
        dealer = self._next_dealers(idx) if dealer is None else dealer
        if cards is None:
            cards = self._random_deals(len(idx))  # [5, M]
        else:  # [4, M] by seat: the hand of position q is the hand of seat (dealer + 1 + q) % 3
            hands = cards[:3].gather(0, self.T.seat_of.view(3, 3).index_select(0, dealer).t())
            cards = torch.cat((hands, cards[3:], card_points(cards[3], self.T)[None]))
        self.batch.new_deals(idx, cards[:4], cards[4], dealer)

    # --- the API ----------------------------------------------------------------------------
    def reset(self, seed: int | None = None, deals: Any = None,
              dealer: int | Sequence[int] | torch.Tensor | None = None) -> SkatVectorState:
        """New deals in every slot. ``seed`` reseeds the deals and restarts the dealer rotation
        (as ``raw_env.reset(seed=...)``). ``deals``: N chosen deals, either an int64 tensor
        [N, 4] of bit sets (hands of player_0, player_1, player_2, then the skat) or a list of N
        dicts in the AEC env's ``deal`` format (``{"hands": [by seat], "skat": ...}`` in card
        notation, or ``{"deck": [32 cards]}`` dealt from forehand). ``dealer``: a seat, or one per
        slot, for these deals (default: the rotation, or the ``dealer`` option)."""
        if seed is not None:
            self._seed(seed)
            self.batch.s[DEALS] = 0
        n = self.num_envs
        idx = torch.arange(n, device=self.device)
        dealers = self._dealer_arg(dealer) if dealer is not None else self._next_dealers(idx)
        if deals is None:
            self._deal(idx, dealer=dealers)
        else:
            self._deal(idx, self._deal_arg(deals, dealers), dealers)
        self._terminated = torch.zeros(n, dtype=torch.bool, device=self.device)
        self._ended = self._terminated.nonzero().squeeze(1)
        return self._state(torch.zeros(n, 3, dtype=torch.float32, device=self.device), self._terminated)

    def step(self, actions: Any) -> SkatVectorState:
        """One action per slot (int64 [N]) for the seat to act; a slot whose deal ended in the
        previous step gets a new deal instead (its action is ignored)."""
        a = self._action_arg(actions)
        if self._mask is None:
            raise ValueError("step() before reset(): call reset() to deal")
        b = self.batch
        done = self._terminated
        clamped = a.clamp(0, A.NUM_ACTIONS - 1)
        if self.validate:
            self._check(a, clamped, done)
        a = clamped
        if self._kernel is not None:
            ended = torch.empty(b.n, dtype=torch.bool)
            self._kernel.advance(b, a.numpy(), ended.numpy())
        else:
            ended = advance(b, a, self.T, self.options.kontra, self.options.ramsch)
        if len(self._ended):
            self._deal(self._ended)
        rewards = torch.zeros(b.n, 3, dtype=torch.float32, device=self.device)
        played = (ended & (b.s[TCOUNT] > 0)).nonzero().squeeze(1)  # not passed in
        if len(played) and self._scorer is not None:
            self._scorer.rewards(b, played.numpy(), rewards.numpy())
        elif len(played):
            rewards.index_copy_(0, played, rewards_by_seat(b, played, self.T, self._seats, self.options.ramsch))
        self._terminated = ended
        self._ended = ended.nonzero().squeeze(1)
        return self._state(rewards, ended)

    def _state(self, rewards: torch.Tensor, terminated: torch.Tensor) -> SkatVectorState:
        b, T = self.batch, self.T
        if self._kernel is not None:
            observation = torch.empty(b.n, OBSERVATION_SIZE, dtype=torch.float32)
            self._mask = torch.empty(b.n, A.NUM_ACTIONS, dtype=torch.bool)
            self._kernel.observe(b, terminated.contiguous().numpy(), observation.numpy(), self._mask.numpy())
        else:
            self._mask = legal_mask(b, T, self._ctx)
            observation = self._compiled.observe(b) if self._compiled is not None else observe(b, T, self._ctx)
        phase, cur, declarer, dealer = b.s[PHASE], b.s[CUR], b.s[DECLARER], b.s[DEALER]
        base = dealer * 4 + 1
        declarer = self._seat_or_none.index_select(0, base + declarer)
        player = self._seat_or_none.index_select(0, base + cur)
        if len(self._ended):  # a finished deal has no decision: as envs.vector.AECVectorEnv shows it
            if self._kernel is None:  # (the kernel has written them so)
                observation.index_fill_(0, self._ended, 0.0)
                self._mask.index_fill_(0, self._ended, False)
            player.index_fill_(0, self._ended, 0)
        return SkatVectorState(
            observation=observation,
            action_mask=self._mask,
            current_player=player,
            rewards=rewards,
            terminated=terminated,
            phase=phase.clone(),
            declarer=declarer,
            dealer=dealer.clone(),
        )

    def dealt(self) -> dict[str, torch.Tensor]:
        """The deals in play: ``hands`` [N, 3] bit sets by seat (player_0..2) as dealt, ``skat``
        [N], ``dealer`` [N] seats; ``reset(deals=torch.cat((hands, skat[:, None]), 1),
        dealer=dealer)`` deals them again."""
        b = self.batch
        dealer = b.s[DEALER]
        hands = b.dealt[:3].gather(0, self.T.pos_of_seat.index_select(0, dealer).t()).t()
        return {"hands": hands, "skat": b.dealt[3].clone(), "dealer": dealer.clone()}

    def close(self) -> None:
        """Nothing to release (the tensors go with the object); here for the envs' interface."""

    # --- input checks -----------------------------------------------------------------------
    def _action_arg(self, actions: Any) -> torch.Tensor:
        return action_tensor(actions, self.num_envs, self.device, "deal")

    def _check(self, a: torch.Tensor, clamped: torch.Tensor, done: torch.Tensor) -> None:
        legal = self._mask.view(-1).index_select(0, torch.add(clamped, self.batch.slots, alpha=A.NUM_ACTIONS))
        ok = (legal & (clamped == a)) | done
        if not bool(ok.all()):
            bad = ~ok
            i = int(bad.nonzero()[0, 0])
            act = int(a[i])
            name = A.ACTION_NAMES[act] if 0 <= act < A.NUM_ACTIONS else f"{act} (out of range 0..{A.NUM_ACTIONS - 1})"
            seat = int(self.T.seat_of[self.batch.s[DEALER, i] * 3 + self.batch.s[CUR, i]])
            legal_names = [A.ACTION_NAMES[j] for j in self._mask[i].nonzero().squeeze(1).tolist()[:12]]
            raise ValueError(f"illegal Skat action {name!r} in slot {i} for {AGENTS[seat]} in phase "
                             f"{PHASE_NAMES[int(self.batch.s[PHASE, i])]}; legal: {', '.join(legal_names)}")

    def _dealer_arg(self, dealer: Any) -> torch.Tensor:
        d = torch.as_tensor(dealer, device=self.device)
        if d.dtype == torch.bool or d.dtype.is_floating_point or d.dim() > 1:
            raise ValueError(f"dealer must be a seat 0, 1 or 2, or one per slot, got {dealer!r}")
        d = d.to(torch.int64).expand(self.num_envs) if d.dim() == 0 else d.to(torch.int64)
        if d.shape != (self.num_envs,) or bool(((d < 0) | (d > 2)).any()):
            raise ValueError(f"dealer must be a seat 0, 1 or 2, or {self.num_envs} of them, got {dealer!r}")
        return d.clone()

    def _deal_arg(self, deals: Any, dealers: torch.Tensor) -> torch.Tensor:
        """Chosen deals -> int64 [4, N] (hands by seat, skat); a ValueError naming the slot and the
        problem (a card twice, a hand of the wrong size ...)."""
        n = self.num_envs
        if isinstance(deals, torch.Tensor):
            if deals.dtype != torch.int64 or deals.shape != (n, 4):
                raise ValueError(f"deals as a tensor must be int64 [{n}, 4] bit sets (hands of player_0..2, skat), "
                                 f"got {deals.dtype} {list(deals.shape)}")
            cards = deals.to(self.device)
            sizes = ((cards[:, :, None] >> torch.arange(64, device=self.device)) & 1).sum(2)
            union = cards[:, 0] | cards[:, 1] | cards[:, 2] | cards[:, 3]
            ok = (sizes == torch.tensor([10, 10, 10, 2], device=self.device)).all(1) & (union == FULL_DECK)
            if not bool(ok.all()):
                i = int((~ok).nonzero()[0, 0])
                row = cards[i].tolist()
                try:
                    if any(x < 0 or x >> NUM_CARDS for x in row):
                        raise ValueError("a bit set holds bits beyond the 32 cards")
                    parse_deal([cards_of(h) for h in row[:3]], cards_of(row[3]), AGENTS)
                except ValueError as e:
                    raise ValueError(f"deal {i}: {e}") from None
                raise ValueError(f"deal {i}: three hands of 10 and a skat of 2, every card once")
            return cards.t().contiguous()
        if isinstance(deals, str | bytes) or not isinstance(deals, Sequence) or len(deals) != n:
            raise ValueError(f"deals must be a list of {n} deals (one per slot) or an int64 tensor [{n}, 4]")
        rows = []
        dealer_list = dealers.tolist()
        for i, d in enumerate(deals):
            if not isinstance(d, dict) or not set(d) <= set(DEAL_KEYS) or not (
                    set(d) == {"deck"} or set(d) == {"hands", "skat"}):
                raise ValueError(f"deal {i} must be {{'hands': [3 hands by seat], 'skat': 'XX YY'}} in card notation "
                                 f"or {{'deck': [32 cards]}}, got {d!r}")
            try:
                if "deck" in d:
                    by_pos, skat = deal_from_deck(d["deck"])
                    hands = [by_pos[(s - dealer_list[i] - 1) % 3] for s in range(3)]
                else:
                    hands, skat = parse_deal(d["hands"], d["skat"], AGENTS)
            except ValueError as e:
                raise ValueError(f"deal {i}: {e}") from None
            rows.append([*hands, skat])
        return torch.tensor(rows, dtype=torch.int64, device=self.device).t().contiguous()


def vector_env(num_envs: int, device: str | torch.device = "cpu", seed: int | None = None, validate: bool = True,
               compile: bool = False, **options: Any) -> SkatVectorEnv:
    """``num_envs`` Skat deals on ``device`` (see :class:`SkatVectorEnv`)."""
    return SkatVectorEnv(num_envs, device=device, seed=seed, validate=validate, compile=compile, **options)
