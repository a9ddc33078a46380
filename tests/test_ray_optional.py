"""Ray is optional: the default runtime never imports it, and runtime=ray without it says what to install."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from train.config import ConfigError, load_config


def test_default_runtime_does_not_import_ray():
    code = "import sys, train.__main__, train.trainer, envs; assert 'ray' not in sys.modules, 'ray imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_runtime_ray_without_ray_names_the_extra(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a))
    with pytest.raises(ConfigError, match=r"pip install -e '\.\[ray\]'"):
        load_config(overrides=["runtime=ray"])
    assert load_config(overrides=["runtime=local"]).runtime == "local"


def test_unknown_runtime_is_an_error():
    with pytest.raises(ConfigError, match="runtime"):
        load_config(overrides=["runtime=spark"])
