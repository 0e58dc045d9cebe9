"""Unversioned operational endpoints: liveness, readiness and Prometheus metrics (no auth)."""

from __future__ import annotations

from fastapi import APIRouter, Response, status

from vrpcoder_verifier.api.deps import ServiceDep
from vrpcoder_verifier.schemas import ReadyReport

router = APIRouter(tags=["health"])


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """The process answers; says nothing about Redis or workers (that is /readyz)."""
    return {"status": "ok"}


@router.get("/readyz", response_model=ReadyReport, responses={503: {"model": ReadyReport}})
async def readyz(service: ServiceDep, response: Response) -> ReadyReport:
    report = await service.ready()
    if not report.ready:
        response.status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    return report


@router.get("/metrics", response_class=Response)
async def metrics(service: ServiceDep) -> Response:
    from prometheus_client import CONTENT_TYPE_LATEST

    return Response(content=await service.render_metrics(), media_type=CONTENT_TYPE_LATEST)
