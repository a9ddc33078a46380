"""The rule-based Skat player (``agents.rule_skat``) compiled with numba, for many games at once.

:func:`act_arrays` decides for a batch of ISkO observation rows (``envs.skat.observation``, 391
floats) and makes exactly the move ``RuleSkatAgent().act`` makes for each row, bit for bit: the
Python agent is the reference (``tests/test_rule_skat_arrays.py`` compares them over thousands of
decisions), and this is its copy for speed, one decision costing about a microsecond instead of
tens. Every table and named constant comes from the module that owns it (``tables``); the bidding
constants of ``agents.rule_skat`` arrive through :func:`build_tables`, called by that module, so
that this package never imports it.

Modules: ``tables`` (the numpy tables), ``decode`` (the observation row), ``hand`` (the hand
models), ``bidding`` (auction to Kontra/Re), ``seen``, ``trump_play`` and ``play`` (card play),
``kernel`` (the batch loop), ``jit`` (how they are compiled, and why so).

When changing a rule, change ``agents.rule_skat`` and its helpers first, then the function of the
same name here, and run the test. numba keys each cached function on its own source file only:
after an edit of one module of this package (or a ``git pull`` that changes one), its callers in
the other modules would keep the old code compiled into them. :func:`drop_stale_cache` prevents
that: a digest of all this package's sources is kept beside numba's cache, and the package's cache
files are deleted whenever it changes (the tables are arguments, so retuned weights and constants
of the Python modules never go stale).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from agents.rule_skat_kernel.kernel import decide_all, work
from agents.rule_skat_kernel.tables import Tables
from agents.rule_skat_kernel.tables import build as build_tables
from envs.skat.actions import NUM_ACTIONS
from envs.skat.observation import OBSERVATION_SIZE

__all__ = ["Tables", "act_arrays", "build_tables", "drop_stale_cache"]

_HERE = Path(__file__).resolve().parent
_STAMP = "rule_skat_kernel.sources.sha256"


def sources_digest() -> str:
    """A digest of every module of this package: the compiled kernel is a function of all of them."""
    return hashlib.sha256(b"".join(p.name.encode() + p.read_bytes() for p in sorted(_HERE.glob("*.py")))).hexdigest()


def drop_stale_cache(cache_dir: str | Path | None = None, digest: str | None = None) -> bool:
    """Delete this package's numba cache files in ``cache_dir`` (numba's folder for it by default) unless
    they were compiled from sources with this ``digest``; True when it deleted. A read-only or missing
    folder is left alone (numba then compiles in memory)."""
    if cache_dir is None:
        cache_dir = getattr(getattr(decide_all, "_cache", None), "_cache_path", None)  # numba's own choice
        if cache_dir is None:
            return False
    folder, digest = Path(cache_dir), digest or sources_digest()
    stamp = folder / _STAMP
    try:
        if stamp.read_text() == digest:
            return False
    except OSError:
        pass
    modules = {p.stem for p in _HERE.glob("*.py")}
    try:
        for f in folder.iterdir():
            if f.suffix in (".nbi", ".nbc") and f.name.split(".", 1)[0] in modules:
                f.unlink(missing_ok=True)
        stamp.write_text(digest)
    except OSError:
        return False
    return True


drop_stale_cache()  # before anything is compiled or loaded: loading happens at the first call


def act_arrays(observations: np.ndarray, masks: np.ndarray, tables: Tables) -> np.ndarray:
    """The rule player's actions (int64 [N]) for ISkO observations [N, 391] and action masks [N, 162].

    A ValueError names a batch of the wrong shape or a row with no legal action."""
    obs = np.asarray(observations)
    # float32 as the env serves it (float64 is read as is, compiled on first use); no copy of the batch
    obs = np.ascontiguousarray(obs, dtype=obs.dtype if obs.dtype == np.float64 else np.float32)
    legal = np.ascontiguousarray(masks, dtype=bool)  # set where non-zero, as act's packbits reads it
    if obs.ndim != 2 or obs.shape[1] != OBSERVATION_SIZE or legal.shape != (obs.shape[0], NUM_ACTIONS):
        raise ValueError(f"the batched rule player takes ISkO observations [N, {OBSERVATION_SIZE}] and masks "
                         f"[N, {NUM_ACTIONS}], got {obs.shape} and {legal.shape}")
    empty = np.flatnonzero(~legal.any(axis=1))
    if empty.size:
        raise ValueError(f"RuleSkatAgent.act_arrays called with an empty action mask (no legal action) in row "
                         f"{int(empty[0])}")
    out = np.empty(obs.shape[0], np.int64)
    decide_all(tables, work(), obs, legal, out)
    return out
