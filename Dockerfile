# One image for the whole workspace: the shared library, the CLI and every service.
# The verifier's API and workers run from this same image with different commands:
#   vrpcoder verifier api --host 0.0.0.0 --port 8000      |      vrpcoder verifier worker
FROM python:3.11-slim

# bubblewrap: the namespaces the verifier's sandbox runs untrusted candidates in.
RUN apt-get update \
    && apt-get install --no-install-recommends -y bubblewrap \
    && rm -rf /var/lib/apt/lists/*

RUN useradd --create-home --uid 10001 vrpcoder
WORKDIR /app
COPY shared/ shared/
COPY services/ services/
RUN pip install --no-cache-dir ./shared ./services/verifier ./services/synth ./services/trainer ./services/eval

USER 10001
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1
EXPOSE 8000
ENTRYPOINT ["vrpcoder"]
CMD ["--help"]
