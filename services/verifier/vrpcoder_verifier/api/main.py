"""The FastAPI application factory.

``create_app(settings)`` builds everything from one Settings object (no module-level globals), so
tests and the CLI can run apps with different limits side by side. The infrastructure faults a
client should simply retry map to 503 with ``Retry-After``: Redis away, and this process shutting
down (SIGTERM: a rolling restart). On SIGTERM the process wakes every request still waiting for
verdicts, answers it 503 at once (its jobs go on), and refuses new ones, instead of holding them
until uvicorn's grace runs out and cancelling them as 500s.

The interactive docs at /docs load Swagger UI's script and style from the installed
``swagger_ui_bundle`` package, never from a CDN: a cluster without internet access would otherwise
show a blank page. ReDoc (which has no offline bundle on PyPI) is not served.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import AsyncIterator, Callable
from types import FrameType

import redis
import redis.asyncio as aioredis
import swagger_ui_bundle
from fastapi import FastAPI, Request, status
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import NoBackoff
from redis.retry import Retry

from vrpcoder_verifier import __version__
from vrpcoder_verifier.api.core.access_log import AccessLog
from vrpcoder_verifier.api.core.limits import BodySizeLimit, validation_error
from vrpcoder_verifier.api.core.metrics import Metrics
from vrpcoder_verifier.api.routes import api_router, health
from vrpcoder_verifier.api.service import LimitExceeded, ShuttingDown, UnknownSample, VerifierService
from vrpcoder_verifier.health import LicenceKind, probe_licence, sandbox_report
from vrpcoder_verifier.logs import configure_logging
from vrpcoder_verifier.jobs import make_queue
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


def _drain_on_signals(service: VerifierService) -> None:
    """Chain a handler in front of uvicorn's for SIGTERM and SIGINT that starts the service's
    draining on the event loop. Only where uvicorn installed its own (the main thread of a served
    process): an app under a test client keeps the process's handlers as they are."""
    if threading.current_thread() is not threading.main_thread():
        return
    loop = asyncio.get_running_loop()
    tasks: set[asyncio.Task[None]] = set()

    def begin() -> None:
        task = loop.create_task(service.begin_draining())
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    for sig in (signal.SIGTERM, signal.SIGINT):
        previous = signal.getsignal(sig)
        if callable(previous):
            signal.signal(sig, _chained(previous, lambda: loop.call_soon_threadsafe(begin)))


def _chained(
    previous: Callable[[int, FrameType | None], object], first: Callable[[], object]
) -> Callable[[int, FrameType | None], None]:
    def handler(signum: int, frame: FrameType | None) -> None:
        first()
        previous(signum, frame)

    return handler


DOCS_ASSETS = "/docs/assets"
"""Where Swagger UI's files are served from (the ``swagger_ui_bundle`` package's folder)."""


def create_app_from_env() -> FastAPI:
    """The app of one of several uvicorn worker processes (``--workers``), configured from the environment."""
    settings = Settings()
    configure_logging(settings.log_level, settings.log_json)
    return create_app(settings)


def _serve_docs(app: FastAPI) -> None:
    """Swagger UI at /docs from files inside the image: no request leaves the cluster."""
    app.mount(DOCS_ASSETS, StaticFiles(directory=swagger_ui_bundle.swagger_ui_path), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def docs(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_swagger_ui_html(
            openapi_url=f"{root}{app.openapi_url}",
            title=f"{app.title} - Swagger UI",
            swagger_js_url=f"{root}{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{root}{DOCS_ASSETS}/favicon-32x32.png",
        )


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
        _drain_on_signals(service)
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
        docs_url=None,
        redoc_url=None,
    )
    app.state.settings = settings
    _serve_docs(app)
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    if settings.access_log:
        app.add_middleware(AccessLog)  # added last, so outermost: it sees the 413s of the size limit too
    app.include_router(health.router)
    app.include_router(api_router)
    app.add_exception_handler(RequestValidationError, validation_error)  # a brief echo of the input, never all 7 MB

    @app.exception_handler(redis.exceptions.ConnectionError)
    @app.exception_handler(redis.exceptions.TimeoutError)
    async def redis_down(_request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse(
            status_code=status.HTTP_503_SERVICE_UNAVAILABLE,
            content={"detail": f"queue backend unavailable: {exc}"},
            headers={"Retry-After": str(settings.retry_after_seconds)},
        )

    @app.exception_handler(ShuttingDown)
    async def shutting_down(_request: Request, exc: ShuttingDown) -> JSONResponse:
        return JSONResponse(
            status_code=status.HTTP_503_SERVICE_UNAVAILABLE,
            content={"detail": str(exc), "job_ids": exc.job_ids},
            headers={"Retry-After": str(settings.retry_after_seconds)},
        )

    @app.exception_handler(UnknownSample)
    async def unknown_sample(_request: Request, exc: UnknownSample) -> JSONResponse:
        return JSONResponse(status_code=status.HTTP_404_NOT_FOUND, content={"detail": str(exc.args[0])})

    @app.exception_handler(LimitExceeded)
    async def limit_exceeded(_request: Request, exc: LimitExceeded) -> JSONResponse:
        return JSONResponse(status_code=status.HTTP_422_UNPROCESSABLE_ENTITY, content={"detail": str(exc)})

    return app
