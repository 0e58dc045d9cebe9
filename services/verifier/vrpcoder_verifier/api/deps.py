"""FastAPI dependencies, as ``Annotated`` aliases the routes declare in their signatures.

They are ``async def`` although none of them awaits: FastAPI runs a plain ``def`` dependency in a
thread pool, and that hand-off cost more than everything these few lines do.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request
from fastapi.exceptions import RequestValidationError
from vrpcoder.samples import Sample

from vrpcoder_verifier.api.core.security import check_bearer
from vrpcoder_verifier.api.service import VerifierService
from vrpcoder_verifier.consistency import Path, sample_misfits
from vrpcoder_verifier.settings import Settings


async def get_service(request: Request) -> VerifierService:
    service: VerifierService = request.app.state.service
    return service


async def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def require_token(
    settings: Annotated[Settings, Depends(get_settings)],
    authorization: Annotated[str | None, Header(description="Bearer token")] = None,
) -> None:
    check_bearer(authorization, settings)


ServiceDep = Annotated[VerifierService, Depends(get_service)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
Authorized = Depends(require_token)


IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key", pattern=r"^[A-Za-z0-9_-]{8,128}$",
        description="Names this request: a repeat with the same key (after a 503 or a broken connection) "
        "gets the jobs the first attempt made, with the same job ids, and runs nothing twice.",
    ),
]


def check_sample(sample: Sample, at: Path) -> None:
    """422 with the path of every part of ``sample`` (at ``at`` in the body) that does not fit its
    instance (see ``vrpcoder_verifier.consistency``)."""
    misfits = sample_misfits(sample)
    if misfits:
        raise RequestValidationError(
            [{"type": "sample_misfit", "loc": (*at, *m.path), "msg": m.message, "input": m.value} for m in misfits]
        )
