#!/usr/bin/env bash
# Smoke test of the real stack, as a user deploys it (needs Docker; not part of `make test`).
#
#   deploy/smoke.sh [--offline] [--keep] [--port N] [--project NAME]
#
# 1. builds the verifier image (Dockerfile target `verifier`) and prints its size;
# 2. brings up Redis, the API and two workers with docker-compose.yml as it is (read-only roots,
#    all capabilities dropped, no-new-privileges, uid 10001; only the workers leave seccomp);
# 3. waits until compose reports the API healthy (its healthcheck is /readyz);
# 4. from a container on the stack's network, verifies a gold script (reward 1.0), a hostile write
#    to /etc (sandbox_violation) and a script that loops forever (timeout) through the API, and
#    checks /readyz (2 workers with a working sandbox; no worker names without a token) and /metrics;
# 5. checks the logs: an API access line per request, a worker line per job for all three jobs,
#    and no candidate text nor token anywhere;
# 6. runs the synth and eval jobs through the stack as compose ships them, on fresh data folders
#    that Docker creates (the data-dirs step hands them to uid 10001), with one token: synth
#    writes a one-variant dataset, eval builds 3 items of benchmark 1 and runs them against a
#    stand-in model (deploy/smoke_model.py), every item verified by the stack;
# 7. tears everything down (unless --keep).
#
# --offline   for a Docker that cannot pull from a registry: builds the two base images from
#             Debian packages (deploy/offline-bases.sh: debootstrap + docker import) unless they
#             exist, and uses them. Image builds always use host networking.
# Exit status 0 when every check held.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OFFLINE=0
KEEP=0
PORT="${VRPCODER_API_PORT:-8000}"
PROJECT="vrpcoder-smoke"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --offline) OFFLINE=1; shift ;;
    --keep) KEEP=1; shift ;;
    --port) PORT="$2"; shift 2 ;;
    --project) PROJECT="$2"; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
done

command -v docker >/dev/null || { echo "error: docker not found" >&2; exit 2; }
docker info >/dev/null 2>&1 || { echo "error: no Docker engine answers (is dockerd running?)" >&2; exit 2; }
if docker compose version >/dev/null 2>&1; then
  COMPOSE=(docker compose)
elif command -v docker-compose >/dev/null; then
  COMPOSE=(docker-compose)
else
  echo "error: neither 'docker compose' nor 'docker-compose' is installed" >&2; exit 2
fi

step() { printf '\n== %s  (%s)\n' "$1" "$(date -u +%H:%M:%S)"; }

if [[ $OFFLINE -eq 1 ]]; then
  export VRPCODER_PYTHON_IMAGE="vrpcoder-base/python:bookworm" VRPCODER_REDIS_IMAGE="vrpcoder-base/redis:bookworm"
  if ! docker image inspect "$VRPCODER_PYTHON_IMAGE" "$VRPCODER_REDIS_IMAGE" >/dev/null 2>&1; then
    step "building base images from Debian packages"
    "$ROOT/deploy/offline-bases.sh"
  fi
fi
export VRPCODER_API_PORT="$PORT"
TOKEN="smoke-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export VRPCODER_VERIFIER_API_TOKENS="$TOKEN" VRPCODER_VERIFIER_TOKEN="$TOKEN"
export VRPCODER_TAG="${VRPCODER_TAG:-smoke}"
IMAGE="vrpcoder-verifier:$VRPCODER_TAG"
DATA="$(mktemp -d)"
# Folders that do not exist yet: Docker creates bind sources as root, the data-dirs step must fix that.
export VRPCODER_SYNTH_DATA="$DATA/synth-data" VRPCODER_EVAL_DATA="$DATA/eval-data"
compose() { "${COMPOSE[@]}" -p "$PROJECT" -f "$ROOT/docker-compose.yml" "$@"; }

teardown() {
  if [[ $KEEP -eq 0 ]]; then
    step "tearing down"
    compose down --volumes --remove-orphans >/dev/null 2>&1 || true
    docker rm -f "$PROJECT-model" >/dev/null 2>&1 || true
    rm -rf "$DATA"
  fi
}
trap teardown EXIT

step "building $IMAGE (base ${VRPCODER_PYTHON_IMAGE:-python:3.11-slim})"
started=$SECONDS
docker build --network host --target verifier \
  --build-arg PYTHON_IMAGE="${VRPCODER_PYTHON_IMAGE:-python:3.11-slim}" -t "$IMAGE" "$ROOT" >/tmp/"$PROJECT"-build.log 2>&1 \
  || { tail -30 /tmp/"$PROJECT"-build.log; exit 1; }
echo "built in $((SECONDS - started)) s; size: $(docker image inspect -f '{{.Size}}' "$IMAGE" | awk '{printf "%.0f MB", $1/1e6}')"
for target in synth eval; do
  docker build --network host --target "$target" \
    --build-arg PYTHON_IMAGE="${VRPCODER_PYTHON_IMAGE:-python:3.11-slim}" -t "vrpcoder-$target:$VRPCODER_TAG" "$ROOT" \
    >>/tmp/"$PROJECT"-build.log 2>&1 || { tail -30 /tmp/"$PROJECT"-build.log; exit 1; }
  echo "vrpcoder-$target: $(docker image inspect -f '{{.Size}}' "vrpcoder-$target:$VRPCODER_TAG" | awk '{printf "%.0f MB", $1/1e6}')"
done

step "starting redis, verifier-api and 2 verifier-workers"
compose up -d --no-build --scale verifier-worker=2 redis verifier-api verifier-worker

step "waiting for the API's healthcheck (/readyz)"
api_container="$(compose ps -q verifier-api)"
for _ in $(seq 1 90); do
  health="$(docker inspect -f '{{.State.Health.Status}}' "$api_container")"
  [[ "$health" == "healthy" ]] && break
  sleep 2
