"""Benchmark: peak memory of a crawl that meets the many-members wheel, beside a crawl of a normal small wheel.

The wheel of issue 13: 80 members of 24 MiB each (every one under ``crawl.max_member_bytes``), 1.9 GiB unpacked,
about 2 MB on disk. Before the per-package budget a crawl read all of it into memory (2.1 GB for 72 s). Target:
refused or bounded with peak RSS <= 500 MB. Each case is a real ``crawl()`` (one package, served from a package
cache seeded with the archive, ``crawl.workers=1`` so extraction runs in the measured process) in a fresh Python
process, whose peak RSS (``ru_maxrss``) is the figure:

- ``small``: the fixture LangChain wheel (the baseline: what importing the pipeline and crawling costs);
- ``many_members``: the 80 x 24 MiB wheel, default budget (``crawl.max_package_bytes`` = 64 MiB);
- ``at_budget``: 2 x 24 MiB plus the tool, under the budget: read whole, so bounded by the budget;
- ``unbounded`` (only with ``--unbounded``; needs ~2.5 GB free): the many-members wheel with the budget raised
  to 4 GiB, i.e. the behaviour before the budget.

    .venv/bin/python benchmarks/archive_budget.py [--unbounded] [--member-mib 24]

``--member-mib`` shrinks the members (the tests run it at 1 MiB: 80 MiB unpacked, still over the default budget).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from ecoagent.testing.packages import ECHO_TOOL_MODULE

ROOT = Path(__file__).resolve().parents[1]
MiB = 1024 * 1024
TARGET_MB = 500


def _wheel(folder: Path, members: int, member_bytes: int) -> Path:
    """A wheel with the tool module and ``members`` Python files of ``member_bytes`` comment bytes each."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "bomb_pkg-1.0-py3-none-any.whl"
    block = b"#" * member_bytes
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("bomb_pkg/__init__.py", "")
        zf.writestr("bomb_pkg/tool.py", ECHO_TOOL_MODULE)
        for i in range(members):
            zf.writestr(f"bomb_pkg/generated_{i:02d}.py", block)
        zf.writestr("bomb_pkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: bomb-pkg\nVersion: 1.0\n")
    return path


def child(case_dir: Path, budget: int | None) -> None:
    """In a fresh process: crawl the one package of ``case_dir`` and print peak RSS, time and the outcome."""
    sys.path.insert(0, str(ROOT))
    from crawlers.crawl import crawl
    from ecoagent.config import load_config
    from ecoagent.packages.fetch import PackageCache
    from ecoagent.packages.source import Source

    archive = next(case_dir.glob("*.whl"))
    PackageCache(case_dir / "cache").put(Source("langchain", "pypi", "bomb-pkg", "1.0"), archive)
    sources = case_dir / "sources.yaml"
    sources.write_text('sources:\n  - {platform: langchain, registry: pypi, name: "bomb-pkg", version: "1.0"}\n')
    # the one package: not n8n's community listing beside it (the default profile reads its 27,000 tools)
    overrides = [f"crawl.cache_dir={case_dir / 'cache'}", "crawl.workers=1", "crawl.max_package_error_share=1.0",
                 "crawl.community_listing.enabled=false"]
    if budget is not None:
        overrides.append(f"crawl.max_package_bytes={budget}")
    config = load_config("default", overrides=overrides, environ={})
    started = time.perf_counter()
    result = crawl(config, out=str(case_dir / "out"), sources_path=sources)
    seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    errors = [e["reason"] for e in result.summary["package_errors"]]
    print(json.dumps({"peak_rss_mb": round(peak_mb, 1), "crawl_seconds": round(seconds, 2),
                      "tools": result.summary["tools"], "errors": errors}))  # fmt: skip


def _run_case(name: str, archive_dir: Path, budget: int | None = None) -> dict:
    archive = next(archive_dir.glob("*.whl"))  # the child moves it into its package cache
    with zipfile.ZipFile(archive) as zf:
        unpacked = sum(i.file_size for i in zf.infolist())
    size = archive.stat().st_size
    # -P: benchmarks/ is not put first on the child's path (its modules' names must not shadow a package's)
    cmd = [sys.executable, "-P", __file__, "--child", str(archive_dir)]
    if budget is not None:
        cmd += ["--budget", str(budget)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=ROOT)
    if proc.returncode != 0:
        raise SystemExit(f"case {name} failed:\n{proc.stderr[-2000:]}")
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    return {"case": name, "archive_mb": round(size / 1e6, 3),
            "unpacked_mb": round(unpacked / MiB, 1), **report}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--unbounded", action="store_true", help="also run without the budget (needs ~2.5 GB)")
    parser.add_argument("--member-mib", type=int, default=24, help="size of each generated member (MiB)")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--budget", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.budget)
        return
    with tempfile.TemporaryDirectory(prefix="ecoagent-bench-archive-") as tmp:
        root = Path(tmp)
        _wheel(root / "small", 0, 0)
        _wheel(root / "many_members", 80, args.member_mib * MiB)
        _wheel(root / "at_budget", 2, args.member_mib * MiB)
        rows = [
            _run_case("small", root / "small"),
            _run_case("many_members", root / "many_members"),
            _run_case("at_budget", root / "at_budget"),
        ]
        if args.unbounded:
            _wheel(root / "unbounded", 80, args.member_mib * MiB)
            rows.append(_run_case("unbounded", root / "unbounded", budget=4096 * MiB))
    base = rows[0]["peak_rss_mb"]
    for row in rows:
        row["over_small"] = round(row["peak_rss_mb"] / base, 2)
    bomb = rows[1]
    report = {
        "cases": rows,
        "target_peak_rss_mb_max": TARGET_MB,
        "many_members_refused": bool(bomb["errors"]) and "package_too_large" in bomb["errors"][0],
        "meets_target": bomb["peak_rss_mb"] <= TARGET_MB,
    }
    print(json.dumps(report, indent=2))
    for row in rows:
        outcome = row["errors"][0][:90] if row["errors"] else f"{row['tools']} tools"
        print(f"{row['case']:>13}: {row['archive_mb']:6.3f} MB archive, {row['unpacked_mb']:7.1f} MiB unpacked -> "
              f"peak RSS {row['peak_rss_mb']:7.1f} MB ({row['over_small']:.2f}x small), {row['crawl_seconds']:.2f}s; "
              f"{outcome}")  # fmt: skip


if __name__ == "__main__":
    main()
