"""The client for a configured provider."""

from __future__ import annotations

from pytest_stagehand.model.anthropic_client import AnthropicClient
from pytest_stagehand.model.client import ModelClient, ModelConfig
from pytest_stagehand.model.google_client import GoogleClient
from pytest_stagehand.model.openai_client import EndpointModes, OpenAIClient
from pytest_stagehand.model.usage import UsageLedger


def create_client(
    config: ModelConfig, ledger: UsageLedger | None = None, modes: EndpointModes | None = None
) -> ModelClient:
    """The client for `config`'s provider; raises MissingApiKey if it has no key. `modes`:
    what OpenAI-compatible endpoints were found to accept, shared by a session's clients."""
    if config.provider == "anthropic":
        return AnthropicClient(config, ledger)
    if config.provider == "google":
        return GoogleClient(config, ledger)
    return OpenAIClient(config, ledger, modes)
