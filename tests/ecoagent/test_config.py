from pathlib import Path

import pytest
import yaml

from ecoagent.config import DEFAULT_CONFIG_PATH, ConfigError, load_config, make_config

CONFIG = """
profiles:
  default:
    store: data
    seed: 1
    crawl: {workers: 2, platforms: [n8n, mcp]}
  production:
    store: s3://bucket/eco
    crawl: {workers: 8}
  tiny:
    extends: production
    seed: 7
"""


@pytest.fixture
def cfg_file(tmp_path: Path) -> Path:
    path = tmp_path / "ecoagent.yaml"
    path.write_text(CONFIG)
    return path


def test_profiles_extend_the_default(cfg_file):
    cfg = load_config("tiny", path=cfg_file, environ={})
    assert (cfg.profile, cfg.store, cfg.seed, cfg.crawl.workers) == ("tiny", "s3://bucket/eco", 7, 8)
    assert cfg.crawl.platforms == ["n8n", "mcp"]  # inherited from default


def test_environment_then_cli_override(cfg_file):
    env = {"ECOAGENT__CRAWL__WORKERS": "3", "ECOAGENT__SEED": "11", "ECOAGENT_PROFILE": "production"}
    cfg = load_config(path=cfg_file, environ=env)
    assert (cfg.profile, cfg.crawl.workers, cfg.seed) == ("production", 3, 11)
    cfg = load_config(path=cfg_file, environ=env, overrides=["crawl.workers=5", "crawl.platforms=[mcp]"])
    assert cfg.crawl.workers == 5 and cfg.crawl.platforms == ["mcp"]


def test_bad_settings_name_the_setting(cfg_file):
    with pytest.raises(ConfigError, match=r"crawl\.workerz"):
        load_config(path=cfg_file, environ={}, overrides=["crawl.workerz=1"])
    with pytest.raises(ConfigError, match=r"crawl\.workers"):
        load_config(path=cfg_file, environ={}, overrides=["crawl.workers=many"])
    with pytest.raises(ConfigError, match="unknown profile 'nope'"):
        load_config("nope", path=cfg_file, environ={})
    with pytest.raises(ConfigError, match=r"section\.key=value"):
        load_config(path=cfg_file, environ={}, overrides=["crawl.workers"])


def test_numeric_settings_have_ranges_and_the_error_states_them(cfg_file):
    cases = {
        "crawl.workers=0": "crawl.workers: Input should be greater than or equal to 1 (allowed: >= 1; got 0)",
        "label.max_queries=0": "label.max_queries: Input should be greater than or equal to 1 (allowed: >= 1;",
        "label.split_ratios=[0.5, 1.5, 0]": "label.split_ratios.1: Input should be less than or equal to 1 "
        "(allowed: >= 0 and <= 1; got 1.5)",
        "llm.timeout_s=0": "llm.timeout_s: Input should be greater than 0 (allowed: > 0; got 0)",
        "rated.simulation.failure_rates=[0.2, -1]": "rated.simulation.failure_rates.1: Input should be greater than "
        "or equal to 0 (allowed: >= 0 and <= 1; got -1)",
    }
    for override, message in cases.items():
        with pytest.raises(ConfigError) as caught:
            load_config(path=cfg_file, environ={}, overrides=[override])
        assert message in str(caught.value) and "\n" not in str(caught.value), override
    assert load_config(path=cfg_file, environ={}, overrides=["label.max_queries=null"]).label.max_queries is None


def test_the_shipped_config_loads_every_profile():
    for profile in ("default", "production", "fixture"):
        assert load_config(profile, environ={}).profile == profile


def test_the_defaults_are_the_settings_classes_and_the_default_profile_is_them():
    """One set of defaults: the settings classes'; loading the default profile adds nothing but the absolute store."""
    defaults, loaded = make_config(), load_config("default", environ={})
    assert Path(loaded.store) == defaults.resolve_path(defaults.store) and Path(loaded.store).is_absolute()
    assert loaded.model_dump(exclude={"store"}) == defaults.model_dump(exclude={"store"})


def test_the_shipped_default_profile_sets_nothing():
    profiles = yaml.safe_load(DEFAULT_CONFIG_PATH.read_text(encoding="utf-8"))["profiles"]
    assert not profiles["default"], "defaults live on the settings classes, not in config/ecoagent.yaml"


def test_relative_paths_resolve_against_the_project_root():
    cfg = load_config(environ={})
    assert cfg.resolve_path(cfg.crawl.sources).exists()


def test_a_moved_setting_names_its_new_place(cfg_file, tmp_path):
    for where in (
        {"overrides": [f"score.embedding_cache={tmp_path}"]},
        {"environ": {"ECOAGENT__SCORE__EMBEDDING_CACHE": str(tmp_path)}},
    ):
        kwargs = {"environ": {}, **where}
        with pytest.raises(ConfigError, match=r"score\.embedding_cache is now embedding\.cache_dir"):
            load_config(path=cfg_file, **kwargs)
    old_file = tmp_path / "old.yaml"
    old_file.write_text("profiles:\n  default:\n    score: {embedding_batch_size: 8}\n")
    with pytest.raises(ConfigError, match=r"old\.yaml.*score\.embedding_batch_size is now embedding\.batch_size"):
        load_config(path=old_file, environ={})
    assert ConfigError("x").exit_code == 2
