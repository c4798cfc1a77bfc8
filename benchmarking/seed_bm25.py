"""The seed paper's Rust BM25 ``Index``, compiled from the seed text and timed on a release's tools and queries.

The seed (``shared/seeds/001_*.txt``) prints a std-only Rust file: ``Tool``, ``tokenize``, ``Index`` and a
``main`` of asserts. :func:`build_seed_index` copies everything from its first ``use`` line up to its ``fn main``
unchanged into a scratch cargo project, appends :data:`HARNESS_MAIN` (ours: read tools and queries from files,
time ``Index::select``) and runs ``cargo build --release --offline`` (std only: no crate is needed).
:func:`time_seed` then runs it on the same tools and queries a Python benchmark times our selector on.

Used by ``benchmarks/selector_throughput.py``; nothing of the seed's code is kept in the repository.
"""

from __future__ import annotations

import hashlib
import subprocess
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SEED_NAME = "001_e5e991383b1489c6.txt"
# shared/ lies beside the checkout (a clone, or a worktree one level further down)
SEED_FILE = next((p / "shared" / "seeds" / SEED_NAME for p in (REPO.parent, REPO.parents[1])
                  if (p / "shared" / "seeds" / SEED_NAME).exists()), REPO.parent / "shared" / "seeds" / SEED_NAME)
SCRATCH = Path("~/.cache/ecoagent/seed_bm25").expanduser()  # outside the repository: build output only

# Ours, not the seed's: reads tools (name, description, permission, schema bytes, core flag; tab-separated), queries
# (one a line) and the caller's permissions, builds the seed's Index once, warms up on 5 queries, then times
# `n` calls of Index::select cycling through the queries. Prints: selections, seconds, index build seconds, checksum.
HARNESS_MAIN = r"""
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let tools: Vec<Tool> = std::fs::read_to_string(&args[1]).unwrap().lines().map(|line| {
        let f: Vec<&str> = line.split('\t').collect();
        Tool { name: f[0].into(), desc: f[1].into(), perm: f[2].into(), schema_len: f[3].parse().unwrap(),
               core: f[4] == "1" }
    }).collect();
    let queries: Vec<String> = std::fs::read_to_string(&args[2]).unwrap().lines().map(String::from).collect();
    let perms_owned: Vec<String> = args[3].split(',').filter(|s| !s.is_empty()).map(String::from).collect();
    let perms: Vec<&str> = perms_owned.iter().map(|s| s.as_str()).collect();
    let budget: usize = args[4].parse().unwrap();
    let n: usize = args[5].parse().unwrap();
    let started = std::time::Instant::now();
    let index = Index::new(tools);
    let build = started.elapsed().as_secs_f64();
    let mut checksum = 0usize;
    for q in queries.iter().take(5) { checksum += index.select(q, &perms, budget).len(); }
    let started = std::time::Instant::now();
    for i in 0..n { checksum += std::hint::black_box(index.select(&queries[i % queries.len()], &perms, budget)).len(); }
    let seconds = started.elapsed().as_secs_f64();
    let first: Vec<&str> = index.select(&queries[0], &perms, budget).into_iter().map(|i| index.name(i)).collect();
    println!("{} {} {} {} {}", n, seconds, build, checksum, first.join(","));
}
"""


@dataclass(frozen=True)
class SeedRun:
    selections: int
    seconds: float
    build_seconds: float
    first_selection: list[str]  # tool names the seed chose for the first query (a sanity check)

    @property
    def per_second(self) -> float:
        return self.selections / self.seconds


def seed_source(seed_file: Path = SEED_FILE) -> str:
    """The seed's Rust code from its first ``use`` line to its ``fn main`` (excluded), unchanged."""
    text = seed_file.read_text(encoding="utf-8")
    start = text.index("use std::collections::HashMap;")
    end = text.index("fn main() {", start)
    code = text[start:end]
    if "pub struct Index" not in code or "pub fn select" not in code:
        raise ValueError(f"{seed_file}: no `Index` with `select` between its first `use` and `fn main`")
    return code


def build_seed_index(seed_file: Path = SEED_FILE, scratch: Path = SCRATCH) -> Path:
    """Compile the seed's Index with our harness (cargo, release profile); returns the binary. Rebuilt on change."""
    source = seed_source(seed_file) + HARNESS_MAIN
    project = scratch / hashlib.sha256(source.encode()).hexdigest()[:12]
    binary = project / "target" / "release" / "seed_bm25"
    if binary.exists():
        return binary
    (project / "src").mkdir(parents=True, exist_ok=True)
    (project / "src" / "main.rs").write_text(source, encoding="utf-8")
    (project / "Cargo.toml").write_text('[package]\nname = "seed_bm25"\nversion = "0.1.0"\nedition = "2021"\n')
    done = subprocess.run(["cargo", "build", "--release", "--offline", "--quiet"], cwd=project,
                          capture_output=True, text=True)  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"cargo build of the seed's Index failed in {project}:\n{done.stderr[-2000:]}")
    return binary


def _one_line(text: str) -> str:
    # tabs and newlines separate fields and records; a space keeps the byte length (the seed's token estimate)
    return text.replace("\t", " ").replace("\r", " ").replace("\n", " ")


def write_inputs(folder: Path, tools: list[dict], queries: list[str]) -> tuple[Path, Path]:
    """``tools``: name, description, permission, prompt_tokens, core; returns (tools file, queries file).

    The seed estimates a tool's prompt cost as (name + description + schema bytes) / 4 + 1; the schema length given
    to it is chosen so that estimate equals the release's ``prompt_tokens`` where it can, so both sides pack the
    same budget.
    """
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for tool in tools:
        name, description = _one_line(tool["name"]), _one_line(tool["description"])
        schema = max(0, 4 * (int(tool["prompt_tokens"]) - 1) - len(name.encode()) - len(description.encode()))
        lines.append(f"{name}\t{description}\t{tool['permission']}\t{schema}\t{int(tool['core'])}")
    tools_file, queries_file = folder / "tools.tsv", folder / "queries.txt"
    tools_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    queries_file.write_text("\n".join(_one_line(q) for q in queries) + "\n", encoding="utf-8")
    return tools_file, queries_file


def time_seed(binary: Path, tools_file: Path, queries_file: Path, caller_permissions: list[str], budget: int,
              n: int) -> SeedRun:  # fmt: skip
    done = subprocess.run([str(binary), str(tools_file), str(queries_file), ",".join(caller_permissions), str(budget),
                           str(n)], capture_output=True, text=True, check=True)  # fmt: skip
    selections, seconds, build, _checksum, first = [*done.stdout.strip().split(" ", 4), ""][:5]
    return SeedRun(int(selections), float(seconds), float(build), [f for f in first.split(",") if f])
