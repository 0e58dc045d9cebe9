"""The HTTP half of the service (FastAPI): ``create_app(settings)`` builds it."""

from vrpcoder_verifier.api.main import create_app

__all__ = ["create_app"]
