"""POST /v1/verify and /v1/verify/batch: 200 with verdicts when they came in time, else 202.

The service hands back the JSON bodies ready-made (cache hits carry the stored verdict as it is), so
the routes return them as they are; ``response_model`` still documents them in the OpenAPI schema.
The descriptions below are what a client reads in /docs: how long a job may run, and that every
item of a batch is a job of its own.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response, status

from vrpcoder_verifier.api.core.limits import FiniteJSONRoute
from vrpcoder_verifier.api.deps import Authorized, IdempotencyKey, ServiceDep, check_sample
from vrpcoder_verifier.api.service import batch_body
from vrpcoder_verifier.schemas import BatchRequest, BatchResponse, VerifyRequest, VerifyResult

router = APIRouter(tags=["verify"], dependencies=[Authorized], route_class=FiniteJSONRoute)

_PENDING: dict[int | str, dict[str, Any]] = {
    202: {"description": "Not finished within the wait; poll GET /v1/jobs/{id}."},
    503: {"description": "Redis is away or this API process is shutting down: retry after `Retry-After` "
          "seconds with the same Idempotency-Key (the jobs already made are not run again)."},
}


_TIME_LIMITS = (
    "Each candidate is one job, with a wall limit derived from `options.time_limit`: "
    "`job_build_seconds + time_limit * (probes + 2) + job_grace_seconds` (the candidate's build, its solve, "
    "one query per probe and one control query, and the service's own work), at most the service's "
    "`sandbox_wall_seconds`. A job past it (say, a loop in `build_model`) ends as a `timeout` verdict."
)


@router.post("/verify", response_model=VerifyResult, responses=_PENDING, description=(
    "Verify one candidate against an inline or registered sample, waiting up to `wait` seconds. " + _TIME_LIMITS
))
async def verify(request: VerifyRequest, service: ServiceDep, idempotency_key: IdempotencyKey = None) -> Response:
    """Verify one candidate against an inline or registered sample, waiting up to ``wait`` seconds."""
    if request.sample is not None:
        check_sample(request.sample, ("body", "sample"))
    answer = await service.verify(request, idempotency_key)
    return _json(answer.body, done=answer.done)


@router.post("/verify/batch", response_model=BatchResponse, responses=_PENDING, description=(
    "Verify a group of candidates; results come back in request order (202 if any is still pending). "
    "Items are independent: a slow or looping item holds one worker and delays no other item's verdict. "
    + _TIME_LIMITS
))
async def verify_batch(request: BatchRequest, service: ServiceDep, idempotency_key: IdempotencyKey = None) -> Response:
    """Verify a group of candidates; results come back in request order (202 if any is still pending)."""
    for index, sample in enumerate(request.samples):
        check_sample(sample, ("body", "samples", index))
    answers = await service.verify_batch(request, idempotency_key)
    return _json(batch_body(answers), done=all(a.done for a in answers))


def _json(body: bytes, *, done: bool) -> Response:
    return Response(
        content=body,
        media_type="application/json",
        status_code=status.HTTP_200_OK if done else status.HTTP_202_ACCEPTED,
    )
