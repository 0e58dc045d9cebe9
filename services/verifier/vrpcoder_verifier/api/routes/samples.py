"""POST /v1/samples: register a sample once and refer to it by its sha256 id afterwards."""

from __future__ import annotations

from fastapi import APIRouter, status
from vrpcoder.samples import Sample

from vrpcoder_verifier.api.core.limits import FiniteJSONRoute
from vrpcoder_verifier.api.deps import Authorized, ServiceDep, check_sample
from vrpcoder_verifier.schemas import SampleRegistered

router = APIRouter(tags=["samples"], dependencies=[Authorized], route_class=FiniteJSONRoute)


@router.post(
    "/samples", response_model=SampleRegistered, status_code=status.HTTP_201_CREATED,
    description="Register a sample; refused with 422 (and the path of each misfit) when its probes or node map "
    "name nodes, depots or vehicles its instance does not have, or its variant is not its instance's.",
)
async def register_sample(sample: Sample, service: ServiceDep) -> SampleRegistered:
    check_sample(sample, ("body",))
    return await service.register_sample(sample)
