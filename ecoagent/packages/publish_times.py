"""When each version of a package was published, from the registries' own clients.

- npm: ``npm view NAME time --json`` (the registry's own record: ``{version: ISO time}`` plus ``created`` and
  ``modified``, which are not versions).
- PyPI: pip's own machinery. ``pip index versions`` lists versions without dates, but pip reads each file's
  ``upload-time`` from the index's JSON simple API (PEP 691/700) to honour ``--uploaded-prior-to``. One pip process
  (``python -m ecoagent.packages.publish_times NAME...``, this module run by the pipeline's interpreter) builds the
  finder ``pip index`` builds, with pip's configuration and ``crawl.pip_extra_args``, and prints each candidate's
  upload time. A version's time is its earliest wheel's (``--only-binary=:all:``: the crawl fetches wheels only), the
  moment the crawl could first have fetched it. A file without an upload time (an index without PEP 700, a local
  folder of wheels) gives no time, so that version counts as never published.

Pre-releases are left out on both registries: the catalog "as it stood" is what a plain install got.
:func:`newest_by` gives, for a moment, the highest version published before it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

from packaging.version import InvalidVersion, Version

from ecoagent.packages.source import Source
from ecoagent.runtime.processes import tied_command

NOT_VERSIONS = {"created", "modified", "unpublished"}


class PublishTimesError(RuntimeError):
    """A registry client could not say when a package's versions were published."""


def _parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def _stable(version: str) -> bool:
    try:
        parsed = Version(version)
    except InvalidVersion:
        return False
    return not (parsed.is_prerelease or parsed.is_devrelease) and "-" not in version


def npm_times(name: str, timeout_s: float, env: dict[str, str] | None = None) -> dict[str, datetime]:
    """``{version: publish time}`` of an npm package (stable versions only)."""
    proc = subprocess.run(tied_command(["npm", "view", name, "time", "--json"]), capture_output=True, text=True,
                          timeout=timeout_s, env=env)  # fmt: skip
    if proc.returncode != 0:
        raise PublishTimesError(f"npm view {name} time failed: {(proc.stderr or '').strip()[-300:]}")
    times = json.loads(proc.stdout or "{}")
    return {v: _parse_time(t) for v, t in times.items() if v not in NOT_VERSIONS and _stable(v)}


def pypi_times(names: list[str], pip_args: Iterable[str], timeout_s: float,
               env: dict[str, str] | None = None) -> dict[str, dict[str, datetime]]:  # fmt: skip
    """``{name: {version: earliest wheel upload time}}`` for PyPI packages, from one pip process."""
    if not names:
        return {}
    cmd = [sys.executable, "-m", "ecoagent.packages.publish_times", "--", *pip_args, "--", *names]
    proc = subprocess.run(tied_command(cmd), capture_output=True, text=True, timeout=timeout_s, env=env)
    if proc.returncode != 0:
        raise PublishTimesError(f"pip's index could not be read for upload times: {(proc.stderr or '').strip()[-400:]}")
    found = json.loads(proc.stdout)
    return {name: {v: _parse_time(t) for v, t in found.get(name, {}).items() if _stable(v)} for name in names}


def publish_times(sources: list[Source], pip_args: Iterable[str] = (), timeout_s: float = 600,
                  env: dict[str, str] | None = None) -> dict[str, dict[str, datetime]]:  # fmt: skip
    """``{registry:name: {version: publish time}}`` for every source's package, whatever version it pins."""
    pypi = sorted({s.name for s in sources if s.registry == "pypi"})
    npm = sorted({s.name for s in sources if s.registry == "npm"})
    out = {f"pypi:{name}": times for name, times in pypi_times(pypi, pip_args, timeout_s, env).items()}
    with ThreadPoolExecutor(max_workers=4) as pool:
        for name, times in zip(npm, pool.map(lambda n: npm_times(n, timeout_s, env), npm), strict=True):
            out[f"npm:{name}"] = times
    return out


def newest_by(times: dict[str, datetime], moment: datetime) -> str | None:
    """The highest version published before ``moment``, or None when none was."""
    published = [v for v, t in times.items() if t < moment]
    return max(published, key=Version) if published else None


def _pip_upload_times(pip_args: list[str], names: list[str]) -> dict[str, dict[str, str]]:
    """Run inside a pip process: each name's versions and their earliest wheel upload time, as ISO text."""
    from pip._internal.commands import create_command

    command = create_command("index")
    options, _ = command.parse_args(["versions", "placeholder", "--only-binary=:all:", "--ignore-requires-python",
                                     *pip_args])  # fmt: skip
    out: dict[str, dict[str, str]] = {}
    with command._build_session(options) as session:
        finder = command._build_package_finder(options, session, ignore_requires_python=True)
        for name in names:
            earliest: dict[str, datetime] = {}
            for candidate in finder.find_all_candidates(name):
                uploaded = getattr(candidate.link, "upload_time", None)
                if uploaded is None or candidate.link.is_yanked:
                    continue
                version = str(candidate.version)
                earliest[version] = min(earliest.get(version, uploaded), uploaded)
            out[name] = {v: t.isoformat() for v, t in sorted(earliest.items())}
    return out


if __name__ == "__main__":
    # python -m ecoagent.packages.publish_times -- PIP_ARGS... -- NAME...
    args = sys.argv[2:]
    split = args.index("--")
    print(json.dumps(_pip_upload_times(args[:split], args[split + 1 :])))
