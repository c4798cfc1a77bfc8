"""The ``ecoagent`` command: one subcommand per stage, plus ``run`` for the whole pipeline.

Every stage command takes ``--out DIR`` (default: the stage's folder in the configured store),
``--profile`` and repeated ``--set section.key=value`` overrides.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ecoagent.config import ConfigError, load_config

app = typer.Typer(add_completion=False, no_args_is_help=True, help="EcoAgent: build the tool-retrieval benchmark.")
console = Console(stderr=True)

OutOpt = Annotated[str | None, typer.Option("--out", help="Write this stage's outputs here (default: the store).")]
InOpt = Annotated[str | None, typer.Option("--in", help="Read this stage's inputs from here (default: the store).")]
ProfileOpt = Annotated[str | None, typer.Option("--profile", "-p", help="Config profile (default, production, ...).")]
SetOpt = Annotated[list[str] | None, typer.Option("--set", help="Override a setting: section.key=value (repeatable).")]


def _config(profile: str | None, overrides: list[str] | None, extra: list[str] | None = None):
    try:
        return load_config(profile, [*(overrides or []), *(extra or [])])
    except ConfigError as exc:
        console.print(f"[red]config error:[/] {escape(str(exc))}")
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
            console.print(escape(f"  {err['package']}: {err['where']}: {err['reason'][:160]}"))
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
            console.print(f"[red]crawl failed:[/] {escape(str(exc))}")
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


def _print_score_summary(summary: dict, out: str) -> None:
    table = Table(title=f"score: {summary['tools']} tools")
    for col in (
        "platform",
        "tools",
        "reliable",
        "mean r_static",
        "critical flaw",
        "any flaw",
        "read-only",
        "unknown tier",
    ):
        table.add_column(col, justify="right" if col != "platform" else "left")
    for platform, row in summary["per_platform"].items():
        table.add_row(
            platform, str(row["tools"]), f"{row['reliable_share']:.1%}", f"{row['r_static_mean']:.3f}",
            f"{row['critical_flaw_share']:.1%}", f"{row['any_flaw_share']:.1%}",
            str(row["side_effect"]["read_only"]), str(row["side_effect"]["unknown"]),
        )  # fmt: skip
    console.print(table)
    dist = summary["distribution"]["r_static"]
    console.print(
        f"reliable (r_static >= {summary['reliable_threshold']}): {summary['reliable']} of {summary['tools']} = "
        f"{summary['reliable_share']:.1%} (the paper reports {summary['paper_reliable_share']:.1%}); "
        f"r_static median {dist['quantiles']['median']:.3f}, p10 {dist['quantiles']['p10']:.3f}, "
        f"p90 {dist['quantiles']['p90']:.3f}"
    )
    console.print("r_static histogram: " + ", ".join(f"{k}: {v}" for k, v in dist["histogram"].items()))
    console.print("side effects: " + ", ".join(f"{k}={v}" for k, v in summary["side_effect"].items()))
    tok = summary["prompt_tokens"]
    console.print(f"prompt tokens: total {tok['total']:,}, median {tok['median']:.0f}, p90 {tok['p90']:.0f}")
    cache = summary["embedding_cache"]
    console.print(
        f"embedding cache hits {cache['hits']}, misses {cache['misses']}; "
        f"total {summary['seconds']['total']}s\noutputs: {out}"
    )


def _run_score(config, in_dir: str | None, out: str | None, run_gate: bool = True) -> int:
    from scoring.score import score

    try:
        with console.status("scoring the catalog (embeddings are cached by text hash)..."):
            result = score(config, in_dir=in_dir, out=out)
    except (FileNotFoundError, ValueError, RuntimeError) as exc:
        console.print(f"[red]score failed:[/] {escape(str(exc))}")
        return 1
    _print_score_summary(result.summary, result.out)
    return _run_gate(config, result.out) if run_gate else 0


def _run_gate(config, in_dir: str | None) -> int:
    from scoring.score import gate

    with console.status("quality gate (great-expectations)..."):
        result = gate(config, in_dir=in_dir)
    failures = result.failures()
    if failures:
        console.print(f"[red]quality gate failed[/]: {len(failures)} expectation(s); report: {result.report_path}")
        for failure in failures:
            console.print(escape(f"  {failure}"))
        return 1
    console.print(f"quality gate passed ({len(result.results)} expectations); report: {result.report_path}")
    return 0


@app.command()
def score(
    in_dir: InOpt = None,
    out: OutOpt = None,
    profile: ProfileOpt = None,
    overrides: SetOpt = None,
    no_gate: Annotated[bool, typer.Option("--no-gate", help="Skip the quality gate step.")] = False,
) -> None:
    """Score every crawled tool (reliability, flaws, side effects, permission, tokens), then gate it."""
    raise typer.Exit(_run_score(_config(profile, overrides), in_dir, out, run_gate=not no_gate))


@app.command()
def gate(in_dir: InOpt = None, profile: ProfileOpt = None, overrides: SetOpt = None) -> None:
    """Run the quality gate over a scored catalog (fails with exit code 1 when an expectation fails)."""
    raise typer.Exit(_run_gate(_config(profile, overrides), in_dir))


def _print_synth_summary(summary: dict, out: str) -> None:
    table = Table(title=f"synth: {summary['queries_kept']} queries for {summary['tools_with_queries']} tools")
    for col in ("platform", "queries", "round-trip top-1", "top-k", "top-k same service", "median rank"):
        table.add_column(col, justify="right" if col != "platform" else "left")
    rt = summary.get("round_trip") or {}
    k = rt.get("top_k", 10)
    for platform, row in (rt.get("per_platform") or {}).items():
        table.add_row(
            platform, str(row["queries"]), f"{row['top1']:.0%}", f"{row[f'top{k}']:.0%}",
            f"{row[f'top{k}_same_service']:.0%}", f"{row['median_rank']:.0f}",
        )  # fmt: skip
    console.print(table)
    console.print(
        f"tools selected {summary['tools_selected']} ({summary['selection']}), requests {summary['requests']} "
        f"({summary['requests_cached_before']} cached, {summary['requests_failed']} failed), "
        f"model {summary['generator_model']}, prompt {summary['prompt_version']}"
    )
    console.print("drops by reason: " + ", ".join(f"{k}={v}" for k, v in summary["drops_by_reason"].items()))
    pairs = summary["pairs"]
    console.print(
        f"pairs: {pairs['positive']} positive, {pairs['hard_negative']} hard and {pairs['random_negative']} random "
        f"negatives; intents {summary['intent_types']}"
    )
    if summary.get("not_a_benchmark"):
        console.print(f"[yellow]note:[/] {summary['not_a_benchmark']}")
    console.print("a random sample of kept queries, for a person to read:")
    for item in summary["review_sample"][:10]:
        # third-party text: escaped, or rich reads "[name]" as a style tag and swallows it
        console.print(escape(f"  [{item['tool']}] {item['query']}  (round-trip rank {item['roundtrip_rank']})"))
    console.print(f"total {summary['seconds']['total']}s\noutputs: {out}")


def _run_synth(config, in_dir: str | None, out: str | None) -> int:
    from synth.generate import synth

    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    ) as bar:
        task = bar.add_task("generate queries (tools)", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        try:
            result = synth(config, in_dir=in_dir, out=out, progress=progress)
        except (FileNotFoundError, ValueError, RuntimeError) as exc:
            console.print(f"[red]synth failed:[/] {escape(str(exc))}")
            return 1
    _print_synth_summary(result.summary, result.out)
    return 0


@app.command()
def synth(
    in_dir: InOpt = None,
    out: OutOpt = None,
    profile: ProfileOpt = None,
    overrides: SetOpt = None,
    tools: Annotated[str | None, typer.Option("--tools", help="'sample' (stratified) or 'all'.")] = None,
) -> None:
    """Generate EcoAgent-Syn: LLM queries per tool, filters, MinHash dedup, round trip, negatives."""
    extra = [f"synth.tools={tools}"] if tools else []
    raise typer.Exit(_run_synth(_config(profile, overrides, extra), in_dir, out))


label_app = typer.Typer(add_completion=False, help="EcoAgent-Real: real queries mapped to catalog tools.")
app.add_typer(label_app, name="label")


def _print_label_summary(summary: dict, out: str) -> None:
    console.print(
        f"label ({summary['source']}): {summary['queries_in']} queries in, {summary['queries_after_filters']} after "
        f"filters and dedup, {summary['candidates']} candidate pairs, {summary['verified_pairs']} verified "
        f"(verifier: {summary['verifier']}, model {summary['verifier_model']}), {summary['queries_kept']} queries kept"
    )
    console.print("splits: " + ", ".join(f"{k}={v}" for k, v in summary["splits"].items()))
    console.print("drops by reason: " + ", ".join(f"{k}={v}" for k, v in summary["drops_by_reason"].items()))
    check = summary.get("human_label_check")
    if check:
        for verifier in ("llm", "embedding"):
            row = check[verifier]
            console.print(
                f"vs human labels ({check['tasks_with_mapped_gold']} tasks with mapped gold), {verifier} verifier: "
                f"precision {row['precision']}, recall {row['recall']} (candidate recall {check['candidate_recall']})"
            )
    console.print(f"review sample: {summary['review_sample_rows']} rows; total {summary['seconds']}s\noutputs: {out}")


def _run_label(config, in_dir: str | None, out: str | None) -> int:
    from labeling.label import label

    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    ) as bar:
        task = bar.add_task("verify pairs", total=None)
        try:
            result = label(config, in_dir=in_dir, out=out, progress=lambda d, t: bar.update(task, completed=d, total=t))
        except (FileNotFoundError, ValueError, RuntimeError) as exc:
            console.print(f"[red]label failed:[/] {escape(str(exc))}")
            return 1
    _print_label_summary(result.summary, result.out)
    return 0


@label_app.callback(invoke_without_command=True)
def label(
    ctx: typer.Context,
    in_dir: InOpt = None,
    out: OutOpt = None,
    profile: ProfileOpt = None,
    overrides: SetOpt = None,
    source: Annotated[str | None, typer.Option(help="bfcl (default), toolbench or livemcpbench.")] = None,
) -> None:
    """Map real user queries to catalog tools: retrieval, verification, splits, review sample."""
    if ctx.invoked_subcommand is not None:
        return
    extra = [f"label.source={source}"] if source else []
    raise typer.Exit(_run_label(_config(profile, overrides, extra), in_dir, out))


@label_app.command("agreement")
def label_agreement(file: Annotated[Path, typer.Argument(help="A filled review_sample.csv.")]) -> None:
    """Agreement of the people's labels with the verifier: share, Cohen's kappa, the disagreements."""
    from labeling.review import format_agreement, read_agreement

    try:
        report = read_agreement(file)
    except (OSError, ValueError) as exc:
        console.print(f"[red]cannot read {file}:[/] {escape(str(exc))}")
        raise typer.Exit(2) from exc
    typer.echo(format_agreement(report))


release_app = typer.Typer(add_completion=False, no_args_is_help=True, help="Build and publish versioned releases.")
app.add_typer(release_app, name="release")


def _run_release(config, root: str | None, version: str | None, previous: str | None) -> int:
    from ecoagent.quality_gate import QualityGateFailed
    from ecoagent.release.pipeline import release_run
    from ecoagent.store import ArtifactStore

    root = root or ArtifactStore(config.store).url()
    try:
        with console.status("building the release (Parquet, card, Croissant, manifest) and its gate..."):
            result = release_run(config, root, version=version, previous=previous)
    except QualityGateFailed as exc:
        console.print(f"[red]release gate failed, nothing released:[/] {escape(str(exc))}")
        return 1
    except (FileNotFoundError, ValueError, RuntimeError) as exc:
        console.print(f"[red]release build failed:[/] {escape(str(exc))}")
        return 1
    console.print(f"release {result.version}: {result.folder}")
    for config_name, splits in sorted(result.manifest.get("counts", {}).items()):
        console.print(f"  {config_name}: " + ", ".join(f"{split} {rows}" for split, rows in splits.items()))
    console.print(f"gate passed ({len(result.gate.results)} expectations); load it with "
                  f"datasets.load_dataset('{result.folder}', 'real-queries')")  # fmt: skip
    return 0


@release_app.command("build")
def release_build(
    root: Annotated[str | None, typer.Option("--in", help="Folder holding crawl/ score/ synth/ label/.")] = None,
    version: Annotated[str | None, typer.Option(help="MAJOR.MINOR.PATCH (default: the UTC date, 2026.11.29).")] = None,
    previous: Annotated[str | None, typer.Option(help="Previous release folder (default: the newest one).")] = None,
    profile: ProfileOpt = None,
    overrides: SetOpt = None,
) -> None:
    """Assemble <root>/release/<version>/ (Hub-ready) and copy its manifest, card and changelog to releases/."""
    raise typer.Exit(_run_release(_config(profile, overrides), root, version, previous))


@release_app.command("publish")
def release_publish(
    folder: Annotated[Path, typer.Argument(help="A built release folder.")],
    repo_id: Annotated[str | None, typer.Option(help="Hub dataset repo (default: release.repo_id).")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print what would be uploaded, upload nothing.")] = False,
    profile: ProfileOpt = None,
    overrides: SetOpt = None,
) -> None:
    """Upload a release to the Hugging Face Hub, tagged with its version (token from the environment only)."""
    from ecoagent.release.publish import PublishError, publish_release

    config = _config(profile, overrides)
    repo = repo_id or config.release.repo_id
    if not repo:
        console.print("[red]no Hub repo:[/] pass --repo-id or set release.repo_id")
        raise typer.Exit(2)
    try:
        result = publish_release(folder, repo, token_env=config.release.token_env, dry_run=dry_run)
    except PublishError as exc:
        console.print(f"[red]publish failed:[/] {escape(str(exc))}")
        raise typer.Exit(1) from exc
    typer.echo(json.dumps(result, indent=2, default=str))


@app.command()
def run(out: OutOpt = None, profile: ProfileOpt = None, overrides: SetOpt = None) -> None:
    """Run the whole refresh: crawl, score + gate, synth, label, release build + gate (under --out DIR)."""
    config = _config(profile, overrides)
    root = out.rstrip("/") if out else None
    crawl_out = f"{root}/crawl" if root else None
    code = _run_crawl(config, crawl_out, None)
    # a partial crawl (exit 3) still produced a usable catalog; later stages run on it
    if code not in (0, 3):
        raise typer.Exit(code)
    score_out = f"{root}/score" if root else None
    score_code = _run_score(config, crawl_out, score_out)
    if score_code:
        raise typer.Exit(score_code)
    synth_code = _run_synth(config, score_out, f"{root}/synth" if root else None)
    if synth_code:
        raise typer.Exit(synth_code)
    label_code = _run_label(config, score_out, f"{root}/label" if root else None)
    if label_code:
        raise typer.Exit(label_code)
    release_code = _run_release(config, root, None, None)
    raise typer.Exit(release_code or code)


@app.command()
def rated(
    release: Annotated[Path | None, typer.Option(help="A release folder (default: the newest release).")] = None,
    out: OutOpt = None,
    profile: ProfileOpt = None,
    overrides: SetOpt = None,
) -> None:
    """RATED on a release: train, Table 1 (offline), Table 2 (failure injection), Table 3 (latency), report."""
    from ecoagent.embedding import ModelUnavailable
    from ecoagent.release.pipeline import newest_release
    from ecoagent.store import ArtifactStore
    from rated.data import ReleaseUnreadable
    from rated.run import rated_run

    config = _config(profile, overrides)
    store_root = Path(ArtifactStore(config.store).path())
    folder = release or newest_release(store_root / "release")
    if folder is None:
        where = escape(str(store_root / "release"))
        console.print(f"[red]no release under {where}:[/] run `ecoagent run` or pass --release")
        raise typer.Exit(2)
    out_dir = Path(out) if out else store_root / "rated" / folder.name
    try:
        result = rated_run(config, folder, out_dir, progress=lambda msg: console.print(escape(msg)))
    except ReleaseUnreadable as exc:
        console.print(f"[red]cannot read the release:[/] {escape(str(exc))}")
        raise typer.Exit(1) from exc
    except ModelUnavailable as exc:  # the encoder to train is a hub model and the hub is off
        console.print(f"[red]model unavailable:[/] {escape(str(exc))}")
        raise typer.Exit(2) from exc
    console.print(f"report: {result.report_path}\nmetrics: {result.metrics_path}")


@app.command("config")
def show_config(profile: ProfileOpt = None, overrides: SetOpt = None) -> None:
    """Print the resolved configuration."""
    config = _config(profile, overrides)
    typer.echo(config.model_dump_json(indent=2))


if __name__ == "__main__":
    app()
