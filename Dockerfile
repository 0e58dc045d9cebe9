# One image for the whole workspace: the shared library, the CLI and (later) every service.
FROM python:3.11-slim

RUN useradd --create-home --uid 10001 vrpcoder
WORKDIR /app
COPY shared/ shared/
COPY services/ services/
RUN pip install --no-cache-dir ./shared ./services/verifier ./services/synth ./services/trainer ./services/eval

USER vrpcoder
ENTRYPOINT ["vrpcoder"]
CMD ["--help"]
