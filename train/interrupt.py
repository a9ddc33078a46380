"""Stopping a run cleanly: Ctrl-C (SIGINT) and SIGTERM end training within seconds, with a resumable checkpoint."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from types import FrameType
from typing import Any


class TrainingInterrupted(Exception):
    """Training stopped on a signal; ``path`` is the ``latest.pt`` written on the way out."""

    def __init__(self, reason: str, path: Path, update: int, global_step: int) -> None:
        super().__init__(reason, path, update, global_step)
        self.reason, self.path, self.update, self.global_step = reason, Path(path), update, global_step

    def __str__(self) -> str:
        return (f"stopped by {self.reason} after update {self.update} ({self.global_step} steps); saved {self.path}\n"
                f"continue with: python -m train --resume {self.path}")


class StopNow(KeyboardInterrupt):
    """What a signal raises where the work in progress may be dropped (training's collection, an evaluation,
    labelling). A subclass, not KeyboardInterrupt itself:
    CPython remembers a bare KeyboardInterrupt that unwinds through code run by ``exec`` of a string
    (numba, namedtuple and dataclasses generate code that way, so a fresh checkout's warm-up is full of
    it) and then ends ``python -m ...`` by SIGINT (exit -2) whatever ``main`` returns, although the
    command caught it. It compares the exact type, so a subclass is caught as before and not remembered."""


class _NumbaCompilations:
    """How many numba compilations are in progress in this process (numba's ``numba:compile`` events).

    A KeyboardInterrupt raised while numba compiles can land in one of llvmlite's ctypes callbacks,
    which prints it as "Exception ignored ... Traceback" and compiles on: the stop is lost for the
    moment and the output looks like a crash (and once left a run hanging). The first collection of a
    fresh checkout compiles the kernels (tens of seconds), so a Ctrl-C there is not a rare case."""

    count = 0
    _registered = False

    @classmethod
    def watch(cls) -> None:
        if cls._registered:
            return
        try:
            from numba.core import event
        except ImportError:  # no numba, no compilations
            cls._registered = True
            return

        class Counter(event.Listener):
            def on_start(self, ev: Any) -> None:
                cls.count += 1

            def on_end(self, ev: Any) -> None:
                cls.count -= 1

        event.register("numba:compile", Counter())
        cls._registered = True


class StopRequest:
    """Catches SIGINT and SIGTERM while training. Inside :meth:`interruptible` (collecting, evaluating:
    work that may simply be dropped) a signal stops at once with :class:`StopNow`; elsewhere (an update,
    a checkpoint write) it only sets :attr:`requested`, and the loop stops after the step in progress.
    A second signal always stops at once, except while numba compiles (see :class:`_NumbaCompilations`):
    then the run stops after the step in progress. Outside the main thread it does nothing."""

    def __init__(self) -> None:
        self.requested: str = ""  # "" until a signal arrives, then its name
        self._immediate = False
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> StopRequest:
        if threading.current_thread() is threading.main_thread():
            _NumbaCompilations.watch()
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous.clear()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        again = bool(self.requested)
        self.requested = signal.Signals(signum).name
        if (self._immediate or again) and not _NumbaCompilations.count:
            raise StopNow

    @contextlib.contextmanager
    def interruptible(self) -> Iterator[None]:
        if self.requested:
            raise StopNow
        self._immediate = True
        try:
            yield
        finally:
            self._immediate = False


@contextlib.contextmanager
def signals_stop_now(signals: tuple[int, ...] = (signal.SIGINT, signal.SIGTERM)) -> Iterator[None]:
    """Inside this block ``signals`` (SIGINT and SIGTERM) raise :class:`StopNow` (its argument: the signal's
    name), for work that may be dropped at any point (an evaluation's games); the previous handlers come
    back on exit. Outside the main thread it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handle(signum: int, frame: FrameType | None) -> None:
        raise StopNow(signal.Signals(signum).name)

    previous = {sig: signal.signal(sig, handle) for sig in signals}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@contextlib.contextmanager
def children_ignore_signals() -> Iterator[None]:
    """Start worker processes inside this block: they are born ignoring SIGINT and SIGTERM (a Ctrl-C
    reaches the whole process group, and a worker hit while it is still importing would print a
    traceback); the parent stops them itself. The parent's own handlers are restored on exit."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def stop_workers(pool: ProcessPoolExecutor, futures: Iterable[Future]) -> None:
    """Cancel ``futures`` and kill ``pool``'s worker processes, so that leaving the pool's block does not wait
    for the work items in progress (a PIMC work item can take minutes). SIGKILL, because the workers were
    started in :func:`children_ignore_signals`; whatever they were doing is dropped."""
    for future in futures:
        future.cancel()
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.kill()
