"""Resolving an item's prompt reference to the system prompt a run sends.

Trained models are asked with the one shared code-regeneration prompt (``vrpcoder_client.prompts``);
a baseline may be asked with its own prompt, read from a file the user gives. Either way the run
records the digest of the text it sent, so two runs are only compared on equal terms.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from vrpcoder_client.prompts import code_system_prompt

from vrpcoder_eval.benchmark import PromptRef

SHARED_PROMPT_NAME = "vrpcoder_client.prompts:CODE_SYSTEM_PROMPT"


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def prompt_ref() -> PromptRef:
    """The reference builders stamp on every item: the shared prompt and its digest today."""
    return PromptRef(name=SHARED_PROMPT_NAME, sha256=digest(code_system_prompt()))


@dataclass(frozen=True, slots=True)
class SystemPrompt:
    """The text a run sends as the system message, and where it came from."""

    text: str
    origin: str

    @property
    def sha256(self) -> str:
        return digest(self.text)


def shared_prompt() -> SystemPrompt:
    return SystemPrompt(code_system_prompt(), SHARED_PROMPT_NAME)


def prompt_from_file(path: Path) -> SystemPrompt:
    """A baseline's own system prompt; refused when empty, so a typo does not ask with no prompt."""
    text = path.read_text(encoding="utf-8").strip()
    if not text:
        raise ValueError(f"{path}: the prompt file is empty")
    return SystemPrompt(text, str(path))


def drifted(ref: PromptRef, prompt: SystemPrompt) -> bool:
    """True when an item built against the shared prompt would now be asked with different text."""
    return ref.name == prompt.origin and ref.sha256 is not None and ref.sha256 != prompt.sha256
