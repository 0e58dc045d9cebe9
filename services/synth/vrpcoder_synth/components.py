"""The writer, coder and verifier backend a config asks for, and the fingerprint of that choice.

The fingerprint enters every work item's key: changing the teacher, its model or sampling
parameters, or the coder makes new items instead of reusing records made by another set-up.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from vrpcoder_synth.config import SynthConfig
from vrpcoder_synth.regenerate import Coder, OfflineCoder
from vrpcoder_synth.verifiers import Backend, InProcessBackend, ServiceBackend
from vrpcoder_synth.writers import OfflineWriter, StatementWriter


@dataclass
class Components:
    writer: StatementWriter
    coder: Coder
    backend: Backend
    fingerprint: str

    def close(self) -> None:
        self.backend.close()
        closer = getattr(self.writer, "close", None)
        if closer is not None:
            closer()


def build_backend(config: SynthConfig, token: str | None = None) -> Backend:
    v = config.verifier
    if v.backend == "service":
        return ServiceBackend(v.url, token, time_limit=v.time_limit)
    return InProcessBackend(time_limit=v.time_limit)


def build_components(config: SynthConfig, out: Path, token: str | None = None) -> Components:
    backend = build_backend(config, token)
    teacher = config.teacher
    if teacher.kind == "offline":
        if config.coder == "compact":
            from vrpcoder_synth.compact import CompactCoder, compact_version

            return Components(OfflineWriter(), CompactCoder(), backend, f"offline|compact|{compact_version()}")
        return Components(OfflineWriter(), OfflineCoder(), backend, "offline")
    from vrpcoder_synth.teacher import TeacherClient, TeacherCoder, TeacherWriter, prompts_version

    client = TeacherClient.from_config(teacher, cache_dir=out / ".work" / "teacher-cache", api_key=os.environ.get(teacher.api_key_env))
    fingerprint = (
        f"openai|{teacher.model}|{teacher.temperature}|{teacher.max_tokens}|{teacher.critic_rounds}|{prompts_version()}"
    )
    return Components(TeacherWriter(client, teacher.critic_rounds), TeacherCoder(client), backend, fingerprint)
