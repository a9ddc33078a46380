"""The labelled-deals cache of ``pretrain.cache``: one file per seeded chunk of deals, reused by reruns.

A teacher such as PIMC takes a good fraction of a second per deal, so a data set of tens of
thousands of deals is hours of work that a crash, a Ctrl-C or a second cloning run (another
learning rate, more epochs) should not repeat. Chunks are seeded by ``(seed, chunk index)``, so a
chunk's data is a function of a small key: the teacher (its spec; a checkpoint's content hash),
the driver checkpoint's content hash, ``teach_only``, the game and its env options (with the
observation layout and version), gamma and the reward scale (they make the returns), the seed, the
chunk index and its number of deals. The key is hashed into the file name and stored inside the
file, which is checked on reading; a file that does not match or cannot be read is labelled again.

What the key does not cover is the agents' code: after changing the rule agent or PIMC, use a new
folder (or bump :data:`FORMAT`, which also marks a change in the recorded fields).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from agents import split_spec

FORMAT = 1  # bump when the recorded fields or their meaning change


def file_hash(path: str) -> str:
    """SHA-256 of a file's content (a checkpoint is keyed by what it holds, not by its name)."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def spec_key(spec: str) -> str:
    """An agent spec as a cache key: a checkpoint by content (and policy name), anything else as written."""
    path, policy = split_spec(spec)
    if spec and os.path.isfile(path):
        return f"sha256:{file_hash(path)}" + (f"#{policy}" if policy else "")
    return spec


def cache_problem(folder: Any) -> str | None:
    """Why ``folder`` cannot be a ``pretrain.cache`` (None when it can; "" means no cache)."""
    if not isinstance(folder, str):
        return f"expected a folder path or '' (no cache), got {folder!r}"
    if folder and os.path.exists(folder) and not os.path.isdir(folder):
        return f"{folder!r} exists and is not a folder"
    return None


class ChunkCache:
    """Labelled chunks in ``folder``: ``load`` the ones done before, ``save`` each one as it is labelled."""

    def __init__(self, folder: str | os.PathLike, key: dict[str, Any]) -> None:
        self.folder = Path(folder)
        self.key = {"format": FORMAT, **key}

    def chunk_key(self, index: int, episodes: int) -> str:
        return json.dumps({**self.key, "chunk": index, "episodes": episodes}, sort_keys=True)

    def path(self, index: int, episodes: int) -> Path:
        digest = hashlib.sha256(self.chunk_key(index, episodes).encode()).hexdigest()[:20]
        return self.folder / f"chunk{index:05d}-{digest}.npz"

    def load(self, index: int, episodes: int) -> dict[str, np.ndarray] | None:
        path = self.path(index, episodes)
        if not path.is_file():
            return None
        try:
            with np.load(path, allow_pickle=False) as stored:
                if str(stored["_key"]) != self.chunk_key(index, episodes):
                    return None
                return {name: stored[name] for name in stored.files if name != "_key"}
        except (OSError, ValueError, KeyError):  # unreadable (e.g. a foreign file): label the chunk again
            return None

    def save(self, index: int, episodes: int, data: dict[str, np.ndarray]) -> None:
        """Write atomically (temporary file, then rename): a run killed mid-write leaves no half file."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.path(index, episodes)
        fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".tmp-", suffix=".npz")
        try:
            with os.fdopen(fd, "wb") as f:
                np.savez_compressed(f, _key=np.array(self.chunk_key(index, episodes)), **data)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
