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
from rich.progress import BarColumn, MofNCompleteColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as ProgressBars

from ecoagent.config import Config, load_config
from ecoagent.errors import EXIT_CONFIG, EXIT_FAILED, EcoAgentError
from ecoagent.layout import RunLayout
from ecoagent.runtime.progress import ProgressLog, stage_progress
from ecoagent.runtime.usage import UsageRecorder
from ecoagent.stage import Gated, Progress, Stage, StageResult
from pipeline import stages

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
def _stage_progress(stage: Stage, config: Config) -> Iterator[Progress]:
    """The stage's ``progress(phase, done, total)``: bars on a terminal (one per phase), else plain lines every
    ``progress_interval_s`` for the whole stage, so the work after a counted step is not silent either."""
    if not console.is_terminal:
        with stage_progress(stage.progress, phased=stage.phased, interval_s=config.progress_interval_s,
                            emit=_log_line) as update:  # fmt: skip
            yield update
        return
    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())  # fmt: skip
    with ProgressBars(*columns, console=console) as bar:
        tasks: dict[str, int] = {}
        if not stage.phased:
            tasks[stage.progress] = bar.add_task(stage.progress, total=None)

        def update(phase: str, done: int, total: int) -> None:
            key = phase if stage.phased else stage.progress
            if key not in tasks:
                tasks[key] = bar.add_task(stage.progress.format(phase=phase), total=total)
            bar.update(tasks[key], completed=done, total=total)

        yield update


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


def _print_lines(lines: list[str]) -> None:
    for line in lines:
        _log_line(line)


def _run_stage(stage: Stage, config: Config, inputs: dict[str, str], out: str) -> StageResult:
    """Run one stage with its progress, print what it says about itself; a failure is one line (``_attempt``)."""
    with _stage_progress(stage, config) as progress:
        result = _attempt(f"{stage.name} failed", lambda: stage.run(config, inputs, out, progress))
    _print_lines(result.lines)
    return result


def _run_gate(stage: Gated, config: Config, folder: str, inputs: dict[str, str]) -> None:
    """The stage's quality gate over ``folder``; exit 1 when an expectation fails."""
    with _activity("quality gate (great-expectations)", config):
        result = _attempt("quality gate failed", lambda: stage.gate(config, folder, inputs))
    failures = result.failures()
    if failures:
        console.print(f"[red]quality gate failed[/]: {len(failures)} expectation(s); report: {result.report_path}")
        for failure in failures:
            console.print(escape(f"  {failure}"))
        raise typer.Exit(EXIT_FAILED)
    console.print(f"quality gate passed ({len(result.results)} expectations); report: {result.report_path}")


def _stage_command(name: str, in_dir: str | None, out: str | None, config: Config, gate: bool = True) -> int:
    """One stage of the list on ``--in`` / ``--out`` (default: the store's folders), then its gate."""
    stage = stages.stage_named(name)
    layout = RunLayout.of(config)
    inputs = stage.inputs_under(layout, in_dir)
    result = _run_stage(stage, config, inputs, out or layout.folder(stage.name))
    if gate and isinstance(stage, Gated):
        _run_gate(stage, config, result.out, inputs)
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
    if sources:
        extra.append(f"crawl.sources={sources.resolve()}")
    if latest:
        extra.append("crawl.latest=true")
    if platform:
        extra.append(f"crawl.platforms=[{','.join(platform)}]")
    if cache_dir:
        extra.append(f"crawl.cache_dir={cache_dir}")
    raise typer.Exit(_stage_command("crawl", None, out, _config(profile, overrides, extra)))


@app.command("score")
def score_command(
    in_dir: InOpt = None, out: OutOpt = None, profile: ProfileOpt = None, overrides: SetOpt = None,
    no_gate: Annotated[bool, typer.Option("--no-gate", help="Skip the quality gate step.")] = False,
) -> None:
    """Score every crawled tool (reliability, flaws, side effects, permission, tokens), then gate it."""
    _stage_command("score", in_dir, out, _config(profile, overrides), gate=not no_gate)


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
    config = _config(profile, overrides)
    layout = RunLayout.of(config)
    stage = stages.stage_named("score")
    _run_gate(stage, config, in_dir or layout.folder(stage.name), {"crawl": crawl_dir or layout.crawl})


@app.command("synth")
def synth_command(
    in_dir: InOpt = None, out: OutOpt = None, profile: ProfileOpt = None, overrides: SetOpt = None,
    tools: Annotated[str | None, typer.Option("--tools", help="'sample' (stratified) or 'all'.")] = None,
) -> None:
    """Generate EcoAgent-Syn: LLM queries per tool, filters, MinHash dedup, round trip, negatives."""
    extra = [f"synth.tools={tools}"] if tools else []
    _stage_command("synth", in_dir, out, _config(profile, overrides, extra))


