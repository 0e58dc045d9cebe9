# Two entry points for a fresh machine: `make run` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
PACKAGES := -e ./client -e ./shared[test] -e ./services/verifier[test] -e ./services/synth -e ./services/trainer -e ./services/eval -e ./services/loop
DEPLOY_TEST_REQUIREMENTS := deploy/requirements-test.txt
PYTEST_ARGS ?=

.PHONY: install run test test-all bench clean

$(STAMP): client/pyproject.toml shared/pyproject.toml services/*/pyproject.toml $(DEPLOY_TEST_REQUIREMENTS)
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
	$(PY) -m pip install --quiet $(PACKAGES) -r $(DEPLOY_TEST_REQUIREMENTS)
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

# Images: `make images` builds every image under one tag; `make push REGISTRY=registry.example.com/team
# TAG=0.1.0` builds and pushes them there. TAG defaults to the release the manifests name
# (k8s/*/kustomization.yaml images); never `latest`. `make k8s-overlay REGISTRY=... TAG=...` writes
# deploy/overlay/{verifier,training}/kustomization.yaml, which point k8s/ and k8s/training/ at those images:
#   kubectl apply -k deploy/overlay/verifier && kubectl apply -k deploy/overlay/training
REGISTRY ?=
TAG ?= 0.1.0
IMAGE_PREFIX = $(if $(REGISTRY),$(REGISTRY)/,)
# name:build arguments (a Dockerfile target of ./Dockerfile, or another Dockerfile)
IMAGES := verifier:--target=verifier synth:--target=synth eval:--target=eval workspace:--target=workspace \
	trainer:--file=Dockerfile.trainer trainer-cpu:--file=Dockerfile.trainer-cpu
K8S_IMAGES := verifier synth eval trainer

.PHONY: images push k8s-overlay
images:
	@test "$(TAG)" != latest || { echo "error: TAG=latest is mutable; give a version" >&2; exit 2; }
	@set -e; for spec in $(IMAGES); do \
		name=$${spec%%:*}; args=$${spec#*:}; \
		echo "== $(IMAGE_PREFIX)vrpcoder-$$name:$(TAG)"; \
		docker build $$args -t "$(IMAGE_PREFIX)vrpcoder-$$name:$(TAG)" .; \
	done

push: images
	@test -n "$(REGISTRY)" || { echo "error: give REGISTRY=host[/path] to push to" >&2; exit 2; }
	@set -e; for spec in $(IMAGES); do docker push "$(REGISTRY)/vrpcoder-$${spec%%:*}:$(TAG)"; done

k8s-overlay:
	@test -n "$(REGISTRY)" || { echo "error: give REGISTRY=host[/path] (where make push put the images)" >&2; exit 2; }
	@set -e; for part in verifier:k8s training:k8s/training; do \
		dir=deploy/overlay/$${part%%:*}; mkdir -p $$dir; \
		{ echo "# written by make k8s-overlay REGISTRY=$(REGISTRY) TAG=$(TAG)"; \
		  echo "apiVersion: kustomize.config.k8s.io/v1beta1"; echo "kind: Kustomization"; \
		  echo "resources: [../../../$${part#*:}]"; echo "images:"; \
		  for name in $(K8S_IMAGES); do \
			echo "  - {name: vrpcoder-$$name, newName: $(REGISTRY)/vrpcoder-$$name, newTag: \"$(TAG)\"}"; done; \
		} > $$dir/kustomization.yaml; echo "wrote $$dir/kustomization.yaml"; \
	done
