"""Secrets planted in every field of three packages leave no trace in any artifact of a whole run.

``ecoagent run`` (crawl, score + gate, synth, label, release + gate) on the fixture mirror plus the planted
packages of ``tests/planted_secrets.py`` (every secret format, in every text and URL field an extractor reads).
The LLM is the scripted local server of the CLI's run test (the server backend's code path). Every file the run
writes is then read back: no planted secret may remain, byte for byte, and no secret format may match.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
from typer.testing import CliRunner

from ecoagent.text.redaction import REDACTED, find_secrets, scan_frame
from pipeline.cli import app
from tests.fixture_packages import build_fixture_mirror, fixture_overrides
from tests.planted_secrets import LANGCHAIN_PACKAGE, MCP_PACKAGE, N8N_PACKAGE, SECRET_PARTS, build_planted_packages

TEXT_SUFFIXES = {".json", ".md", ".yaml", ".csv", ".jsonl", ".txt"}
# the fields each planted tool carries its secrets in (checked as redacted, so the plant demonstrably arrived)
PLANTED_FIELDS = {
    f"n8n:{N8N_PACKAGE}:plantedNode:-:send": {"name", "display_name", "description", "parameters", "endpoints",
                                              "doc_urls", "links", "categories", "auth_credentials"},
    f"n8n:{N8N_PACKAGE}:{REDACTED}:-:-": {"tool_id", "source_symbol"},
    f"langchain:{LANGCHAIN_PACKAGE}:PlantedTool": {"description", "parameters", "endpoints", "doc_urls", "links"},
    f"mcp:{MCP_PACKAGE}:planted_lookup": {"description", "parameters", "endpoints", "links"},
}  # fmt: skip


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    return []


def _leaks(path: Path) -> list[str]:
    """What of ``path`` still holds a planted secret or matches a secret format: 'file: what', never the value."""
    if path.suffix == ".parquet":
        frame = pl.read_parquet(path)
        text = "\n".join(s for column in frame.columns for s in _strings(frame[column].to_list()))
        formats = sorted(f"{column}: {fmt}" for column, fmt in scan_frame(frame))
    else:
        data = path.read_bytes()
        text = data.decode("utf-8", errors="replace")
        # binary files (the LLM cache, plots, vectors) are searched byte for byte only: random bytes can look
        # like a 40-character key
        formats = sorted(set(find_secrets(text))) if path.suffix in TEXT_SUFFIXES else []
    planted = [f"planted secret #{SECRET_PARTS.index(part)}" for part in SECRET_PARTS if part in text]
    return [f"{path}: {what}" for what in (*planted, *formats)]


def test_planted_secrets_leave_no_trace_in_any_artifact(tmp_path: Path, monkeypatch):
    from ecoagent.testing.standin_llm import StandInOpenAI
    from tests.labeling.fixtures import build_bfcl_wheel
    from tests.synth.test_generate import _respond

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    mirror = tmp_path / "mirror"
    build_fixture_mirror(mirror)
    build_bfcl_wheel(mirror)
    build_planted_packages(mirror)

    def reply(body: dict, content: str) -> str:
        return '{"score": 0.9}' if "response_format" in body else _respond(body, content)

    with StandInOpenAI(respond=reply) as server:
        settings = [
            *fixture_overrides(mirror, tmp_path / "cache"),
            f"crawl.sources={mirror / 'sources.yaml'}",
            f"store={tmp_path / 'run'}",
            f"embedding.cache_dir={tmp_path / 'run' / 'emb'}",
            "llm.backend=server",
            f"llm.base_url={server.base_url}",
            "llm.model=fake",
            "label.min_agreement_score=0.0",
            "label.min_cosine=0.0",
            "synth.tools=all",  # the planted tools are asked for queries too
            "release.syn_split_ratios=[0.5, 0.0, 0.5]",  # a few queries: both required splits get some
            "release.version=2026.11.29",
            f"release.repo_releases_dir={tmp_path / 'run' / 'releases'}",
        ]
        args = ["run", "--out", str(tmp_path / "run"), "--profile", "fixture"]
        result = CliRunner().invoke(app, [*args, *(a for s in settings for a in ("--set", s))])
    assert result.exit_code == 0, result.output
    prompts = json.dumps(server.bodies)
    assert "planted_lookup" in prompts  # the planted tools went through generation...
    assert not [part for part in SECRET_PARTS if part in prompts]  # ...without their secrets

    tools = pl.read_parquet(tmp_path / "run" / "crawl" / "tools.parquet")
    by_id = {row["tool_id"]: row for row in tools.iter_rows(named=True)}
    for tool_id, fields in PLANTED_FIELDS.items():
        row = by_id[tool_id]
        assert "redacted_secret" in row["flags"], tool_id
        assert {f for f in fields if REDACTED in json.dumps(row[f])} == fields, tool_id

    release = tmp_path / "run" / "release" / "2026.11.29"
    assert json.loads((release / "manifest.json").read_text())["stats"]["redacted_values"] == 0  # clean upstream
    assert json.loads((release / "gate" / "secrets.json").read_text()) == {}
    artifacts = [p for p in sorted((tmp_path / "run").rglob("*")) if p.is_file()]
    stages = {p.relative_to(tmp_path / "run").parts[0] for p in artifacts}
    assert {"crawl", "score", "synth", "label", "release", "releases", "llm", "emb"} <= stages
    assert [leak for path in artifacts for leak in _leaks(path)] == []
