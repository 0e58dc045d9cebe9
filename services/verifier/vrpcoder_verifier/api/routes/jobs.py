"""GET /v1/jobs/{id}: the state of a job, with its verdict once finished."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, status

from vrpcoder_verifier.api.deps import Authorized, ServiceDep
from vrpcoder_verifier.schemas import VerifyResult

router = APIRouter(tags=["jobs"], dependencies=[Authorized])

JobId = Annotated[str, Path(pattern=r"^[0-9a-f]{32}$", description="Job id from a 202 answer.")]


@router.get("/jobs/{job_id}", response_model=VerifyResult, responses={404: {"description": "Unknown or expired job."}})
async def get_job(job_id: JobId, service: ServiceDep) -> VerifyResult:
    result = await service.job(job_id)
    if result is None:
        raise HTTPException(status_code=status.HTTP_404_NOT_FOUND, detail=f"no job {job_id} (unknown or expired)")
    return result
