"""``benchmarks/cold_run.py`` clones the checkout, installs it with ``make setup`` on an empty home (the registries:
minutes) and runs ``make run`` (half an hour), so here only its parts run: the fresh home (the registry clients'
settings copied, no cache and no EcoAgent setting carried over from the person's own environment), the catalog line
it reads from a run's crawl summary, and the commit it resolves (``benchmarking/cold_run.py``)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from benchmarking import cold_run
from ecoagent.layout import CRAWL_FILES


def test_a_fresh_home_keeps_the_client_settings_and_nothing_cached(tmp_path: Path, monkeypatch) -> None:
    real = tmp_path / "real"
    (real / ".config" / "pip").mkdir(parents=True)
    (real / ".config" / "pip" / "pip.conf").write_text("[global]\n")
    (real / ".npmrc").write_text("fund=false\n")
    (real / ".cache" / "ecoagent" / "embeddings").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(real))
    monkeypatch.setenv("XDG_CACHE_HOME", str(real / ".cache"))
    monkeypatch.setenv("ECOAGENT_PROFILE", "production")
    env = cold_run.fresh_home(tmp_path / "home")
    home = Path(env["HOME"])
    assert home == tmp_path / "home"
    assert (home / ".npmrc").read_text() == "fund=false\n"
    assert (home / ".config" / "pip" / "pip.conf").is_file()
    assert not (home / ".cache").exists()
    assert "XDG_CACHE_HOME" not in env and "ECOAGENT_PROFILE" not in env


def test_the_catalog_line_and_the_commit(world, tmp_path: Path) -> None:
    (tmp_path / "clone" / "data" / "crawl").mkdir(parents=True)
    shutil.copy(world.crawl / CRAWL_FILES.summary, tmp_path / "clone" / "data" / "crawl")
    catalog = cold_run.catalog_line(tmp_path / "clone")
    assert catalog["tools"] > 0 and sum(catalog["per_listing"].values()) == catalog["tools"]
    assert re.fullmatch(r"[0-9a-f]{40}", cold_run.resolve("HEAD"))
    assert cold_run.minutes(1868.04) == "31 min 08.0 s"


def test_the_ci_figure_reads_the_last_pytest_summary(tmp_path: Path) -> None:
    log = tmp_path / "cold_run.log"
    log.write_text("==== CI (bash .ci/run): bash .ci/run\n....... [ 99%]\n"
                   "1 failed, 9 passed in 3.20s (0:00:03)\n"
                   "1773 passed, 3 deselected, 403 warnings in 932.69s (0:15:32)\n")  # fmt: skip
    assert cold_run.pytest_summary(log) == "1773 passed, 3 deselected, 403 warnings"
    log.write_text("ruff: 2 errors\n")
    assert cold_run.pytest_summary(log) == "none"
