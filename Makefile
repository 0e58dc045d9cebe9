# Two entry points for a fresh machine: `make run` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
PACKAGES := -e ./shared[test] -e ./services/verifier -e ./services/synth -e ./services/trainer -e ./services/eval
PYTEST_ARGS ?=

.PHONY: install run test test-all bench clean

$(STAMP): shared/pyproject.toml services/*/pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet $(PACKAGES)
	touch $(STAMP)

install: $(STAMP)

run: install
	$(VENV)/bin/vrpcoder demo

test: install
	$(VENV)/bin/pytest -m "not slow" $(PYTEST_ARGS)

test-all: install
	$(VENV)/bin/pytest $(PYTEST_ARGS)

clean:
	rm -rf $(VENV)
