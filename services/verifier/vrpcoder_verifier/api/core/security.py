"""Bearer-token check: 401 when no usable credentials were sent, 403 when the token is not ours."""

from __future__ import annotations

import hmac

from fastapi import HTTPException, status

from vrpcoder_verifier.settings import Settings


def check_bearer(authorization: str | None, settings: Settings) -> None:
    if settings.allow_anonymous:
        return
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise HTTPException(
            status_code=status.HTTP_401_UNAUTHORIZED,
            detail="missing bearer token",
            headers={"WWW-Authenticate": "Bearer"},
        )
    # compare against every token in constant time, so timing does not reveal a prefix match
    matches = [hmac.compare_digest(token.strip().encode(), known.encode()) for known in settings.token_values()]
    if not any(matches):
        raise HTTPException(status_code=status.HTTP_403_FORBIDDEN, detail="token not accepted")
