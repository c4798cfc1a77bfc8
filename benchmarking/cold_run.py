"""A cold run as a newcomer meets it, for ``benchmarks/cold_run.py``: the fresh home it runs in, and what it reads
off the run afterwards (the catalog line of its crawl summary, the last pytest summary of its log, the minutes).

The script clones the checkout, installs it on an empty home and runs ``make run`` or ``bash .ci/run`` (half an hour
and the registries); these parts run on their own in its test (``tests/benchmarks/test_cold_run.py``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from ecoagent.layout import CRAWL_FILES

ROOT = Path(__file__).resolve().parents[1]
PYTEST_SUMMARY = re.compile(r"^(?:=+ )?((?:\d+ \w+(?:, )?)+) in [\d.]+s", re.MULTILINE)
CLIENT_SETTINGS = (".npmrc", ".config/pip", ".gitconfig")
CACHE_VARIABLES = ("XDG_CACHE_HOME", "PIP_CACHE_DIR", "npm_config_cache", "HF_HOME", "HF_HUB_CACHE",
                   "SENTENCE_TRANSFORMERS_HOME", "TRANSFORMERS_CACHE", "TORCH_HOME")  # fmt: skip


def fresh_home(home: Path) -> dict[str, str]:
    """An empty home folder holding only the registry clients' settings, and the environment that uses it."""
    real = Path.home()
    home.mkdir(parents=True)
    for name in CLIENT_SETTINGS:
        source = real / name
        if source.is_dir():
            shutil.copytree(source, home / name)
        elif source.is_file():
            (home / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, home / name)
    env = {k: v for k, v in os.environ.items() if k not in CACHE_VARIABLES and not k.startswith("ECOAGENT")}
    env["HOME"] = str(home)
    return env


def minutes(seconds: float) -> str:
    """``seconds`` as the records give a long run: ``31 min 08.0 s``."""
    return f"{int(seconds // 60)} min {seconds % 60:04.1f} s"


def catalog_line(clone: Path) -> dict:
    """Tools in the run's catalog and per listing, from its crawl summary."""
    summary = json.loads((clone / "data" / "crawl" / CRAWL_FILES.summary).read_text())
    return {"tools": summary.get("tools"),
            "per_listing": {k: v.get("tools") for k, v in summary.get("per_listing", {}).items()}}  # fmt: skip


def resolve(rev: str) -> str:
    """A commit's full hash."""
    done = subprocess.run(["git", "rev-parse", rev], cwd=ROOT, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def pytest_summary(log: Path) -> str:
    """The last pytest summary in ``log`` ("1773 passed, 3 skipped"), or "none" when it has none."""
    found = PYTEST_SUMMARY.findall(log.read_text(errors="replace"))
    return found[-1] if found else "none"
