"""FastAPI dependencies, as ``Annotated`` aliases the routes declare in their signatures.

They are ``async def`` although none of them awaits: FastAPI runs a plain ``def`` dependency in a
thread pool, and that hand-off cost more than everything these few lines do.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request

from vrpcoder_verifier.api.core.security import check_bearer
from vrpcoder_verifier.api.service import VerifierService
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
