"""Route modules of the API; ``api_router`` gathers the versioned ones under /v1."""

from fastapi import APIRouter

from vrpcoder_verifier.api.routes import jobs, samples, verify

api_router = APIRouter(prefix="/v1")
api_router.include_router(verify.router)
api_router.include_router(jobs.router)
api_router.include_router(samples.router)
