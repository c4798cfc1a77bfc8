"""The ``ecoagent`` command: one subcommand per stage, plus ``run`` for the whole pipeline.

Every stage command takes ``--out DIR`` (default: the stage's folder in the configured store),
``--profile`` and repeated ``--set section.key=value`` overrides. Failures are one line each: an
:class:`~ecoagent.errors.EcoAgentError` exits with its own code (2 for a setting to change), any
other failure of bad input with 1 (see :func:`_attempt`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ecoagent.config import Config, load_config
from ecoagent.errors import EXIT_CONFIG, EXIT_FAILED, EcoAgentError
from ecoagent.layout import RunLayout
from ecoagent.runtime.progress import ProgressLog, phase_progress
from ecoagent.runtime.usage import UsageRecorder

app = typer.Typer(add_completion=False, no_args_is_help=True, help="EcoAgent: build the tool-retrieval benchmark.")
console = Console(stderr=True, soft_wrap=True)  # a failure stays one line, whatever the terminal width
LOG_WIDTH = 10_000  # the console width when output is not a terminal: no line is wrapped or cut

OutOpt = Annotated[str | None, typer.Option("--out", help="Write this stage's outputs here (default: the store).")]
InOpt = Annotated[str | None, typer.Option("--in", help="Read this stage's inputs from here (default: the store).")]
ProfileOpt = Annotated[str | None, typer.Option("--profile", "-p", help="Config profile (default, production, ...).")]
SetOpt = Annotated[list[str] | None, typer.Option("--set", help="Override a setting: section.key=value (repeatable).")]
UsageOpt = Annotated[
    Path | None,
    typer.Option("--usage", help="Write each stage's wall/CPU time, peak memory and LLM wait to this JSON file."),
]

T = TypeVar("T")
# What a stage raises on bad input beside our own errors: a missing or unreadable file, a bad value, a failed step.
_INPUT_FAILURES = (EcoAgentError, OSError, ValueError, RuntimeError)


def _attempt(failure: str, call: Callable[[], T]) -> T:
    """``call()``, or one red line (``failure: message``) and the exit code of the failure (an
    :class:`EcoAgentError` carries its own)."""
    try:
        return call()
    except _INPUT_FAILURES as exc:
        console.print(f"[red]{failure}:[/] {escape(str(exc))}", soft_wrap=True)  # one line, however long
        raise typer.Exit(exc.exit_code if isinstance(exc, EcoAgentError) else EXIT_FAILED) from exc


def _config(profile: str | None, overrides: list[str] | None, extra: list[str] | None = None) -> Config:
    return _attempt("config error", lambda: load_config(profile, [*(overrides or []), *(extra or [])]))


def _log_line(line: str) -> None:
    console.print(line, markup=False, highlight=False)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"ecoagent {package_version()}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the ecoagent version and exit."),
    ] = False,
) -> None:
    if not console.is_terminal:
        # A log file or a pipe: rich would wrap every line at 80 columns and cut table headers ("platfo…").
        # Lines as long as their content instead; tables keep their natural width.
        console.width = LOG_WIDTH
        console.soft_wrap = True


def package_version() -> str:
    """The installed ``ecoagent`` distribution's version (pyproject.toml's ``version``)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ecoagent")
    except PackageNotFoundError:  # run from a source tree that was never installed (make setup installs it)
        import tomllib

        from ecoagent.config import PROJECT_ROOT

        return tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["project"]["version"]


