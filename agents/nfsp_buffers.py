"""NFSP's two buffers: the circular replay buffer of the best response and the reservoir of the average policy."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch


class ReplayBuffer:
    """Circular buffer of transitions, written in whole trajectories.

    The next observation of transition ``i`` is row ``i + 1``: the trainer's batches are whole
    trajectories ending with ``done``, so the newest row is always terminal and a non-terminal
    row's successor is written with it and overwritten only after it. Halves the memory.
    """

    def __init__(self, capacity: int, obs_size: int, num_actions: int) -> None:
        self.capacity = capacity
        self.obs = np.zeros((capacity, obs_size), np.float32)  # zeros: pages are used only once written
        self.mask = np.zeros((capacity, num_actions), bool)
        self.action = np.zeros(capacity, np.int64)
        self.reward = np.zeros(capacity, np.float32)
        self.done = np.ones(capacity, bool)
        self.pos = 0
        self.size = 0

    def add(self, obs: np.ndarray, mask: np.ndarray, action: np.ndarray, reward: np.ndarray, done: np.ndarray) -> None:
        n = min(len(action), self.capacity)
        rows = (self.pos + np.arange(n)) % self.capacity
        for store, data in ((self.obs, obs), (self.mask, mask), (self.action, action), (self.reward, reward),
                            (self.done, done)):
            store[rows] = data[-n:]
        self.pos = int((self.pos + n) % self.capacity)
        self.size = min(self.size + n, self.capacity)

    def sample(self, batch_size: int, rng: np.random.Generator) -> dict[str, torch.Tensor]:
        i = rng.integers(0, self.size, batch_size)
        j = (i + 1) % self.capacity
        return {k: torch.from_numpy(v) for k, v in (
            ("obs", self.obs[i]), ("mask", self.mask[i]), ("action", self.action[i]), ("reward", self.reward[i]),
            ("done", self.done[i]), ("next_obs", self.obs[j]), ("next_mask", self.mask[j]))}

    def state_dict(self, with_data: bool) -> dict[str, Any]:
        state: dict[str, Any] = {"pos": self.pos, "size": self.size if with_data else 0}
        if with_data:
            state.update({k: torch.from_numpy(getattr(self, k)[: self.size].copy())
                          for k in ("obs", "mask", "action", "reward", "done")})
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.size = min(int(state["size"]), self.capacity)
        self.pos = int(state["pos"]) % self.capacity if self.size else 0
        for k in ("obs", "mask", "action", "reward", "done") if self.size else ():
            getattr(self, k)[: self.size] = state[k][: self.size].numpy()


class ReservoirBuffer:
    """A uniform sample of at most ``capacity`` of all (obs, mask, action) ever added (Vitter's Algorithm R)."""

    def __init__(self, capacity: int, obs_size: int, num_actions: int) -> None:
        self.capacity = capacity
        self.obs = np.zeros((capacity, obs_size), np.float32)
        self.mask = np.zeros((capacity, num_actions), bool)
        self.action = np.zeros(capacity, np.int64)
        self.seen = 0  # items offered so far
        self.size = 0

    def add(self, obs: np.ndarray, mask: np.ndarray, action: np.ndarray, rng: np.random.Generator) -> None:
        n = len(action)
        if n == 0:
            return
        before = self.seen + np.arange(n)  # items seen before each new one
        # The k-th item (k = before + 1) is kept with probability capacity / k, in a uniform slot.
        slots = np.where(before < self.capacity, before, rng.integers(0, before + 1))
        keep = np.flatnonzero(slots < self.capacity)
        # Later items overwrite earlier ones drawn for the same slot, as one-by-one insertion would.
        _, last = np.unique(slots[keep][::-1], return_index=True)
        keep = keep[::-1][last]
        self.obs[slots[keep]] = obs[keep]
        self.mask[slots[keep]] = mask[keep]
        self.action[slots[keep]] = action[keep]
        self.seen += n
        self.size = min(self.seen, self.capacity)

    def sample(self, batch_size: int, rng: np.random.Generator) -> dict[str, torch.Tensor]:
        i = rng.integers(0, self.size, batch_size)
        return {"obs": torch.from_numpy(self.obs[i]), "mask": torch.from_numpy(self.mask[i]),
                "action": torch.from_numpy(self.action[i])}

    def state_dict(self, with_data: bool) -> dict[str, Any]:
        # Without the data the sample restarts: seen must restart with it to stay uniform.
        state: dict[str, Any] = {"seen": self.seen if with_data else 0, "size": self.size if with_data else 0}
        if with_data:
            state.update({k: torch.from_numpy(getattr(self, k)[: self.size].copy()) for k in ("obs", "mask", "action")})
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.seen, self.size = int(state["seen"]), min(int(state["size"]), self.capacity)
        for k in ("obs", "mask", "action") if self.size else ():
            getattr(self, k)[: self.size] = state[k][: self.size].numpy()
