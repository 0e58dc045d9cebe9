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
# 6. tears everything down (unless --keep).
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
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
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
export VRPCODER_VERIFIER_API_TOKENS="$TOKEN"
IMAGE="vrpcoder-verifier:latest"
compose() { "${COMPOSE[@]}" -p "$PROJECT" -f "$ROOT/docker-compose.yml" "$@"; }

teardown() {
  if [[ $KEEP -eq 0 ]]; then
    step "tearing down"
    compose down --volumes --remove-orphans >/dev/null 2>&1 || true
  fi
}
trap teardown EXIT

step "building $IMAGE (base ${VRPCODER_PYTHON_IMAGE:-python:3.11-slim})"
started=$SECONDS
docker build --network host --target verifier \
  --build-arg PYTHON_IMAGE="${VRPCODER_PYTHON_IMAGE:-python:3.11-slim}" -t "$IMAGE" "$ROOT" >/tmp/"$PROJECT"-build.log 2>&1 \
  || { tail -30 /tmp/"$PROJECT"-build.log; exit 1; }
echo "built in $((SECONDS - started)) s; size: $(docker image inspect -f '{{.Size}}' "$IMAGE" | awk '{printf "%.0f MB", $1/1e6}')"

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

echo
if [[ $client_status -eq 0 && $failures -eq 0 ]]; then
  echo "SMOKE PASSED"
else
  echo "SMOKE FAILED (client exit $client_status, $failures log check(s) failed)"
  exit 1
fi
