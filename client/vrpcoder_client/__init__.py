"""The light client of the VRPCoder verifier: wire schemas, HTTP client, TRL reward, code prompt.

Needs only httpx and pydantic, so a trainer or evaluation image can score completions without
gurobipy, FastAPI or rq.
"""

from vrpcoder_client.client import (
    AsyncVerifierClient,
    PollPolicy,
    RetryPolicy,
    SampleRef,
    VerifierClient,
    VerifierError,
    VerifierHTTPError,
    VerifierUnavailable,
)
from vrpcoder_client.prompts import CODE_SYSTEM_PROMPT, code_prompt_version, code_system_prompt
from vrpcoder_client.reward import (
    RewardStats,
    ScoredCompletion,
    VerifierConfigError,
    check_service,
    extract_code,
    make_verifier_reward,
    score_completions,
    verifier_reward,
)
from vrpcoder_client.schemas import BatchResponse, JobState, ReadyReport, VerifyOptions, VerifyResult, json_digest
from vrpcoder_client.verdicts import (
    CostCheck,
    ErrorKind,
    Family,
    InjVerdict,
    Label,
    ProbeResult,
    RewardWeights,
    VerificationError,
    Verdict,
)

__all__ = [
    "CODE_SYSTEM_PROMPT",
    "AsyncVerifierClient",
    "BatchResponse",
    "CostCheck",
    "ErrorKind",
    "Family",
    "InjVerdict",
    "JobState",
    "Label",
    "PollPolicy",
    "ProbeResult",
    "ReadyReport",
    "RetryPolicy",
    "RewardStats",
    "RewardWeights",
    "SampleRef",
    "ScoredCompletion",
    "Verdict",
    "VerificationError",
    "VerifierClient",
    "VerifierConfigError",
    "VerifierError",
    "VerifierHTTPError",
    "VerifierUnavailable",
    "VerifyOptions",
    "VerifyResult",
    "check_service",
    "code_prompt_version",
    "code_system_prompt",
    "extract_code",
    "json_digest",
    "make_verifier_reward",
    "score_completions",
    "verifier_reward",
]
