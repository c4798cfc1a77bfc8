"""Measured figures as records: a benchmark writes one, and the results page is rendered from them all.

Every figure the documentation quotes lives in one JSON file under ``docs/results/`` (``NAME.json``): what was
measured, the exact command, the date, the machine, the figures, and where they come from (written by the benchmark
itself, or transcribed from an earlier README with the command it gave). ``docs/results.md`` is rendered from those
files and nothing else; ``tests/test_docs.py`` fails when the committed page differs from the rendering, so the page
cannot drift from the records.

    .venv/bin/python benchmarks/side_effect_agreement.py --record side-effect-agreement   # a benchmark writes one
    .venv/bin/python benchmarks/record.py                                                 # then render the page

A benchmark opts in with :func:`add_record_option` on its parser and :func:`write_record` with its figures. Records
go to ``docs/results/``, or to the folder ``ECOAGENT_RESULTS_DIR`` names (the tests' smoke runs: never the
documentation's records); ``--records DIR --page FILE`` render or check another folder and page.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS_DIR = ROOT / "docs" / "results"
PAGE = ROOT / "docs" / "results.md"
RESULTS_DIR_ENV = "ECOAGENT_RESULTS_DIR"  # where write_record writes instead (a test's temporary folder)
SOURCES = ("written by the benchmark", "transcribed from")  # how a record's figures came to be

# The page's sections, in reading order: a record names one of them.
SECTIONS = {
    "crawl": "The crawl",
    "score": "Scoring",
    "synth": "EcoAgent-Syn",
    "label": "EcoAgent-Real",
    "release": "Releases",
    "pipeline": "The whole pipeline",
    "paper-scale": "Paper scale on one machine",
    "rated": "RATED",
    "selector": "Tool selection",
}
REQUIRED = ("title", "section", "benchmark", "command", "date", "machine", "source")
NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")
TRANSCRIBED = "transcribed from README, command not recorded"

HEADER = """# Measured results

