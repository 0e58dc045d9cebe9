"""Bearer-token check: 401 when no usable credentials were sent, 403 when the token is not ours.

The operational endpoints (/readyz, /metrics) take no token, since probes and scrapers must reach
them, but they show worker names and versions only to a caller that sends a valid one
(``may_see_worker_details``), unless the deployment makes those details public.
"""

from __future__ import annotations

import hmac

from fastapi import HTTPException, status

from vrpcoder_verifier.settings import Settings


def _token(authorization: str | None) -> str | None:
    """The bearer token of an ``Authorization`` header, or None when it carries none."""
    scheme, _, token = (authorization or "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def _known(token: str, settings: Settings) -> bool:
    # compare against every token in constant time, so timing does not reveal a prefix match
    matches = [hmac.compare_digest(token.encode(), known.encode()) for known in settings.token_values()]
    return any(matches)


def check_bearer(authorization: str | None, settings: Settings) -> None:
    if settings.allow_anonymous:
        return
    token = _token(authorization)
    if token is None:
        raise HTTPException(
            status_code=status.HTTP_401_UNAUTHORIZED,
            detail="missing bearer token",
            headers={"WWW-Authenticate": "Bearer"},
        )
    if not _known(token, settings):
        raise HTTPException(status_code=status.HTTP_403_FORBIDDEN, detail="token not accepted")


def may_see_worker_details(authorization: str | None, settings: Settings) -> bool:
    """Whether /readyz and /metrics may name workers and their versions to this caller (never raises)."""
    if settings.public_worker_details or settings.allow_anonymous:
        return True
    token = _token(authorization)
    return token is not None and _known(token, settings)
