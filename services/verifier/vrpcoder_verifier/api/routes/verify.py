"""POST /v1/verify and /v1/verify/batch: 200 with verdicts when they came in time, else 202.

The service hands back the JSON bodies ready-made (cache hits carry the stored verdict as it is), so
the routes return them as they are; ``response_model`` still documents them in the OpenAPI schema.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response, status

from vrpcoder_verifier.api.deps import Authorized, ServiceDep
from vrpcoder_verifier.api.service import batch_body
from vrpcoder_verifier.schemas import BatchRequest, BatchResponse, VerifyRequest, VerifyResult

router = APIRouter(tags=["verify"], dependencies=[Authorized])

_PENDING: dict[int | str, dict[str, Any]] = {202: {"description": "Not finished within the wait; poll GET /v1/jobs/{id}."}}


@router.post("/verify", response_model=VerifyResult, responses=_PENDING)
async def verify(request: VerifyRequest, service: ServiceDep) -> Response:
    """Verify one candidate against an inline or registered sample, waiting up to ``wait`` seconds."""
    answer = await service.verify(request)
    return _json(answer.body, done=answer.done)


@router.post("/verify/batch", response_model=BatchResponse, responses=_PENDING)
async def verify_batch(request: BatchRequest, service: ServiceDep) -> Response:
    """Verify a group of candidates; results come back in request order (202 if any is still pending)."""
    answers = await service.verify_batch(request)
    return _json(batch_body(answers), done=all(a.done for a in answers))


def _json(body: bytes, *, done: bool) -> Response:
    return Response(
        content=body,
        media_type="application/json",
        status_code=status.HTTP_200_OK if done else status.HTTP_202_ACCEPTED,
    )
