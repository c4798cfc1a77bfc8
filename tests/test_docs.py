"""The documentation cannot drift from the code: the configuration reference, the results page, the README's links.

The site itself is built with ``mkdocs build --strict`` by ``make test`` (broken links and anchors fail there).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from pydantic import BaseModel

from ecoagent.config import PROJECT_ROOT, load_config

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "docs" / "configuration.md"
ROW = re.compile(r"^\| `([a-z0-9_.]+)` \| `(.*)` \| .* \|$")


def settings(model: BaseModel, prefix: str = "") -> dict[str, object]:
    """Every setting of a loaded config as ``{dotted name: value}``, from ``model_dump()``.

    A section is a nested model and is walked into; everything else (dicts of models or weights included) is one
    setting, documented as a whole.
    """
    found: dict[str, object] = {}
    for key, value in model.model_dump(mode="json").items():
        child = getattr(model, key, None)
        if isinstance(child, BaseModel):
            found.update(settings(child, f"{prefix}{key}."))
        else:
            found[f"{prefix}{key}"] = value
    return found


def shown(value: object) -> str:
    """A value as the reference page shows it: compact JSON, a path under the project root made relative."""
    if isinstance(value, str) and value.startswith(f"{PROJECT_ROOT}/"):
        value = value[len(f"{PROJECT_ROOT}/") :]
    return json.dumps(value, ensure_ascii=False)


def documented(page: str, heading: str | None = None) -> dict[str, str]:
    """``{setting: value cell}`` of the reference's table rows: every section's, or only the one under ``heading``."""
    if heading is not None:
        page = page.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, str] = {}
    for line in page.splitlines():
        if match := ROW.match(line):
            assert match.group(1) not in rows, f"{match.group(1)} is documented twice"
            rows[match.group(1)] = match.group(2)
    return rows


def reference_rows() -> dict[str, str]:
    """The default profile's rows: every table of the reference but the production profile's."""
    page = REFERENCE.read_text(encoding="utf-8")
    return documented(page.split("\n## The production profile\n", 1)[0])


def test_the_configuration_reference_names_every_setting_with_its_default():
    actual = {name: shown(value) for name, value in settings(load_config("default", environ={})).items()}
    rows = reference_rows()
    missing = sorted(set(actual) - set(rows))
    assert not missing, f"docs/configuration.md lacks these settings: {missing}"
    unknown = sorted(set(rows) - set(actual))
    assert not unknown, f"docs/configuration.md documents settings that do not exist: {unknown}"
    wrong = {name: (rows[name], actual[name]) for name in actual if rows[name] != actual[name]}
    assert not wrong, f"docs/configuration.md shows other defaults than the default profile (page, actual): {wrong}"


def test_the_production_profile_table_lists_what_production_changes():
    default = settings(load_config("default", environ={}))
    production = settings(load_config("production", environ={}))
    changed = {name: shown(value) for name, value in production.items() if value != default[name]}
    rows = documented(REFERENCE.read_text(encoding="utf-8"), "The production profile")
    assert rows == changed


def test_the_settings_walk_sees_nested_sections_and_keeps_dicts_whole():
    found = settings(load_config("default", environ={}))
    assert "llm.embedded.threads" in found and "rated.simulation.seeds" in found
    assert isinstance(found["score.source_weights"], dict) and "score.source_weights.n8n" not in found


def test_the_results_page_is_the_rendering_of_its_records():
    # the renderer is the benchmarks' own script (its smoke tests: tests/benchmarks/test_record.py); --check also
    # refuses a record that does not say how it was measured (written by the benchmark, or transcribed)
    done = subprocess.run([sys.executable, "benchmarks/record.py", "--check"], cwd=REPO, capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, (
        f"{done.stderr.strip()}: docs/results.md differs from its records, or a record is bad; fix the record, "
        "then run .venv/bin/python benchmarks/record.py"
    )
    assert re.fullmatch(r"docs/results\.md: the rendering of its [1-9]\d* records\n", done.stdout), done.stdout
