# The workspace's image, in two targets that share their lower layers:
#   verifier   the shared library, the light client and the verifier service (what compose and k8s run):
#                vrpcoder verifier api --host 0.0.0.0 --port 8000   |   vrpcoder verifier worker
#   workspace  (the default, last stage) the verifier target plus the synth, trainer and eval services
#
# PYTHON_IMAGE picks the base. Where no registry is reachable, deploy/offline-bases.sh builds a
# stand-in from Debian packages (debootstrap + docker import); deploy/smoke.sh --offline uses it.
ARG PYTHON_IMAGE=python:3.11-slim

FROM ${PYTHON_IMAGE} AS runtime
# bubblewrap: the namespaces the verifier's sandbox runs untrusted candidates in. apt's lists,
# caches and logs are removed in the same layer, or they would stay in the image for good.
RUN apt-get update \
    && apt-get install --no-install-recommends -y bubblewrap \
    && apt-get clean \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/log/apt/* /var/log/dpkg.log
RUN useradd --create-home --uid 10001 vrpcoder
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app

FROM runtime AS verifier
COPY client/ client/
COPY shared/ shared/
COPY services/verifier/ services/verifier/
# Byte code is compiled here, at build time: the root file system is read-only at run time.
# Swagger UI's source maps (5 MB) only serve a browser's developer tools.
RUN pip install --no-cache-dir ./client ./shared ./services/verifier \
    && find "$(python -c 'import swagger_ui_bundle; print(swagger_ui_bundle.swagger_ui_path)')" -name '*.map' -delete
USER 10001
EXPOSE 8000
ENTRYPOINT ["vrpcoder"]
CMD ["--help"]

FROM verifier AS workspace
USER root
COPY services/ services/
RUN pip install --no-cache-dir ./services/synth ./services/trainer ./services/eval
USER 10001
