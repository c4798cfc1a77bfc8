"""The error an LLM backend raises when it cannot be set up (the dispatch and the embedded server)."""

from __future__ import annotations

from ecoagent.errors import EcoAgentError


class LLMBackendError(EcoAgentError, RuntimeError):
    """A backend could not be set up; the message names the setting to change."""
