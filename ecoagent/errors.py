"""The one error base of the pipeline, and the exit code each kind of failure maps to.

A failure a user can act on is raised as a subclass of :class:`EcoAgentError`: a bad setting
(:class:`ecoagent.config.ConfigError`), a missing or unreadable input (:class:`BadInput`, :class:`MissingInput`),
a model that cannot be loaded, a failed quality gate, an unreadable release, a crawl that lost too many packages.
Each class carries its exit code, so the CLI (``pipeline.cli``) turns every one of them into one line and the
right code in one place, and a DAG task fails with the same message.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILED = 1  # the stage ran and failed: bad data, a failed gate
EXIT_CONFIG = 2  # nothing ran: a setting, an argument or an input folder must change (the message names it)
EXIT_PARTIAL = 3  # the crawl wrote a catalog, but some packages recorded errors


class EcoAgentError(Exception):
    """A failure with a message meant for the user; ``exit_code`` is what the CLI exits with."""

    exit_code: int = EXIT_FAILED


class BadInput(EcoAgentError, ValueError):
    """An input file or folder is not what the stage reads (wrong stage, truncated, not ours); the message names it."""

    exit_code = EXIT_CONFIG


class MissingInput(BadInput, FileNotFoundError):
    """A stage's input file is not there; the message names the command that makes it."""
