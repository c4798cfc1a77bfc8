"""benchmarks/cold_run.py's fresh home: the registry clients' settings copied, no cache and no EcoAgent setting
carried over from the person's own environment."""

from __future__ import annotations

from pathlib import Path

from benchmarks import cold_run


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
