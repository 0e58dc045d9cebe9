"""The FastAPI application factory.

``create_app(settings)`` builds everything from one Settings object (no module-level globals), so
tests and the CLI can run apps with different limits side by side. Redis being down is the one
infrastructure fault a client should simply retry: it maps to 503 everywhere.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import redis
import redis.asyncio as aioredis
from fastapi import FastAPI, Request, status
from fastapi.responses import JSONResponse
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import NoBackoff
from redis.retry import Retry

from vrpcoder_verifier import __version__
from vrpcoder_verifier.api.core.limits import BodySizeLimit
from vrpcoder_verifier.api.core.metrics import Metrics
from vrpcoder_verifier.api.routes import api_router, health
from vrpcoder_verifier.api.service import LimitExceeded, UnknownSample, VerifierService
from vrpcoder_verifier.health import LicenceKind, probe_licence, sandbox_report
from vrpcoder_verifier.queue import make_queue
from vrpcoder_verifier.settings import Settings


def _clients(settings: Settings) -> tuple[aioredis.Redis, redis.Redis]:
    """No client-side retry loops: a down Redis should answer 503 now, not after seconds of backoff.

    The async client's read timeout must outlast the longest BLPOP a request may wait on (redis-py's
    default of 5 s would turn every longer wait into a spurious 503).
    """
    timeout = settings.redis_timeout_seconds
    async_client = aioredis.Redis.from_url(
        settings.redis_url,
        socket_connect_timeout=timeout,
        socket_timeout=settings.max_wait_seconds + 2 * timeout,
        retry=AsyncRetry(NoBackoff(), 0),
        max_connections=4096,
    )
    sync_client = redis.Redis.from_url(
        settings.redis_url, socket_connect_timeout=timeout, socket_timeout=timeout * 5, retry=Retry(NoBackoff(), 0)
    )
    return async_client, sync_client


async def _probe_licence(service: VerifierService) -> None:
    service.licence = await asyncio.to_thread(probe_licence)


def create_app_from_env() -> FastAPI:
    """The app of one of several uvicorn worker processes (``--workers``), configured from the environment."""
    return create_app(Settings())


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    if not settings.allow_anonymous and not settings.api_tokens:
        raise ValueError("no API tokens configured (VRPCODER_VERIFIER_API_TOKENS); set allow_anonymous for local use")

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async_client, sync_client = _clients(settings)
        service = VerifierService(
            settings=settings,
            async_redis=async_client,
            sync_redis=sync_client,
            queue=make_queue(sync_client, settings),
            metrics=Metrics(),
            sandbox=await asyncio.to_thread(sandbox_report),
            licence=LicenceKind.CHECKING.value if settings.check_licence else LicenceKind.DISABLED.value,
        )
        app.state.service = service
        tasks = [asyncio.create_task(service.reap_forever())]
        if settings.check_licence:
            tasks.append(asyncio.create_task(_probe_licence(service)))
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await async_client.aclose()
            sync_client.close()

    app = FastAPI(
        title="VRPCoder verifier",
        version=__version__,
        description=(
            "Dual verification (DIFF against the reference optimum, INJ of labelled probes) of gurobipy "
            "candidate scripts, run in a sandbox by a pool of rq workers. Verdicts are the shared library's "
            "`Verdict` model; an infrastructure fault carries reward null, never a silent zero."
        ),
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    app.include_router(health.router)
    app.include_router(api_router)

    @app.exception_handler(redis.exceptions.ConnectionError)
    @app.exception_handler(redis.exceptions.TimeoutError)
    async def redis_down(_request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse(
            status_code=status.HTTP_503_SERVICE_UNAVAILABLE,
            content={"detail": f"queue backend unavailable: {exc}"},
            headers={"Retry-After": "1"},
        )

    @app.exception_handler(UnknownSample)
    async def unknown_sample(_request: Request, exc: UnknownSample) -> JSONResponse:
        return JSONResponse(status_code=status.HTTP_404_NOT_FOUND, content={"detail": str(exc.args[0])})

    @app.exception_handler(LimitExceeded)
    async def limit_exceeded(_request: Request, exc: LimitExceeded) -> JSONResponse:
        return JSONResponse(status_code=status.HTTP_422_UNPROCESSABLE_ENTITY, content={"detail": str(exc)})

    return app
