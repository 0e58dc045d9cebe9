"""Unversioned operational endpoints: liveness, readiness and Prometheus metrics.

None of them needs a token (kubelets and scrapers have none), but worker names, versions and
sandbox details are shown only to a caller with a valid bearer token, or to everyone where
``public_worker_details`` says so: they tell a stranger which build runs on which host.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

import redis
from fastapi import APIRouter, Header, Response, status
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Gauge, generate_latest
from vrpcoder_client.schemas import ReadyReport, WorkerReport

from vrpcoder_verifier.api.core.security import may_see_worker_details
from vrpcoder_verifier.api.deps import ServiceDep, SettingsDep
from vrpcoder_verifier.health import without_identities

router = APIRouter(tags=["health"])

AuthorizationHeader = Annotated[
    str | None, Header(description="Optional bearer token: with a valid one, workers are shown by name and version")
]


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """Liveness: the process answers. Says nothing about Redis or workers (that is /readyz)."""
    return {"status": "ok"}


@router.get("/readyz", response_model=ReadyReport, responses={503: {"model": ReadyReport}})
async def readyz(
    service: ServiceDep, settings: SettingsDep, response: Response, authorization: AuthorizationHeader = None
) -> ReadyReport:
    """Readiness: 200 when Redis answers and at least one live worker can run candidates (its
    sandbox works), else 503. The API's own sandbox is reported but not required: the API never
    runs a candidate."""
    report = await service.ready()
    if not report.ready:
        response.status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    return report if may_see_worker_details(authorization, settings) else without_identities(report)


def worker_info(workers: Sequence[WorkerReport]) -> bytes:
    """``verifier_worker_info{name, version, sandbox, licence} 1`` for every live worker."""
    registry = CollectorRegistry()
    info = Gauge(
        "verifier_worker_info",
        "Live workers by name, version, sandbox mechanism and licence (1 per worker).",
        ["name", "version", "sandbox", "licence"],
        registry=registry,
    )
    for worker in workers:
        info.labels(
            name=worker.name, version=worker.version, sandbox=worker.sandbox.mechanism, licence=worker.licence
        ).set(1)
    return generate_latest(registry)


@router.get("/metrics", response_class=Response)
async def metrics(service: ServiceDep, settings: SettingsDep, authorization: AuthorizationHeader = None) -> Response:
    """Prometheus metrics; ``verifier_worker_info`` (names, versions) only with a token or when public."""
    body = await service.render_metrics()
    if may_see_worker_details(authorization, settings):
        try:
            body += worker_info(await service.workers())
        except redis.exceptions.RedisError:
            pass  # Redis away: the scrape still gets this process's own counters
    return Response(content=body, media_type=CONTENT_TYPE_LATEST)
