"""The chat message every client sends, and the model layer's own two instructions.

The instructions are prompt text like those in prompts/, and a change to them bumps
`prompts.texts.PROMPT_VERSION`; they live here because the model layer may not import
the prompts above it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

SCHEMA_INSTRUCTION = (
    "Answer with a single JSON object, and nothing else, that conforms to this JSON schema:\n"
    "{schema}"
)


REPAIR_INSTRUCTION = (
    "Your answer above could not be used: {problem}\n"
    "Answer the same request again with only the corrected JSON."
)


@dataclass(frozen=True)
class Message:
    """One chat message; `images` (PNG or JPEG bytes) only in user messages."""

    role: Literal["system", "user", "assistant"]
    text: str
    images: tuple[bytes, ...] = ()

    def __post_init__(self) -> None:
        if self.role not in ("system", "user", "assistant"):
            raise ValueError(f"unknown message role {self.role!r}")
        object.__setattr__(self, "images", tuple(self.images))
        if self.images and self.role != "user":
            raise ValueError("images can only be sent in user messages")