@contextmanager
def _progress(description: str, config: Config) -> Iterator[Callable[[str, int, int], None]]:
    """Per phase, a progress bar on a terminal, else plain progress lines every ``progress_interval_s`` (a log
    file shows a bar only once it finished); yields ``update(phase, done, total)`` for the stage's callback."""
    if not console.is_terminal:
        with phase_progress(description, interval_s=config.progress_interval_s, emit=_log_line) as update:
            yield update
        return
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    ) as bar:
        tasks: dict[str, int] = {}

        def update(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(description.format(phase=phase), total=total)
            bar.update(tasks[phase], completed=done, total=total)

        yield update


def _with_bar(stage: str, description: str, config: Config, call: Callable[[Callable[[int, int], None]], T]) -> T:
    """``call(progress)`` for a stage with one bar (``progress(done, total)``), its failure reported by ``_attempt``.

    Not on a terminal, the progress lines run for the whole stage, so the work after the counted part (the
    round-trip embedding after generation) is not silent either."""
    if not console.is_terminal:
        with ProgressLog(description, interval_s=config.progress_interval_s, emit=_log_line) as log:
            return _attempt(f"{stage} failed", lambda: call(log.update))
    with _progress(description, config) as update:
        return _attempt(f"{stage} failed", lambda: call(lambda done, total: update(description, done, total)))


@contextmanager
def _activity(description: str, config: Config) -> Iterator[None]:
    """A step without a count: a spinner on a terminal, else a line every ``progress_interval_s`` with the time
    it has been running."""
    if console.is_terminal:
        with console.status(f"{description}..."):
            yield
        return
    with ProgressLog(description, interval_s=config.progress_interval_s, emit=_log_line):
        yield


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


def _run_crawl(config: Config, out: str | None, sources: Path | None) -> int:
    """The crawl; 0 when complete, 3 when partial (the catalog is written, some packages recorded errors)."""
    from crawlers.crawl import crawl

    with _progress("{phase} packages", config) as update:
        result = _attempt("crawl failed", lambda: crawl(config, out=out, sources_path=sources, progress=update))
    _print_crawl_summary(result.summary, result.out)
    if result.partial:
        console.print("[yellow]crawl was partial: some packages recorded errors (exit code 3)[/]")
    return result.exit_code


@app.command("crawl")
def crawl_command(
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
    for name, reading in summary.get("readings", {}).items():
        console.print(
            f"reliable under the {name.replace('_', '-')} reading"
            + (f" ({reading['description']})" if reading["description"] else "")
            + f": {reading['reliable']} of {summary['tools']} = {reading['reliable_share']:.1%} "
            f"(ours: {summary['reliable_share']:.1%})"
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


def _run_score(config: Config, in_dir: str | None, out: str | None, run_gate: bool = True) -> None:
    from scoring.score import score

    with _activity("scoring the catalog (embeddings are cached by text hash)", config):
        result = _attempt("score failed", lambda: score(config, in_dir=in_dir, out=out))
    _print_score_summary(result.summary, result.out)
    if run_gate:
        _run_gate(config, result.out, crawl_dir=in_dir)


def _run_gate(config: Config, in_dir: str | None, crawl_dir: str | None) -> None:
    """The scored-catalog gate; exit 1 when an expectation fails."""
    from scoring.score import gate

    with _activity("quality gate (great-expectations)", config):
        result = _attempt("quality gate failed", lambda: gate(config, in_dir=in_dir, crawl_dir=crawl_dir))
    failures = result.failures()
    if failures:
        console.print(f"[red]quality gate failed[/]: {len(failures)} expectation(s); report: {result.report_path}")
        for failure in failures:
            console.print(escape(f"  {failure}"))
        raise typer.Exit(EXIT_FAILED)
    console.print(f"quality gate passed ({len(result.results)} expectations); report: {result.report_path}")


@app.command("score")
def score_command(
    in_dir: InOpt = None,
    out: OutOpt = None,
    profile: ProfileOpt = None,
    overrides: SetOpt = None,
    no_gate: Annotated[bool, typer.Option("--no-gate", help="Skip the quality gate step.")] = False,
) -> None:
    """Score every crawled tool (reliability, flaws, side effects, permission, tokens), then gate it."""
    _run_score(_config(profile, overrides), in_dir, out, run_gate=not no_gate)


@app.command("gate")
def gate_command(
    in_dir: InOpt = None,
    crawl_dir: Annotated[
        str | None, typer.Option("--crawl", help="The crawl it was scored from (default: the store's).")
    ] = None,
    profile: ProfileOpt = None,
    overrides: SetOpt = None,
) -> None:
    """Run the quality gate over a scored catalog (fails with exit code 1 when an expectation fails)."""
    _run_gate(_config(profile, overrides), in_dir, crawl_dir)


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


def _run_synth(config: Config, in_dir: str | None, out: str | None) -> None:
    from synth.generate import synth

    generate = "generate queries (tools)"
    result = _with_bar("synth", generate, config, lambda bar: synth(config, in_dir, out, progress=bar))
    _print_synth_summary(result.summary, result.out)


@app.command("synth")
def synth_command(
    in_dir: InOpt = None,
    out: OutOpt = None,
    profile: ProfileOpt = None,
    overrides: SetOpt = None,
    tools: Annotated[str | None, typer.Option("--tools", help="'sample' (stratified) or 'all'.")] = None,
) -> None:
    """Generate EcoAgent-Syn: LLM queries per tool, filters, MinHash dedup, round trip, negatives."""
    extra = [f"synth.tools={tools}"] if tools else []
    _run_synth(_config(profile, overrides, extra), in_dir, out)


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
    gold = summary.get("gold")
    if gold:
        console.print(
            f"gold set (LiveMCPBench, human-annotated): {gold['gold_queries']} of {gold['tasks']} tasks, "
            f"{gold['gold_qrels']} qrels; annotated tool names mapped {gold['mapped']['pairs']} of "
            f"{gold['annotated']['pairs']} ({gold['ambiguous']['pairs']} ambiguous), "
            f"unmapped {gold['unmapped']['pairs']}"
        )
        evaluation = gold["evaluation"]
        rows = {"candidates (top-k)": evaluation["candidates"], **evaluation["verifiers"]}
        for name, row in rows.items():
            console.print(
                f"  vs gold, {name}: precision {row['precision']}, recall {row['recall']}, F1 {row['f1']} "
                f"({row['correct_pairs']} of {row['verified_pairs']} pairs right)"
            )
    if "workflows" in summary:
        _print_workflow_summary(summary["workflows"])
    console.print(f"review sample: {summary['review_sample_rows']} rows; total {summary['seconds']}s\noutputs: {out}")


def _print_workflow_summary(w: dict) -> None:
    """label.workflows: the set and the labeler measured on it (labeling/workflows)."""
    share = w["mapping"]["official_packages"]
    console.print(
        f"workflows ({w['package']}): {w['queries_kept']} queries kept ({w['queries_kept_with_exact_label']} with an "
        f"exact label), splits {w['splits']}; n8n app nodes mapped {share['mapped_share']:.1%} "
        f"({share['mapped_exact_share']:.1%} exactly)"
    )
    evaluation = w["evaluation"]
    for name, levels in evaluation["verifiers"].items():
        row = levels["tool"]
        console.print(f"  vs workflow labels, {name}: precision {row['precision']} {row.get('precision_ci95')}, "
                      f"recall {row['recall']} {row.get('recall_ci95')}, F1 {row['f1']} {row.get('f1_ci95')} "
                      f"({evaluation['queries']} queries)")  # fmt: skip


def _run_label(config: Config, in_dir: str | None, out: str | None) -> None:
    from labeling.label import label

    result = _with_bar("label", "verify pairs", config, lambda bar: label(config, in_dir, out, progress=bar))
    _print_label_summary(result.summary, result.out)


@label_app.callback(invoke_without_command=True)
def label_command(
    ctx: typer.Context,
    in_dir: InOpt = None,
    out: OutOpt = None,
    profile: ProfileOpt = None,
    overrides: SetOpt = None,
    source: Annotated[str | None, typer.Option(help="bfcl (default) or toolbench.")] = None,
) -> None:
    """Map real user queries to catalog tools: retrieval, verification, splits, review sample."""
    if ctx.invoked_subcommand is not None:
        return
    extra = [f"label.source={source}"] if source else []
    _run_label(_config(profile, overrides, extra), in_dir, out)


@label_app.command("agreement")
def label_agreement(
    file: Annotated[Path, typer.Argument(help="A filled review_sample.csv.")],
    key: Annotated[Path | None, typer.Option(help="The key of a blind sheet (its hidden labels).")] = None,
) -> None:
    """Agreement of the people's labels with the verifier: share, Cohen's kappa, the disagreements."""
    from ecoagent.release_format.review import format_agreement, read_agreement

    try:
        report = read_agreement(file, key)
    except (OSError, ValueError) as exc:  # the argument is what must change, as with a setting
        console.print(f"[red]cannot read {file}:[/] {escape(str(exc))}")
        raise typer.Exit(EXIT_CONFIG) from exc
    typer.echo(format_agreement(report))


release_app = typer.Typer(add_completion=False, no_args_is_help=True, help="Build and publish versioned releases.")
app.add_typer(release_app, name="release")


def _run_release(config: Config, root: str | None, version: str | None, previous: str | None) -> None:
    from pipeline.release_run import release_run
    from release.build import ReleaseInputs

    layout = RunLayout.of(config, root)
    with _activity("building the release (Parquet, card, Croissant, manifest) and its gate", config):
        result = _attempt(
            "release build failed",
            lambda: release_run(config, ReleaseInputs.under(layout), layout, version=version, previous=previous),
        )
    console.print(f"release {result.version}: {result.folder}")
    for config_name, splits in sorted(result.manifest.get("counts", {}).items()):
        console.print(f"  {config_name}: " + ", ".join(f"{split} {rows}" for split, rows in splits.items()))
    console.print(f"gate passed ({len(result.gate.results)} expectations); load it with "
                  f"datasets.load_dataset('{result.folder}', 'real-queries')")  # fmt: skip


@release_app.command("build")
def release_build_command(
    root: Annotated[str | None, typer.Option("--in", help="Folder holding crawl/ score/ synth/ label/.")] = None,
    version: Annotated[str | None, typer.Option(help="MAJOR.MINOR.PATCH (default: the UTC date, 2026.11.29).")] = None,
    previous: Annotated[str | None, typer.Option(help="Previous release folder (default: the newest one).")] = None,
    profile: ProfileOpt = None,
    overrides: SetOpt = None,
) -> None:
    """Assemble <root>/release/<version>/ (Hub-ready) and copy its manifest, card and changelog to releases/."""
    _run_release(_config(profile, overrides), root, version, previous)


@release_app.command("publish")
def release_publish_command(
    folder: Annotated[Path, typer.Argument(help="A built release folder.")],
    repo_id: Annotated[str | None, typer.Option(help="Hub dataset repo (default: release.repo_id).")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print what would be uploaded, upload nothing.")] = False,
    profile: ProfileOpt = None,
    overrides: SetOpt = None,
) -> None:
    """Upload a release to the Hugging Face Hub, tagged with its version (token from the environment only)."""
    from release.publish import publish_release

    config = _config(profile, overrides)
    repo = repo_id or config.release.repo_id
    if not repo:
        console.print("[red]no Hub repo:[/] pass --repo-id or set release.repo_id")
        raise typer.Exit(EXIT_CONFIG)
    result = _attempt(
        "publish failed", lambda: publish_release(folder, repo, token_env=config.release.token_env, dry_run=dry_run)
    )
    if not dry_run:  # a dry run has printed its listing (each file once) and what a publish would delete
        typer.echo(json.dumps(result, indent=2, default=str))


@release_app.command("verify")
def release_verify_command(
    folder: Annotated[Path, typer.Argument(help="A release folder (a build or a download of one).")],
    manifest_sha256: Annotated[
        str | None, typer.Option(help="The published sha256 of manifest.json (the Hub tag's message).")
    ] = None,
) -> None:
    """Check every file of a release against manifest.json (sha256, size, nothing unlisted); exit 1 on any problem."""
    from ecoagent.release_format.integrity import check_release

    result = check_release(folder, manifest_sha256=manifest_sha256)
    for problem in result.problems:
        console.print(f"[red]{escape(str(folder))}:[/] {escape(problem)}", soft_wrap=True)
    if result.problems:
        raise typer.Exit(EXIT_FAILED)
    typer.echo(f"release {result.version} in {folder}: {len(result.files)} files match manifest.json "
               f"(sha256 {result.manifest_sha256})")  # fmt: skip


@app.command("run")
def run_command(
    out: OutOpt = None, profile: ProfileOpt = None, overrides: SetOpt = None, usage: UsageOpt = None
) -> None:
    """Run the whole refresh: crawl, score + gate, synth, label, release build + gate (under --out DIR)."""
    config = _config(profile, overrides)
    layout = RunLayout.of(config, out)
    recorder = UsageRecorder(usage)
    # a partial crawl (exit 3) still produced a usable catalog; later stages run on it, and run exits 3
    with recorder.stage("crawl"):
        code = _run_crawl(config, layout.crawl, None)
    with recorder.stage("score"):
        _run_score(config, layout.crawl, layout.score)
    with recorder.stage("synth"):
        _run_synth(config, layout.score, layout.synth)
    with recorder.stage("label"):
        _run_label(config, layout.score, layout.label)
    with recorder.stage("release"):
        _run_release(config, layout.root, None, None)
    raise typer.Exit(code)


@app.command("rated")
def rated_command(
    release: Annotated[Path | None, typer.Option(help="A release folder (default: the newest release).")] = None,
    out: OutOpt = None,
    profile: ProfileOpt = None,
    overrides: SetOpt = None,
    usage: UsageOpt = None,
) -> None:
    """RATED on a release: train, Table 1 (offline), Table 2 (failure injection), Table 3 (latency), report."""
    from ecoagent.layout import newest_release
    from rated.run import rated_run

    config = _config(profile, overrides)
    layout = RunLayout.of(config)
    folder = release or newest_release(layout.releases)
    if folder is None:
        console.print(f"[red]no release under {escape(layout.releases)}:[/] run `ecoagent run` or pass --release")
        raise typer.Exit(EXIT_CONFIG)
    out_dir = Path(out) if out else Path(layout.rated(folder.name))
    with UsageRecorder(usage).stage("rated"):
        result = _attempt(
            "rated failed", lambda: rated_run(config, folder, out_dir, progress=lambda msg: console.print(escape(msg)))
        )
    console.print(f"report: {result.report_path}\nmetrics: {result.metrics_path}")


@app.command("config")
def config_command(profile: ProfileOpt = None, overrides: SetOpt = None) -> None:
    """Print the resolved configuration."""
    typer.echo(_config(profile, overrides).model_dump_json(indent=2))


if __name__ == "__main__":
    app()
