"""What both DAGs need from a run's params: its config, its root folder and its run-scoped folders.

Standard library only at import time (the DAG files import this while Airflow parses them); the
config is loaded inside the functions, which tasks call.
"""

from __future__ import annotations


def safe_run_id(run_id: str) -> str:
    """A run id as one folder name (manual__2026-11-29T12:00:00+00:00 has ':' and '+')."""
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in run_id)


def run_config(params: dict, *extra: str):
    """The run's config: the profile, the run's overrides, then the explicit params."""
    from ecoagent.config import load_config

    overrides = list(params.get("overrides") or [])
    if params.get("out"):
        # the store is the root, so stage defaults (the shared LLM response cache) live under it too
        overrides.append(f"store={params['out']}")
    if params.get("sample_size") is not None:
        overrides.append(f"synth.sample_size={int(params['sample_size'])}")
    return load_config(params.get("profile") or "default", overrides=[*overrides, *extra])


def run_root(params: dict) -> str:
    """The ``out`` param, else the profile's store; a local folder as an absolute path."""
    config = run_config(params)
    root = params.get("out") or config.store
    if "://" in root and not root.startswith("file://"):
        return root.rstrip("/")
    return str(config.resolve_path(root.removeprefix("file://")))


def run_partition(params: dict, run_id: str, stage: str) -> str:
    """``<root>/runs/<run_id>/<stage>``: a rerun of a task overwrites its own outputs, runs never mix."""
    return f"{run_root(params)}/runs/{safe_run_id(run_id)}/{stage}"
