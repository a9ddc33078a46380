"""The batched-engine contract, and a reference implementation of it over ordinary AEC envs.

A *vector env* holds N games and advances all of them at once (pgx's design)::

    venv = skat_v0.vector_env(num_envs=N, device="cpu", seed=0, **options)
    state = venv.reset()
    state = venv.step(actions)          # int64 tensor [N]: one action per game, for its current player

``state`` is a :class:`VectorState` of torch tensors on the device: ``observation`` float32
[N, obs_size] and ``action_mask`` bool [N, num_actions] of the player to act, ``current_player``
int64 [N] (the seat index, ``player_i`` -> i), ``rewards`` float32 [N, num_seats] (what each seat
received in this step; zero until a game pays out) and ``terminated`` bool [N]. A game that ends
in a step shows ``terminated`` and its final rewards in the state that step returns; the next
``step`` starts a new game in that slot (the action given for it is ignored) and the state it
returns shows the new game's first decision.

:class:`AECVectorEnv` implements the contract with a Python loop over N raw AEC envs of any game:
the reference the batched engines are compared with, and the fallback for games and options that
have no batched engine (``envs.games.GameDescription.vector_env`` chooses).

Helpers of the batched engines: :func:`random_legal_actions` samples one uniformly random legal
action per row of a batched mask on its device (the random player of benchmarks and tests);
:func:`tune_malloc` is an opt-in process setting for CPU throughput (see its docstring).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch


@dataclass
class VectorState:
    """The state of N games as a trainer sees it (see the module docstring)."""

    observation: torch.Tensor  # float32 [N, obs_size]
    action_mask: torch.Tensor  # bool [N, num_actions]
    current_player: torch.Tensor  # int64 [N]
    rewards: torch.Tensor  # float32 [N, num_seats]
    terminated: torch.Tensor  # bool [N]


def action_tensor(actions: Any, num_envs: int, device: torch.device | str, unit: str = "game") -> torch.Tensor:
    """``actions`` as the int64 tensor [num_envs] a vector env steps with; a ValueError naming the problem
    for a float, bool or complex dtype or another shape (``unit`` names one slot: "game", "deal")."""
    a = torch.as_tensor(actions, device=device)
    if a.dtype == torch.bool or a.dtype.is_floating_point or a.dtype.is_complex:
        raise ValueError(f"actions must be an integer tensor (int64) of shape [{num_envs}], got dtype {a.dtype}")
    if a.shape != (num_envs,):
        raise ValueError(f"actions must have shape [{num_envs}] (one per {unit}), got {list(a.shape)}")
    return a.to(torch.int64)


class AECVectorEnv:
    """N AEC envs behind the vector-env contract (a Python loop: correct for any game, not fast).

    Game ``k`` of slot ``i`` is reset with the seed ``(seed, i, k)``, so a run reproduces from ``seed``.
    """

    def __init__(self, game: Any, num_envs: int, device: str = "cpu", seed: int | None = None,
                 **options: Any) -> None:
        """``game``: its description (``envs.games.describe(name)``: anything with ``raw_env(**options)``)."""
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        self.envs = [game.raw_env(**options) for _ in range(num_envs)]
        self.device = torch.device(device)
        self.seed = 0 if seed is None else int(seed)
        env = self.envs[0]
        self.num_envs = num_envs
        self.num_seats = len(env.possible_agents)
        self.obs_size = int(env.observation_space(env.possible_agents[0])["observation"].shape[0])
        self.num_actions = int(env.action_space(env.possible_agents[0]).n)
        self._seat = {a: i for i, a in enumerate(env.possible_agents)}
        self._games = [0] * num_envs
        self._ended = np.zeros(num_envs, bool)

    def reset(self) -> VectorState:
        rewards = np.zeros((self.num_envs, self.num_seats), np.float32)
        for i in range(self.num_envs):
            self._new_game(i, rewards)
        return self._state(rewards)

    def step(self, actions: torch.Tensor) -> VectorState:
        chosen = torch.as_tensor(actions).to("cpu").tolist()
        rewards = np.zeros((self.num_envs, self.num_seats), np.float32)
        for i, env in enumerate(self.envs):
            if self._ended[i]:
                self._new_game(i, rewards)
                continue
            env.step(int(chosen[i]))
            self._advance(i, rewards)
        return self._state(rewards)

    def _new_game(self, i: int, rewards: np.ndarray) -> None:
        self.envs[i].reset(seed=int(np.random.SeedSequence([self.seed, i, self._games[i]]).generate_state(1)[0]))
        self._games[i] += 1
        self._ended[i] = False
        self._advance(i, rewards)

    def _advance(self, i: int, rewards: np.ndarray) -> None:
        """Collect the rewards, step the done agents out, stop at the next decision (or the end)."""
        env = self.envs[i]
        for agent, reward in env.rewards.items():
            rewards[i, self._seat[agent]] += reward
        while env.agents:
            agent = env.agent_selection
            if not (env.terminations[agent] or env.truncations[agent]):
                return
            env.step(None)
            for other, reward in env.rewards.items():
                rewards[i, self._seat[other]] += reward
        self._ended[i] = True

    def _state(self, rewards: np.ndarray) -> VectorState:
        obs = np.zeros((self.num_envs, self.obs_size), np.float32)
        mask = np.zeros((self.num_envs, self.num_actions), bool)
        player = np.zeros(self.num_envs, np.int64)
        for i, env in enumerate(self.envs):
            if not self._ended[i]:
                agent = env.agent_selection
                seen = env.observe(agent)
                obs[i], mask[i], player[i] = seen["observation"], seen["action_mask"], self._seat[agent]
        as_tensor = lambda a: torch.from_numpy(a).to(self.device)  # noqa: E731
        return VectorState(as_tensor(obs), as_tensor(mask), as_tensor(player), as_tensor(rewards),
                           as_tensor(self._ended.copy()))


def resolve_backend(backend: str, device: torch.device) -> str:
    """A batched engine's ``backend`` option: ``"torch"`` (tensor operations, any device), ``"numba"``
    (a compiled CPU kernel), ``"auto"`` (the kernel on a CPU, torch elsewhere)."""
    if backend == "auto":
        return "numba" if device.type == "cpu" else "torch"
    if backend not in ("torch", "numba"):
        raise ValueError(f"backend must be 'auto', 'torch' or 'numba', got {backend!r}")
    if backend == "numba" and device.type != "cpu":
        raise ValueError(f"backend='numba' runs on the CPU only, not on {device}; use backend='torch' there")
    return backend


def random_legal_actions(mask: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
    """int64 [N]: for each row of the bool mask [N, A] (at most 255 legal actions) one legal
    action, uniformly: the k-th legal action for a uniform k (no random key per action, which costs
    far more). On a CPU a compiled loop over each row finds it (``envs.vector_kernel``), elsewhere a
    binary search in the running count (:func:`kth_legal_tensor`): the same actions from the same draws."""
    u = torch.rand(mask.shape[0], generator=generator, device=mask.device)
    if mask.device.type == "cpu" and mask.dtype == torch.bool and mask.dim() == 2:
        from envs.vector_kernel import kth_legal  # the same actions, one pass per row

        out = torch.empty(mask.shape[0], dtype=torch.int64)
        kth_legal(mask.contiguous().numpy(), u.numpy(), out.numpy())
        return out
    return kth_legal_tensor(mask, u)


def kth_legal_tensor(mask: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """:func:`random_legal_actions` from the uniform draws ``u`` [N], as tensor operations (any device)."""
    count = mask.view(torch.uint8).cumsum(1, dtype=torch.uint8)
    k = (u * count[:, -1]).to(torch.uint8)
    return torch.searchsorted(count, k[:, None], right=True).squeeze(1).clamp_(max=mask.shape[1] - 1)


_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


def tune_malloc(mmap_threshold: int = 32 << 20, trim_threshold: int = 1 << 30) -> bool:
    """Keep freed memory in the process (glibc only; a no-op returning False elsewhere).

    A batched step allocates a few MB (the observations) and frees the last step's: with glibc's
    defaults such blocks are mapped fresh from the kernel each time, and the page faults of
    touching them cost about as much as computing the observations. Raising the mmap and trim
    thresholds lets malloc reuse them (PyTorch's CPU tuning guide suggests jemalloc or tcmalloc
    for the same reason). Blocks above glibc's largest mmap threshold (32 MB: the observations of
    16,384 Thirty-One games) are mapped fresh whatever the setting, so this also asks PyTorch to
    back tensors of 2 MB and more with transparent huge pages (``THP_MEM_ALLOC_ENABLE=1``, unless
    the variable is set): 512 times fewer page faults. PyTorch reads that variable at its first
    large allocation, so call this early. Process-wide, so an explicit opt-in: the benchmarks and
    batched collection (``train.batched``) call it; the engine never does."""
    if not sys.platform.startswith("linux"):
        return False
    os.environ.setdefault("THP_MEM_ALLOC_ENABLE", "1")
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        ok = libc.mallopt(_M_MMAP_THRESHOLD, int(mmap_threshold)) == 1
        return libc.mallopt(_M_TRIM_THRESHOLD, int(trim_threshold)) == 1 and ok
    except (OSError, AttributeError):
        return False