done
echo "verifier-api: $health"
[[ "$health" == "healthy" ]] || { compose logs --no-color --tail 40; exit 1; }
echo "GET /readyz from the host: $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/readyz")"

step "verifying gold, hostile write and loop through the API"
network="$(docker inspect -f '{{range $k, $v := .NetworkSettings.Networks}}{{$k}} {{end}}' "$api_container" | tr ' ' '\n' | grep frontend)"
set +e
docker run --rm --network "$network" --read-only --tmpfs /tmp --cap-drop ALL --security-opt no-new-privileges:true \
  -w /tmp -v "$ROOT/deploy/smoke_client.py:/smoke/smoke_client.py:ro" --entrypoint python "$IMAGE" \
  /smoke/smoke_client.py --url http://verifier-api:8000 --token "$TOKEN" >/tmp/"$PROJECT"-client.txt
client_status=$?
set -e
# the report is the JSON document at the end (Gurobi prints its licence banner on stdout before it)
sed -n '/^{$/,$p' /tmp/"$PROJECT"-client.txt >/tmp/"$PROJECT"-report.json
cat /tmp/"$PROJECT"-report.json

step "logs"
compose logs --no-color verifier-api verifier-worker >/tmp/"$PROJECT"-logs.txt 2>&1
failures=0
check() { if eval "$2"; then echo "ok    $1"; else echo "FAIL  $1"; failures=$((failures + 1)); fi; }
field() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r['cases'][sys.argv[2]][sys.argv[3]])" \
  /tmp/"$PROJECT"-report.json "$1" "$2"; }
check "API access line for POST /v1/verify" "grep -q 'vrpcoder_verifier.access request method=POST path=/v1/verify status=' /tmp/$PROJECT-logs.txt"
for case in gold hostile_write loop; do
  job="$(field "$case" job_id)"
  line="$(grep -F "job=$job" /tmp/"$PROJECT"-logs.txt | grep -E 'job (done|failed)' | head -1)"
  check "worker line for the $case job ($job)" "[[ -n \"\$line\" ]]"
  [[ -n "$line" ]] && echo "      ${line}"
  check "no candidate text of the $case job in the logs" "! grep -qF \"$(field "$case" marker)\" /tmp/$PROJECT-logs.txt"
done
check "no bearer token in the logs" "! grep -qF \"$TOKEN\" /tmp/$PROJECT-logs.txt"
grep -E 'vrpcoder_verifier.access' /tmp/"$PROJECT"-logs.txt | grep -v 'path=/readyz\|path=/healthz' | head -12 || true

step "synth job (fresh $VRPCODER_SYNTH_DATA, one token)"
compose run --rm --no-deps data-dirs >/dev/null
check "data-dirs hands the synth folder to uid 10001" "[[ \$(stat -c %u '$VRPCODER_SYNTH_DATA') == 10001 ]]"
check "data-dirs hands the eval folder to uid 10001" "[[ \$(stat -c %u '$VRPCODER_EVAL_DATA') == 10001 ]]"
cat >"$VRPCODER_SYNTH_DATA/synth.toml" <<'TOML'
paths = ["scenario"]
mutants = false
[grid]
variants = ["CVRP"]
profiles = [1]
seeds = [0]
customers = 5
kinds = "base"
[teacher]
kind = "offline"
[verifier]
backend = "service"
time_limit = 30.0
batch_size = 8
TOML
chmod 644 "$VRPCODER_SYNTH_DATA/synth.toml"
check "synth job writes a dataset through the stack" \
  "compose run --rm synth >/tmp/$PROJECT-synth.txt 2>&1 && [[ -f '$VRPCODER_SYNTH_DATA/out/README.md' ]]"
tail -5 /tmp/"$PROJECT"-synth.txt

step "eval job (fresh $VRPCODER_EVAL_DATA, stand-in model)"
docker run -d --rm --name "$PROJECT-model" --network "$network" --network-alias smoke-model --read-only \
  --cap-drop ALL --security-opt no-new-privileges:true -v "$ROOT/deploy/smoke_model.py:/smoke/smoke_model.py:ro" \
  --entrypoint python "$IMAGE" /smoke/smoke_model.py --port 8001 >/dev/null
check "eval build writes benchmark 1 (3 items)" \
  "compose run --rm eval vrpcoder eval build /data/benchmarks --benchmarks 1 --b1-size 3 >/tmp/$PROJECT-eval.txt 2>&1"
eval_status=0
VRPCODER_EVAL_MODEL_URL=http://smoke-model:8001/v1 VRPCODER_EVAL_BENCHMARKS=1 VRPCODER_EVAL_RUN=smoke \
  compose run --rm eval >>/tmp/"$PROJECT"-eval.txt 2>&1 || eval_status=$?
check "eval run finishes" "[[ $eval_status -eq 0 ]]"
check "eval run verified every item" "[[ \$(wc -l <'$VRPCODER_EVAL_DATA/runs/smoke/results.jsonl') -eq 3 ]]"
check "no infrastructure fault in the eval results" "! grep -q infrastructure '$VRPCODER_EVAL_DATA/runs/smoke/results.jsonl'"
tail -5 /tmp/"$PROJECT"-eval.txt
compose logs --no-color verifier-api verifier-worker >/tmp/"$PROJECT"-logs.txt 2>&1
check "no bearer token in the logs after the jobs" "! grep -qF \"$TOKEN\" /tmp/$PROJECT-logs.txt"

echo
if [[ $client_status -eq 0 && $failures -eq 0 ]]; then
  echo "SMOKE PASSED"
else
  echo "SMOKE FAILED (client exit $client_status, $failures log check(s) failed)"
  exit 1
fi
