# Two entry points for a fresh machine: `make run` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
PACKAGES := -e ./client -e ./shared[test] -e ./services/verifier[test] -e ./services/synth -e ./services/trainer -e ./services/eval -e ./services/loop
PYTEST_ARGS ?=

.PHONY: install run test test-all bench clean

$(STAMP): client/pyproject.toml shared/pyproject.toml services/*/pyproject.toml
	@# Real parts the tests and the local stack need: Redis and bubblewrap (namespaces sandbox).
	@command -v redis-server >/dev/null && command -v bwrap >/dev/null || \
		( (apt-get update -qq && apt-get install -y -qq redis-server bubblewrap) >/dev/null 2>&1 || \
		  echo "warning: could not install redis-server / bubblewrap with apt-get" >&2 )
	@# Headless Chromium renders the eval report in its test (tests/eval/test_score.py; CI fails without it).
	@command -v chromium >/dev/null || \
		( (apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core) >/dev/null 2>&1 || \
		  echo "warning: could not install chromium with apt-get (the eval report test needs it)" >&2 )
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet $(PACKAGES)
	touch $(STAMP)

install: $(STAMP)

run: install
	$(VENV)/bin/vrpcoder verifier demo
	$(VENV)/bin/vrpcoder loop --out run-out

test: install
	$(VENV)/bin/pytest -m "not slow" $(PYTEST_ARGS)

test-all: install
	$(VENV)/bin/pytest $(PYTEST_ARGS)

clean:
	rm -rf $(VENV)

# Smoke test of the real stack in Docker (not part of `make test`): build, compose up, verify, tear down.
# SMOKE_ARGS=--offline builds the base images from Debian packages where no registry is reachable.
.PHONY: compose-smoke
compose-smoke:
	deploy/smoke.sh $(SMOKE_ARGS)