label_app = typer.Typer(add_completion=False, help="EcoAgent-Real: real queries mapped to catalog tools.")
app.add_typer(label_app, name="label")


@label_app.callback(invoke_without_command=True)
def label_command(
    ctx: typer.Context,
    in_dir: InOpt = None, out: OutOpt = None, profile: ProfileOpt = None, overrides: SetOpt = None,
    source: Annotated[str | None, typer.Option(help="bfcl (default) or toolbench.")] = None,
) -> None:
    """Map real user queries to catalog tools: retrieval, verification, splits, review sample."""
    if ctx.invoked_subcommand is not None:
        return
    extra = [f"label.source={source}"] if source else []
    _stage_command("label", in_dir, out, _config(profile, overrides, extra))


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


@release_app.command("build")
def release_build_command(
    root: Annotated[str | None, typer.Option("--in", help="Folder holding crawl/ score/ synth/ label/.")] = None,
    version: Annotated[str | None, typer.Option(help="MAJOR.MINOR.PATCH (default: the UTC date, 2026.11.29).")] = None,
    previous: Annotated[str | None, typer.Option(help="Previous release folder (default: the newest one).")] = None,
    profile: ProfileOpt = None,
    overrides: SetOpt = None,
) -> None:
    """Assemble <root>/release/<version>/ (Hub-ready) and copy its manifest, card and changelog to releases/."""
    extra = [f"release.{key}={value}" for key, value in (("version", version), ("previous", previous)) if value]
    config = _config(profile, overrides, extra)
    layout = RunLayout.of(config, root)
    stage = stages.stage_named("release")
    _run_stage(stage, config, stage.inputs_under(layout), layout.folder(stage.name))


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
    """Run the whole refresh, every stage of the list in order (under --out DIR): crawl, score + gate, synth, label,
    release build + gate."""
    config = _config(profile, overrides)
    layout = RunLayout.of(config, out)
    recorder = UsageRecorder(usage)
    code = 0  # a partial crawl (exit 3) still produced a usable catalog; later stages run on it, and run exits 3
    for stage in stages.STAGES:
        inputs = stage.inputs_under(layout)
        with recorder.stage(stage.name):
            result = _run_stage(stage, config, inputs, layout.folder(stage.name))
            if isinstance(stage, Gated):
                _run_gate(stage, config, result.out, inputs)
        code = code or result.exit_code
    raise typer.Exit(code)


@app.command("rated")
def rated_command(
    release: Annotated[
        str | None, typer.Option(help="A release folder or store URL (default: the newest release in the store).")
    ] = None,
    out: OutOpt = None,
    profile: ProfileOpt = None,
    overrides: SetOpt = None,
    usage: UsageOpt = None,
) -> None:
    """RATED on a release: train, Table 1 (offline), Table 2 (failure injection), Table 3 (latency), report."""
    from ecoagent.layout import newest_release
    from rated.run import rated_to

    config = _config(profile, overrides)
    layout = RunLayout.of(config)
    folder = release or newest_release(layout.releases)
    if folder is None:
        console.print(f"[red]no release under {escape(layout.releases)}:[/] run `ecoagent run` or pass --release")
        raise typer.Exit(EXIT_CONFIG)
    out_dir = out or layout.rated(folder.rstrip("/").rsplit("/", 1)[-1])
    with UsageRecorder(usage).stage("rated"):
        result = _attempt(
            "rated failed", lambda: rated_to(config, folder, out_dir, progress=lambda msg: console.print(escape(msg)))
        )
    console.print(f"report: {result.report_path}\nmetrics: {result.metrics_path}")


@app.command("history")
def history_command(
    since: Annotated[str, typer.Option(help="First month, YYYY-MM (the paper's Figure 1 starts then).")] = "2025-02",
    until: Annotated[str | None, typer.Option(help="Last month, YYYY-MM (default: the newest complete month).")] = None,
    fresh: Annotated[bool, typer.Option("--fresh", help="Crawl and score every month again, even unchanged.")] = False,
    out: Annotated[str | None, typer.Option("--out", help="Root folder (default: the store).")] = None,
    profile: ProfileOpt = None,
    overrides: SetOpt = None,
) -> None:
    """The catalog month by month (the paper's Figure 1): every pinned package at the newest version published by
    each month's end, crawled and scored; a table, a plot and every tool's first month, in <root>/history/."""
    from ecoagent.runtime.progress import phase_progress
    from pipeline.history import history

    config = _config(profile, overrides)
    with phase_progress("history: {phase}", interval_s=config.progress_interval_s, emit=_log_line) as progress:
        result = _attempt("history failed", lambda: history(config, since, until, out, fresh, progress))
    _print_lines(result.lines)


@app.command("config")
def config_command(profile: ProfileOpt = None, overrides: SetOpt = None) -> None:
    """Print the resolved configuration."""
    typer.echo(_config(profile, overrides).model_dump_json(indent=2))


if __name__ == "__main__":
    app()
