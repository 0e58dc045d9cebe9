# The workspace's images, as two targets that share their lower layers:
#   verifier   the shared library, the light client and the verifier service, which compose and
#              k8s run with different commands (`docker build --target verifier .`):
#                vrpcoder verifier api --host 0.0.0.0 --port 8000   |   vrpcoder verifier worker
#   synth      the verifier target plus the synthesis service
#   eval       the synth target plus the evaluation service (HTTP only: no torch)
#   workspace  (the default: last stage) the verifier target plus the synth, trainer and eval
#              services, the trainer's torch and transformers included (several GB)
# The verifier stage comes first so that even Docker's legacy builder, which builds every stage
# before the target, never builds the trainer's dependencies for a verifier image.
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
# Left out of the layer: the libraries' own test suites (numpy's and scipy's are 50 MB; nothing
# imports them at run time) and Swagger UI's source maps (5 MB, for a browser's developer tools).
RUN pip install --no-cache-dir ./client ./shared ./services/verifier \
    && find "$(python -c 'import os, numpy; print(os.path.dirname(os.path.dirname(numpy.__file__)))')" \
        -depth -type d -name tests -exec rm -rf {} + \
    && find "$(python -c 'import swagger_ui_bundle; print(swagger_ui_bundle.swagger_ui_path)')" -name '*.map' -delete
USER 10001
EXPOSE 8000
ENTRYPOINT ["vrpcoder"]
CMD ["--help"]

# synth: the verifier target plus the synthesis service (`docker build --target synth .`), light
# enough for a synthesis job: `vrpcoder synth run --config ... --out ...`.
FROM verifier AS synth
USER root
COPY services/synth/ services/synth/
RUN pip install --no-cache-dir ./services/synth
USER 10001

# eval: the synth target plus the evaluation service (`docker build --target eval .`). Evaluation
# only calls HTTP (a model endpoint and the verifier), so it needs neither torch nor CUDA.
FROM synth AS eval
USER root
COPY services/eval/ services/eval/
RUN pip install --no-cache-dir ./services/eval
USER 10001

FROM verifier AS workspace
USER root
COPY services/ services/
RUN pip install --no-cache-dir ./services/synth ./services/trainer ./services/eval
USER 10001
