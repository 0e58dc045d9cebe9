"""POST /v1/verify and /v1/verify/batch: 200 with verdicts when they came in time, else 202."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response, status

from vrpcoder_verifier.api.deps import Authorized, ServiceDep
from vrpcoder_verifier.schemas import BatchRequest, BatchResponse, VerifyRequest, VerifyResult

router = APIRouter(tags=["verify"], dependencies=[Authorized])

_PENDING: dict[int | str, dict[str, Any]] = {202: {"description": "Not finished within the wait; poll GET /v1/jobs/{id}."}}


@router.post("/verify", response_model=VerifyResult, responses=_PENDING)
async def verify(request: VerifyRequest, service: ServiceDep, response: Response) -> VerifyResult:
    """Verify one candidate against an inline or registered sample, waiting up to ``wait`` seconds."""
    result = await service.verify(request)
    if not result.done:
        response.status_code = status.HTTP_202_ACCEPTED
    return result


@router.post("/verify/batch", response_model=BatchResponse, responses=_PENDING)
async def verify_batch(request: BatchRequest, service: ServiceDep, response: Response) -> BatchResponse:
    """Verify a group of candidates; results come back in request order (202 if any is still pending)."""
    batch = await service.verify_batch(request)
    if not batch.complete:
        response.status_code = status.HTTP_202_ACCEPTED
    return batch
