"""The ``ecoagent`` command: one subcommand per stage, plus ``run`` for the whole pipeline.

Every stage command takes ``--out DIR`` (default: the stage's folder in the configured store),
``--profile`` and repeated ``--set section.key=value`` overrides.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ecoagent.config import ConfigError, load_config

app = typer.Typer(add_completion=False, no_args_is_help=True, help="EcoAgent: build the tool-retrieval benchmark.")
console = Console(stderr=True)

OutOpt = Annotated[str | None, typer.Option("--out", help="Write this stage's outputs here (default: the store).")]
ProfileOpt = Annotated[str | None, typer.Option("--profile", "-p", help="Config profile (default, production, ...).")]
SetOpt = Annotated[list[str] | None, typer.Option("--set", help="Override a setting: section.key=value (repeatable).")]


def _config(profile: str | None, overrides: list[str] | None, extra: list[str] | None = None):
    try:
        return load_config(profile, [*(overrides or []), *(extra or [])])
    except ConfigError as exc:
        console.print(f"[red]config error:[/] {exc}")
        raise typer.Exit(2) from exc


def _print_crawl_summary(summary: dict, out: str) -> None:
    table = Table(title=f"crawl: {summary['tools']} tools ({summary['status']})")
    for col in (
        "platform",
        "tools",
        "packages",
        "description",
        "parameters",
        "auth",
        "endpoints",
        "docs",
        "categories",
    ):
        table.add_column(col, justify="right" if col != "platform" else "left")
    for platform, row in summary["per_platform"].items():
        cov = row["coverage"]
        table.add_row(
            platform, str(row["tools"]), f"{row['packages_with_tools']}/{row['packages']}",
            *(f"{cov[k]:.0%}" for k in ("description", "parameters", "auth", "endpoints", "doc_urls", "categories")),
        )  # fmt: skip
    cov = summary["coverage"]
    table.add_row(
        "all", str(summary["tools"]), str(summary["packages"]["total"]),
        *(f"{cov[k]:.0%}" for k in ("description", "parameters", "auth", "endpoints", "doc_urls", "categories")),
        style="bold",
    )  # fmt: skip
    console.print(table)
    if summary["drops_by_reason"]:
        console.print(
            "dropped records by reason: " + ", ".join(f"{k}={v}" for k, v in summary["drops_by_reason"].items())
        )
    if summary["skipped_by_reason"]:
        console.print("not counted as tools: " + ", ".join(f"{k}={v}" for k, v in summary["skipped_by_reason"].items()))
    for platform, rule in summary["counting_rules"].items():
        if rule:
            console.print(f"counting rule ({platform}): {rule}")
    nd = summary["near_duplicates"]
    console.print(
        f"near-duplicates (reported, kept): {nd['same_description_groups']} same-description groups "
        f"({nd['same_description_tools']} tools), {nd['same_name_groups']} same-name groups across packages"
    )
    errors = summary["package_errors"]
    if errors:
        console.print(f"[yellow]{len(errors)} recorded errors in {summary['packages']['with_errors']} packages[/]:")
        for err in errors[:10]:
            console.print(f"  {err['package']}: {err['where']}: {err['reason'][:160]}")
        if len(errors) > 10:
            console.print(f"  ... and {len(errors) - 10} more in crawl_summary.json")
    console.print(
        f"cache hits {summary['cache']['hits']}, misses {summary['cache']['misses']}; "
        f"fetch {summary['seconds']['fetch']}s, extract {summary['seconds']['extract']}s, "
        f"total {summary['seconds']['total']}s\noutputs: {out}"
    )


def _run_crawl(config, out: str | None, sources: Path | None) -> int:
    from crawlers.crawl import StageFailed, crawl

    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    ) as bar:
        tasks: dict[str, int] = {}

        def progress(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(f"{phase} packages", total=total)
            bar.update(tasks[phase], completed=done)

        try:
            result = crawl(config, out=out, sources_path=sources, progress=progress)
        except (StageFailed, ValueError) as exc:
            console.print(f"[red]crawl failed:[/] {exc}")
            return 1
    _print_crawl_summary(result.summary, result.out)
    if result.partial:
        console.print("[yellow]crawl was partial: some packages recorded errors (exit code 3)[/]")
    return result.exit_code


@app.command()
def crawl(
    out: OutOpt = None,
    profile: ProfileOpt = None,
    overrides: SetOpt = None,
    sources: Annotated[Path | None, typer.Option(help="Source list to crawl (default: crawl.sources).")] = None,
    latest: Annotated[bool, typer.Option("--latest", help="Resolve current registry versions.")] = False,
    platform: Annotated[list[str] | None, typer.Option(help="Only these platforms (repeatable).")] = None,
    cache_dir: Annotated[str | None, typer.Option(help="Package cache folder (default: crawl.cache_dir).")] = None,
) -> None:
    """Fetch the pinned packages and extract every tool into tools.parquet."""
    extra = []
    if latest:
        extra.append("crawl.latest=true")
    if platform:
        extra.append(f"crawl.platforms=[{','.join(platform)}]")
    if cache_dir:
        extra.append(f"crawl.cache_dir={cache_dir}")
    raise typer.Exit(_run_crawl(_config(profile, overrides, extra), out, sources))


@app.command()
def run(out: OutOpt = None, profile: ProfileOpt = None, overrides: SetOpt = None) -> None:
    """Run the whole pipeline on the configured profile (so far: the crawl)."""
    config = _config(profile, overrides)
    crawl_out = f"{out.rstrip('/')}/crawl" if out else None
    code = _run_crawl(config, crawl_out, None)
    # a partial crawl (exit 3) still produced a usable catalog; later stages run on it
    raise typer.Exit(code)


@app.command("config")
def show_config(profile: ProfileOpt = None, overrides: SetOpt = None) -> None:
    """Print the resolved configuration."""
    config = _config(profile, overrides)
    typer.echo(config.model_dump_json(indent=2))


if __name__ == "__main__":
    app()
