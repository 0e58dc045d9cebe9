#!/usr/bin/env bash
# Build the two base images the stack needs from Debian packages, for a machine whose Docker cannot
# pull from a registry (no Docker Hub) but whose apt mirror and PyPI are reachable.
#
#   deploy/offline-bases.sh [--mirror URL] [--suite bookworm]
#
# Produces, from one `debootstrap --variant=minbase` root imported with `docker import`:
#   vrpcoder-base/debian:<suite>      the bare root file system
#   vrpcoder-base/python:<suite>      Debian's Python 3.11 with pip: stands in for python:3.11-slim
#   vrpcoder-base/redis:<suite>       Debian's redis-server: stands in for redis:7-alpine
# Use them with:  VRPCODER_PYTHON_IMAGE=vrpcoder-base/python:bookworm
#                 VRPCODER_REDIS_IMAGE=vrpcoder-base/redis:bookworm   (deploy/smoke.sh --offline sets both)
#
# Builds run with host networking (the bridge may have no route out). Certificates added to the
# host's trust store (/usr/local/share/ca-certificates, e.g. a TLS-inspecting proxy's CA) are
# trusted in the Python base too, and pip is pointed at the system bundle, so `pip install` in
# the Dockerfile works wherever it works on the host. Needs root, debootstrap and docker.
set -euo pipefail

MIRROR="http://deb.debian.org/debian"
SUITE="bookworm"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --mirror) MIRROR="$2"; shift 2 ;;
    --suite) SUITE="$2"; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
done

for tool in debootstrap docker tar; do
  command -v "$tool" >/dev/null || { echo "error: $tool not found (apt-get install -y debootstrap docker.io)" >&2; exit 2; }
done
[[ $(id -u) -eq 0 ]] || { echo "error: debootstrap needs root" >&2; exit 2; }

BASE="vrpcoder-base/debian:${SUITE}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

if ! docker image inspect "$BASE" >/dev/null 2>&1; then
  echo "== debootstrap ${SUITE} (minbase) from ${MIRROR}"
  debootstrap --variant=minbase "$SUITE" "$WORK/rootfs" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 \
    || { tail -20 "$WORK/debootstrap.log" >&2; exit 1; }
  # what a container never needs: apt's downloaded packages and lists, documentation, man pages
  rm -rf "$WORK"/rootfs/var/cache/apt/archives/*.deb "$WORK"/rootfs/var/lib/apt/lists/* \
         "$WORK"/rootfs/usr/share/doc/* "$WORK"/rootfs/usr/share/man/*
  echo "== docker import ${BASE}"
  tar -C "$WORK/rootfs" -c . | docker import --change 'CMD ["/bin/bash"]' - "$BASE" >/dev/null
fi

# Extra CAs of the host (if any) go into the Python base's trust store.
mkdir -p "$WORK/python/extra-ca"
cp /usr/local/share/ca-certificates/*.crt "$WORK/python/extra-ca/" 2>/dev/null || true

cat >"$WORK/python/Dockerfile" <<DOCKERFILE
FROM ${BASE}
COPY extra-ca/ /usr/local/share/ca-certificates/
RUN apt-get update \\
    && apt-get install --no-install-recommends -y python3 python3-pip python-is-python3 ca-certificates \\
    && update-ca-certificates \\
    && rm -f /usr/lib/python3*/EXTERNALLY-MANAGED \\
    && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/log/apt/* /var/log/dpkg.log
ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt \\
    PIP_DISABLE_PIP_VERSION_CHECK=1 \\
    LANG=C.UTF-8
CMD ["python3"]
DOCKERFILE

mkdir -p "$WORK/redis"
cat >"$WORK/redis/Dockerfile" <<DOCKERFILE
FROM ${BASE}
# uid/gid 999 as in the official image (compose and k8s/redis.yaml run Redis as that user); the
# package's own adduser then finds the user already there.
RUN groupadd --system --gid 999 redis \\
    && useradd --system --uid 999 --gid redis --home-dir /var/lib/redis --shell /usr/sbin/nologin redis \\
    && apt-get update \\
    && apt-get install --no-install-recommends -y redis-server \\
    && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/log/apt/* /var/log/dpkg.log \\
    && mkdir -p /data && chown redis:redis /data
WORKDIR /data
USER redis
EXPOSE 6379
CMD ["redis-server", "--protected-mode", "no"]
DOCKERFILE

echo "== build vrpcoder-base/python:${SUITE}"
docker build --network host -q -t "vrpcoder-base/python:${SUITE}" "$WORK/python" >/dev/null
echo "== build vrpcoder-base/redis:${SUITE}"
docker build --network host -q -t "vrpcoder-base/redis:${SUITE}" "$WORK/redis" >/dev/null
docker image ls --format '{{.Repository}}:{{.Tag}}  {{.Size}}' | grep '^vrpcoder-base/'
