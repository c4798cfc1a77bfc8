"""publish_release against a test double of the Hub.

The Hub cannot be reached here (and there is no usable local Hub emulator), so the three calls that would
touch it, ``HfApi.create_repo``, ``HfApi.upload_folder`` and ``HfApi.create_tag``, are replaced: by
``unittest.mock.patch.object(HfApi, ..., autospec=True)`` on the real class, so a call whose arguments the
real signature would reject fails here too, and by a recording double passed as ``api``. Everything else
(reading the folder, the token handling, the returned summary) is the real code.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

import pytest
from huggingface_hub import HfApi

from ecoagent.hashing import sha256_file
from ecoagent.release_format.integrity import ReleaseIntegrityError
from release.publish import PublishError, publish_release
from tests.release.tampering import flip_byte

TOKEN = "hf_TESTTOKEN_never_print_me_42"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A release folder as the build leaves it: data, card, the gate's report and a manifest listing the files."""
    root = tmp_path / "v1.2.0"
    (root / "syn-qrels").mkdir(parents=True)
    (root / "gate").mkdir()
    (root / "README.md").write_text("---\nlicense: cc-by-4.0\n---\n# card\n")
    (root / "syn-qrels" / "test-00000-of-00001.parquet").write_bytes(b"x" * 100)
    (root / "gate" / "release_gate.md").write_text("# Quality gate: release\n")
    files = {p: {"sha256": sha256_file(root / p), "bytes": (root / p).stat().st_size}
             for p in ("README.md", "syn-qrels/test-00000-of-00001.parquet")}  # fmt: skip
    (root / "manifest.json").write_text(json.dumps({"version": "v1.2.0", "files": files}))
    return root


