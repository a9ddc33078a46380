"""StopRequest: when a signal stops a run at once and when it waits for the step in progress."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba import njit
from numba.core import event

from train.interrupt import StopRequest

ROOT = Path(__file__).resolve().parent.parent


def test_a_signal_while_collecting_stops_at_once_elsewhere_after_the_step():
    with StopRequest() as stop:
        stop._handle(signal.SIGTERM, None)  # during an update: only noted
        assert stop.requested == "SIGTERM"
        with pytest.raises(KeyboardInterrupt):
            with stop.interruptible():
                pass


def test_no_interrupt_is_raised_inside_a_numba_compilation():
    """llvmlite would swallow it (printing a traceback) and compile on; the run stops after the step."""
    with StopRequest() as stop:
        with stop.interruptible():
            with event.trigger_event("numba:compile", data={}):
                stop._handle(signal.SIGINT, None)
                stop._handle(signal.SIGINT, None)  # a second one too
            assert stop.requested == "SIGINT"
            with pytest.raises(KeyboardInterrupt):
                stop._handle(signal.SIGINT, None)  # compiled: the next signal stops at once


def test_the_compile_counter_follows_real_compilations():
    @njit
    def double(x):
        return 2 * x

    with StopRequest() as stop:

        class SignalDuringCompile(event.Listener):
            def on_start(self, ev):
                stop._handle(signal.SIGTERM, None)  # as if it arrived mid-compile: must not raise

            def on_end(self, ev):
                pass

        with stop.interruptible(), event.install_listener("numba:compile", SignalDuringCompile()):
            assert double(np.int64(3)) == 6
        assert stop.requested == "SIGTERM"
        with pytest.raises(KeyboardInterrupt), stop.interruptible():
            pass


STOPPED_IN_GENERATED_CODE = '''
import os, signal, sys
from train.interrupt import StopRequest

with StopRequest() as stop:
    try:
        with stop.interruptible():  # the signal lands in code that exec() runs, as in numba's warm-up
            exec("import os, signal\\nos.kill(os.getpid(), signal.SIGTERM)\\nwhile True: pass")
    except KeyboardInterrupt:
        pass
sys.exit(130)
'''


def test_a_signal_inside_generated_code_still_exits_130(tmp_path):
    """CPython ends ``python -m`` by SIGINT (-2) after a bare KeyboardInterrupt passed through exec(),
    even a caught one: what a Ctrl-C during a fresh checkout's numba warm-up did to ``python -m train``."""
    (tmp_path / "stopped_in_exec.py").write_text(STOPPED_IN_GENERATED_CODE)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-m", "stopped_in_exec"], cwd=tmp_path, env=env, timeout=60,
                          capture_output=True, text=True)
    assert proc.returncode == 130, proc.stderr
