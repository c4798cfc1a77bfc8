"""Publish a built release folder to the Hugging Face Hub, so that revision = version.

``publish_release(folder, repo_id)``: verify the folder against its manifest (an edited, missing or extra file
refuses it, :mod:`ecoagent.release_format.integrity`), create the dataset repo if needed, upload exactly the verified
files and ``manifest.json`` in one commit (removing data files of an older version that this one no longer has),
then tag that commit with the release version, so ``load_dataset(repo_id, config, revision=version)`` reads
exactly this release forever. The manifest's own sha256 is printed, returned and written into the tag message:
whoever downloads the release compares it (``ecoagent release verify FOLDER --manifest-sha256 HASH``), and the
manifest vouches for every other file. The gate report (``gate/``) stays local (see release_integrity).

The token is read only from the environment variable named by ``token_env`` (default ``HF_TOKEN``): it is passed
to the Hub client per call and never logged, printed or returned. ``dry_run=True`` lists the files and sizes that
would be uploaded, says which remote files a real publish deletes, and touches nothing (no token needed, no
client created).
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

from ecoagent.errors import EcoAgentError
from ecoagent.release_format.integrity import MANIFEST, Verification, verify_release

log = logging.getLogger(__name__)

REPO_TYPE = "dataset"
# Files of a previous version that this commit should remove when they are not re-uploaded (e.g. a cold_start
# split that no longer exists). Files being uploaded are never deleted by these patterns.
STALE_PATTERNS = ["*.parquet", "*.json", "*.md"]


def remote_deletions_note(repo_id: str, version: str) -> str:
    """What a real publish removes from the Hub repo: the commit deletes the remote files matching
    ``STALE_PATTERNS`` that the folder does not have (a dry run does not contact the Hub, so it states the rule)."""
    return (
        f"a real publish also deletes from {repo_id} every remote file matching {', '.join(STALE_PATTERNS)} "
        f"that is not listed above (e.g. a split an older version had); other remote files are kept, and older "
        f"versions stay readable at their tags. Nothing was uploaded or deleted ({version}: dry run)."
    )


class PublishError(EcoAgentError, RuntimeError):
    """Publishing cannot start (no token, not a release folder); the message says what to fix."""


def _release_files(folder: Path, verified: list[str]) -> list[dict]:
    return [{"path": rel, "bytes": (folder / rel).stat().st_size} for rel in sorted([*verified, MANIFEST])]


def publish_release(
    folder: Path, repo_id: str, *, token_env: str = "HF_TOKEN", dry_run: bool = False, api: Any = None
) -> dict:
    """Upload the release in ``folder`` to the Hub dataset repo ``repo_id`` and tag it with its version.

    ``api``: a ``huggingface_hub.HfApi``-like client (default: a new ``HfApi()``); tests pass a double.
    Returns repo_id, revision (= version), commit, url, files and total bytes; never the token.
    """
    folder = Path(folder)
    verified, version = _verified_release(folder)
    files = _release_files(folder, verified.files)
    summary: dict[str, Any] = {
        "repo_id": repo_id,
        "repo_type": REPO_TYPE,
        "revision": version,
        "manifest_sha256": verified.manifest_sha256,
        "files": files,
        "total_bytes": sum(f["bytes"] for f in files),
        "dry_run": dry_run,
    }
    if dry_run:
        summary["remote_deletions"] = remote_deletions_note(repo_id, version)
        print(_dry_run_listing(summary))
        return summary

    token = _token(token_env, repo_id)
    if api is None:
        from huggingface_hub import HfApi

        api = HfApi()
    repo, commit_id = _upload_and_tag(api, token, folder, summary)
    summary.update(commit=commit_id, url=str(getattr(repo, "url", "") or f"https://huggingface.co/datasets/{repo_id}"))
    return summary


def _verified_release(folder: Path) -> tuple[Verification, str]:
    """The folder verified against its manifest, and its version; refuses a folder that is no release."""
    manifest_path = folder / MANIFEST
    if not manifest_path.is_file():
        raise PublishError(f"{folder} is not a release folder (no manifest.json): build it with build_release first")
    verified = verify_release(folder)  # raises ReleaseIntegrityError naming the first file that differs
    return verified, json.loads(manifest_path.read_text())["version"]


def _dry_run_listing(summary: dict[str, Any]) -> str:
    """What a dry run prints: the files and sizes it would upload, the tag, and what a real publish deletes."""
    files = summary["files"]
    lines = [
        f"dry run: would upload {len(files)} verified files ({summary['total_bytes']} bytes) to {REPO_TYPE} "
        f"{summary['repo_id']} and tag it {summary['revision']} (manifest.json sha256 {summary['manifest_sha256']}):"
    ]
    lines += [f"  {f['bytes']:>12}  {f['path']}" for f in files]
    lines.append(summary["remote_deletions"])
    return "\n".join(lines)


def _token(token_env: str, repo_id: str) -> str:
    """The Hub token from the environment variable ``token_env``; never logged."""
    token = os.environ.get(token_env)
    if not token:
        raise PublishError(
            f"no Hugging Face token: set the environment variable {token_env} (a write token for {repo_id}), "
            "or run with dry_run to see what would be uploaded"
        )
    return token


def _upload_and_tag(api: Any, token: str, folder: Path, summary: dict[str, Any]) -> tuple[Any, str | None]:
    """Create the repo if needed, upload the verified files in one commit and tag it; returns the repo and commit."""
    repo_id, version, files = summary["repo_id"], summary["revision"], summary["files"]
    manifest_sha256 = summary["manifest_sha256"]
    log.info("publishing %s (%d files) to %s %s", version, len(files), REPO_TYPE, repo_id)
    repo = api.create_repo(repo_id, repo_type=REPO_TYPE, exist_ok=True, token=token)
    commit = api.upload_folder(
        repo_id=repo_id,
        repo_type=REPO_TYPE,
        folder_path=str(folder),
        commit_message=f"EcoAgent release {version}",
        commit_description=f"manifest.json sha256 {manifest_sha256}",
        allow_patterns=[f["path"] for f in files],  # exactly what was verified, nothing that appeared beside it
        delete_patterns=STALE_PATTERNS,
        token=token,
    )
    commit_id = getattr(commit, "oid", None)
    # A tag, not a branch: a version must not move. exist_ok=False makes re-publishing a version an error.
    api.create_tag(
        repo_id,
        tag=version,
        tag_message=f"EcoAgent release {version}; manifest.json sha256 {manifest_sha256}",
        revision=commit_id,
        repo_type=REPO_TYPE,
        exist_ok=False,
        token=token,
    )
    log.info("published %s to %s at commit %s (manifest.json sha256 %s)", version, repo_id, commit_id,
             manifest_sha256)  # fmt: skip
    return repo, commit_id
