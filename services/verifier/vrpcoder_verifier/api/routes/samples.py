"""POST /v1/samples: register a sample once and refer to it by its sha256 id afterwards."""

from __future__ import annotations

from fastapi import APIRouter, status
from vrpcoder.samples import Sample

from vrpcoder_verifier.api.deps import Authorized, ServiceDep
from vrpcoder_verifier.schemas import SampleRegistered

router = APIRouter(tags=["samples"], dependencies=[Authorized])


@router.post("/samples", response_model=SampleRegistered, status_code=status.HTTP_201_CREATED)
async def register_sample(sample: Sample, service: ServiceDep) -> SampleRegistered:
    return await service.register_sample(sample)