<!-- Rendered by `python benchmarks/record.py` from docs/results/*.json: edit the records, not this page. -->

Every figure these pages quote, one record each under `docs/results/`: what was measured, the exact command, the
date and the machine. A record that says *transcribed* was copied from the README of its day, with the command that
README gave; one that says *written by the benchmark* was written by the script itself (`--record NAME`, see
`benchmarking/record.py`). Numbers depend on the machine: most were measured on the shared 2-core development
machine, with other jobs running beside them (the load is given where it was noted).
"""


def results_dir() -> Path:
    """Where records are written: ``docs/results/``, or the folder ``ECOAGENT_RESULTS_DIR`` names."""
    return Path(os.environ[RESULTS_DIR_ENV]) if os.environ.get(RESULTS_DIR_ENV) else RESULTS_DIR


def _shown(path: Path) -> str:
    """A path as the messages show it: relative to the repository when it is inside it."""
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def add_record_option(parser: argparse.ArgumentParser) -> None:
    """``--record NAME``: also write the figures to ``docs/results/NAME.json`` for the results page."""
    parser.add_argument(
        "--record",
        metavar="NAME",
        help="also write the figures to docs/results/NAME.json (then render the page: benchmarks/record.py)",
    )


def machine() -> str:
    """This machine in one line: cores, memory, load, Python."""
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        memory = f", {pages / 2**30:.0f} GiB"
    except (ValueError, OSError, AttributeError):
        memory = ""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (
        f"{os.cpu_count()} cores{cpu_model()}{memory}, load average {load:.1f} at the end; "
        f"{platform.system()} {platform.machine()}, Python {platform.python_version()}"
    )


def cpu_model() -> str:
    """``" (MODEL, FLAGS)"``: the processor's model name and its widest vector extension, from ``/proc/cpuinfo``
    (two machines of the same core count can differ 2x in what a figure measures); empty where unreadable."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return ""
    model = next((line.split(":", 1)[1].strip() for line in info.splitlines() if line.startswith("model name")), "")
    flags = set(next((line.split(":", 1)[1].split() for line in info.splitlines() if line.startswith("flags")), []))
    vector = next((f for f in ("avx512f", "avx2", "avx", "sse4_2") if f in flags), "")
    return f" ({', '.join(x for x in (model, vector) if x)})" if model or vector else ""


def command_line() -> str:
    """The command that is running, as a person would type it from the repository root."""
    script = Path(sys.argv[0]).resolve()
    shown = script.relative_to(ROOT).as_posix() if script.is_relative_to(ROOT) else str(script)
    return shlex.join([".venv/bin/python", shown, *sys.argv[1:]])


def write_record(
    name: str,
    *,
    title: str,
    section: str,
    benchmark: str,
    figures: dict[str, object],
    target: str | None = None,
    tables: list[dict] | None = None,
    notes: list[str] | None = None,
) -> Path:
    """Write ``docs/results/NAME.json`` (in :func:`results_dir`) with today's date, this machine and the running
    command.

    A record written again keeps its place on the page (``order``).
    """
    path = results_dir() / f"{name}.json"
    previous = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    record = {
        "title": title,
        "section": section,
        "benchmark": benchmark,
        "command": command_line(),
        "date": dt.date.today().isoformat(),
        "machine": machine(),
        "source": "written by the benchmark",
        "target": target,
        "figures": figures,
        "tables": tables or [],
        "notes": notes or [],
    }
    if "order" in previous:
        record["order"] = previous["order"]
    check_record(name, record, _shown(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"record written: {_shown(path)} (render the page: .venv/bin/python benchmarks/record.py)")
    return path


def check_record(name: str, record: dict, where: str | None = None) -> None:
    """A record the page can render, or a ValueError naming the file (``where``) and what is wrong."""
    where = where or f"docs/results/{name}.json"
    if not NAME.match(name):
        raise ValueError(f"{where}: a record name is lower-case words joined by '-'")
    missing = [key for key in REQUIRED if not record.get(key)]
    if missing:
        raise ValueError(f"{where}: missing {', '.join(missing)}")
    if not record["source"].startswith(SOURCES):
        raise ValueError(f"{where}: source says how the figures came to be: {' or '.join(SOURCES)} ...")
    if record["section"] not in SECTIONS:
        raise ValueError(f"{where}: section {record['section']!r} is not one of {', '.join(SECTIONS)}")
    if not isinstance(record.get("order", 0), int):
        raise ValueError(f"{where}: order is a whole number (the record's place in its section)")
    if not record.get("figures") and not record.get("tables"):
        raise ValueError(f"{where}: a record holds figures or tables")
    for table in record.get("tables", []):
        if any(len(row) != len(table["columns"]) for row in table["rows"]):
            raise ValueError(f"{where}: table {table.get('caption', '')!r} has a row of the wrong width")


def load_records(folder: Path = RESULTS_DIR) -> dict[str, dict]:
    """Every record, by name, in the page's order: by section, then by ``order`` (unset: last), then by name."""
    records = {}
    for path in sorted(folder.glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        check_record(path.stem, record, _shown(path))
        records[path.stem] = record
    order = list(SECTIONS)
    return dict(
        sorted(records.items(), key=lambda kv: (order.index(kv[1]["section"]), kv[1].get("order", 1000), kv[0]))
    )


def _cell(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text.replace("|", "\\|").replace("\n", " ")


def _table(columns: list[str], rows: list[list[object]]) -> list[str]:
    lines = ["| " + " | ".join(_cell(c) for c in columns) + " |", "|" + "---|" * len(columns)]
    return lines + ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows]


def render_record(name: str, record: dict) -> str:
    """One record as a section of the results page, its heading anchored by the record's name."""
    command = record["command"] if record["command"] == TRANSCRIBED else f"`{record['command']}`"
    about = [["measured", record["benchmark"]], ["command", command], ["date", record["date"]]]
    about += [["machine", record["machine"]], ["source", record["source"]]]
    if record.get("target"):
        about.append(["target", record["target"]])
    lines = [f"### {record['title']} {{#{name}}}", "", *_table(["", ""], about), ""]
    if record.get("figures"):
        lines += [*_table(["figure", "value"], [[k, v] for k, v in record["figures"].items()]), ""]
    for table in record.get("tables", []):
        if table.get("caption"):
            lines += [table["caption"], ""]
        lines += [*_table(table["columns"], table["rows"]), ""]
    for note in record.get("notes", []):
        lines += [note, ""]
    return "\n".join(lines)


def render_page(records: dict[str, dict]) -> str:
    """The whole results page: a header, then each section with its records."""
    parts = [HEADER]
    for section, heading in SECTIONS.items():
        names = [name for name, record in records.items() if record["section"] == section]
        if names:
            parts.append(f"## {heading}\n")
            parts += [render_record(name, records[name]) for name in names]
    return "\n".join(parts).rstrip("\n") + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description="Render docs/results.md from the records in docs/results/.")
    parser.add_argument("--check", action="store_true", help="exit 1 when the page differs from the rendering")
    parser.add_argument("--records", type=Path, default=RESULTS_DIR, help="the records' folder (docs/results/)")
    parser.add_argument("--page", type=Path, default=PAGE, help="the page rendered from them (docs/results.md)")
    args = parser.parse_args()
    try:
        records = load_records(args.records)
    except ValueError as exc:
        sys.exit(str(exc))
    page = render_page(records)
    if args.check:
        if not args.page.exists() or args.page.read_text(encoding="utf-8") != page:
            sys.exit(f"{_shown(args.page)} is not the rendering of {_shown(args.records)}/: run benchmarks/record.py")
        print(f"{_shown(args.page)}: the rendering of its {len(records)} records")
        return
    args.page.write_text(page, encoding="utf-8")
    print(f"{_shown(args.page)}: {len(records)} records")


if __name__ == "__main__":
    main()
