# Two entry points a fresh clone needs: `make train` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
TORCH_VERSION ?= 2.13.0
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu
CONFIG ?= configs/skat_ppo.yaml

.PHONY: install train test test-ray bench lint clean

$(PY):
	python3 -m venv $(VENV)

# torch first, CPU build, unless the venv has a torch already (a GPU build a user put there):
# a wheel already on this disk (find-links) if there is one, else PyTorch's CPU index, else
# whatever pip finds. Then the project with its dev extras.
$(VENV)/.installed: pyproject.toml | $(PY)
	@if $(PY) -c "import torch" >/dev/null 2>&1; then \
	  echo "torch already in $(VENV): keeping it"; \
	elif $(PIP) download --no-index --no-deps -q -d $(VENV)/.torch-probe "torch==$(TORCH_VERSION)" >/dev/null 2>&1; then \
	  $(PIP) install -q "torch==$(TORCH_VERSION)"; \
	elif $(PIP) install -q "torch==$(TORCH_VERSION)" --index-url $(TORCH_CPU_INDEX) --extra-index-url https://pypi.org/simple; then :; \
	else $(PIP) install -q "torch>=2.4"; fi
	rm -rf $(VENV)/.torch-probe
	$(PIP) install -q -e ".[dev,play,exploitability]"
	touch $@

install: $(VENV)/.installed

train: install
	$(PY) -m train --config $(CONFIG)

test: install
	$(PY) -m pytest -n 2

# The Ray runtime and RLlib tests (marked `ray`, not in `make test`): the ray extra is ~520 MB.
test-ray: install
	$(PIP) install -q -e ".[dev,ray]"
	$(PY) -m pytest -m ray

bench: install
	$(PY) -m train.bench env all

lint: install
	$(VENV)/bin/ruff check envs agents arena train play tests

clean:
	rm -rf $(VENV) runs .pytest_cache