class RecordingHub:
    """Stands in for HfApi.create_repo / upload_folder / create_tag: records each call, returns what the Hub would."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple, dict]] = []

    def create_repo(self, *args, **kwargs):
        self.calls.append(("create_repo", args, kwargs))
        return SimpleNamespace(url=f"https://huggingface.co/datasets/{args[0]}")

    def upload_folder(self, *args, **kwargs):
        self.calls.append(("upload_folder", args, kwargs))
        return SimpleNamespace(oid="c0ffee" * 6 + "abcd")

    def create_tag(self, *args, **kwargs):
        self.calls.append(("create_tag", args, kwargs))


def test_publish_creates_uploads_and_tags_the_version(folder: Path, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    hub = RecordingHub()
    out = publish_release(folder, "org/ecoagent", api=hub)
    assert [c[0] for c in hub.calls] == ["create_repo", "upload_folder", "create_tag"]
    (_, args, kwargs) = hub.calls[0]
    assert args == ("org/ecoagent",) and kwargs == {"repo_type": "dataset", "exist_ok": True, "token": TOKEN}
    (_, _, kwargs) = hub.calls[1]
    assert kwargs["repo_id"] == "org/ecoagent" and kwargs["repo_type"] == "dataset"
    assert kwargs["folder_path"] == str(folder) and kwargs["token"] == TOKEN
    assert "v1.2.0" in kwargs["commit_message"]
    # exactly the verified files and the manifest: not the gate's report, nothing that appeared beside them
    assert kwargs["allow_patterns"] == ["README.md", "manifest.json", "syn-qrels/test-00000-of-00001.parquet"]
    manifest_sha256 = sha256_file(folder / "manifest.json")
    (_, args, kwargs) = hub.calls[2]
    assert args == ("org/ecoagent",)
    assert kwargs["tag"] == "v1.2.0" and kwargs["revision"] == "c0ffee" * 6 + "abcd"
    assert kwargs["repo_type"] == "dataset" and kwargs["exist_ok"] is False
    assert manifest_sha256 in kwargs["tag_message"]  # the published hash a download is checked against
    assert out["revision"] == "v1.2.0" and out["commit"] == "c0ffee" * 6 + "abcd"
    assert out["manifest_sha256"] == manifest_sha256
    assert {f["path"] for f in out["files"]} == {"manifest.json", "README.md", "syn-qrels/test-00000-of-00001.parquet"}


def test_calls_match_the_real_hfapi_signatures(folder: Path, monkeypatch):
    monkeypatch.setenv("MY_HUB_TOKEN", TOKEN)
    commit = SimpleNamespace(oid="1234")
    with (
        mock.patch.object(HfApi, "create_repo", autospec=True) as create_repo,
        mock.patch.object(HfApi, "upload_folder", autospec=True, return_value=commit) as upload_folder,
        mock.patch.object(HfApi, "create_tag", autospec=True) as create_tag,
    ):
        out = publish_release(folder, "org/ecoagent", token_env="MY_HUB_TOKEN")
    assert create_repo.call_count == upload_folder.call_count == create_tag.call_count == 1
    assert upload_folder.call_args.kwargs["folder_path"] == str(folder)
    assert create_tag.call_args.kwargs["tag"] == "v1.2.0" and create_tag.call_args.kwargs["revision"] == "1234"
    assert out["commit"] == "1234"


def test_token_never_in_result_logs_or_output(folder: Path, monkeypatch, caplog, capsys):
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    with caplog.at_level(logging.DEBUG):
        out = publish_release(folder, "org/ecoagent", api=RecordingHub())
        dry = publish_release(folder, "org/ecoagent", dry_run=True)
    printed = capsys.readouterr()
    assert TOKEN not in json.dumps(out) and TOKEN not in json.dumps(dry)
    assert TOKEN not in caplog.text and "org/ecoagent" in caplog.text
    assert TOKEN not in printed.out + printed.err


def test_missing_token_names_the_variable(folder: Path, monkeypatch):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    hub = RecordingHub()
    with pytest.raises(PublishError, match="HF_TOKEN"):
        publish_release(folder, "org/ecoagent", api=hub)
    assert hub.calls == []


def test_dry_run_lists_files_and_touches_nothing(folder: Path, monkeypatch, capsys):
    monkeypatch.delenv("HF_TOKEN", raising=False)  # a dry run needs no token
    hub = mock.Mock(spec=["create_repo", "upload_folder", "create_tag"])
    out = publish_release(folder, "org/ecoagent", dry_run=True, api=hub)
    assert hub.method_calls == []
    assert out["dry_run"] is True and out["revision"] == "v1.2.0"
    uploaded = [p for p in folder.rglob("*") if p.is_file() and p.parent.name != "gate"]
    assert out["total_bytes"] == sum(p.stat().st_size for p in uploaded)
    printed = capsys.readouterr().out
    assert "syn-qrels/test-00000-of-00001.parquet" in printed and "100" in printed and "v1.2.0" in printed


def test_not_a_release_folder(tmp_path: Path):
    with pytest.raises(PublishError, match=r"manifest\.json"):
        publish_release(tmp_path, "org/ecoagent", dry_run=True)


@pytest.mark.parametrize("dry_run", [True, False])
def test_a_tampered_release_is_not_published(folder: Path, monkeypatch, dry_run: bool):
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    flip_byte(folder, "syn-qrels/test-00000-of-00001.parquet", offset=10)
    hub = RecordingHub()
    with pytest.raises(ReleaseIntegrityError, match=r"syn-qrels/test-00000-of-00001\.parquet: sha256"):
        publish_release(folder, "org/ecoagent", dry_run=dry_run, api=hub)
    assert hub.calls == []


def test_a_file_not_in_the_manifest_is_not_published(folder: Path, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    (folder / "syn-qrels" / "train-00000-of-00001.parquet").write_bytes(b"y" * 10)  # would become a split
    hub = RecordingHub()
    with pytest.raises(ReleaseIntegrityError, match=r"train-00000-of-00001\.parquet: not listed in manifest\.json"):
        publish_release(folder, "org/ecoagent", api=hub)
    assert hub.calls == []
