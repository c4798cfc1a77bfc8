"""The ``ecoagent`` command: one subcommand per stage, plus ``run`` for the whole pipeline.

Every stage command takes ``--out DIR`` (default: the stage's folder in the configured store),
``--profile`` and repeated ``--set section.key=value`` overrides. Failures are one line each: an
:class:`~ecoagent.errors.EcoAgentError` exits with its own code (2 for a setting to change), any
other failure of bad input with 1 (see :func:`_attempt`).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.progress import Progress as ProgressBars

from ecoagent.config import Config, load_config
from ecoagent.errors import EXIT_CONFIG, EXIT_FAILED, EcoAgentError
from ecoagent.layout import RunLayout
from ecoagent.stage import Gated, Stage, Stepped
from pipeline import stages
from pipeline.runner import Runner

if TYPE_CHECKING:
    from ecoagent.runtime.context import Reporter
    from ecoagent.runtime.quality_gate import GateResult

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


class _Bars:
    """Phases as rich progress bars on a terminal, one per phase, each line starting with the step's name."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def open(self, name: str, total: int | None) -> _Bar:
        return _Bar(f"{self.prefix}{name}", total)

    def say(self, line: str) -> None:
        _log_line(f"{self.prefix}{line}")


class _Bar:
    def __init__(self, description: str, total: int | None) -> None:
        columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), TimeRemainingColumn())  # fmt: skip
        self.bars = ProgressBars(*columns, console=console, transient=False)
        self.task = self.bars.add_task(description, total=total)
        self.bars.start()

    def update(self, done: int, total: int | None, share: float | None = None) -> None:
        self.bars.update(self.task, completed=done, total=total)  # rich's time left follows its recent rate

    def close(self, failed: bool) -> None:
        self.bars.stop()


class CliRunner(Runner):
    """The CLI's runner (:mod:`pipeline.runner`): bars on a terminal, else plain lines every
    ``progress_interval_s``; a failure is one red line and the exit code of its kind."""

    def reporter(self, step: str) -> Reporter:
        return _Bars(f"{step}: ") if console.is_terminal else super().reporter(step)

    def say(self, line: str) -> None:
        _log_line(line)

    def attempt(self, failure: str, call: Callable[[], T]) -> T:
        return _attempt(failure, call)

    def gate_checked(self, step: str, result: GateResult) -> None:
        failures = result.failures()
        if failures:
            console.print(f"[red]quality gate failed[/]: {len(failures)} expectation(s); report: {result.report_path}")
            for failure in failures:
                console.print(escape(f"  {failure}"))
            raise typer.Exit(EXIT_FAILED)
        console.print(f"quality gate passed ({len(result.results)} expectations); report: {result.report_path}")


# ---- one command per stage of the list, generated from it: `ecoagent crawl`, `score`, `synth`, `label`,
# `release build`; each takes --in (the input stage's folder; a stage reading several: the run root holding them),
# --out, --profile, --set, the stage's own options (each setting one of its settings) and, gated, --no-gate

label_app = typer.Typer(add_completion=False, help="EcoAgent-Real: real queries mapped to catalog tools.")
release_app = typer.Typer(add_completion=False, no_args_is_help=True, help="Build and publish versioned releases.")
GROUPS = {"label": label_app, "release": release_app}  # commands with subcommands of their own


def _run_one(stage: Stage, config: Config, given: dict, usage: Path | None = None) -> int:
    """One stage on ``--in`` / ``--out`` (default: the store's folders), then its gate (unless ``--no-gate``); a
    stepped stage's ``--step``; its exit code."""
    in_dir, out = given.get("in_dir"), given["out"]
    runner = CliRunner(config, usage)
    if len(stage.inputs) > 1:  # --in names the run root holding every input stage's folder
        layout = RunLayout.of(config, in_dir)
        inputs = stage.inputs_under(layout)
    else:
        layout = RunLayout.of(config)
        inputs = runner.attempt(f"{stage.name} failed", lambda: stage.inputs_under(layout, in_dir))
    work = None
    if isinstance(stage, Stepped) and given.get("step"):
        step = runner.attempt(f"{stage.name} failed", lambda: stage.step(given["step"]).name)
        work = lambda ctx: stage.run_steps(ctx, step)  # noqa: E731
    with runner.usage.stage(stage.name, runner.stats):
        result = runner.run(stage, inputs, out or stage.out_under(layout, inputs), work)
        if isinstance(stage, Gated) and not given.get("no_gate"):
            runner.gate(stage, result.out, inputs)
    return result.exit_code


def stage_command(stage: Stage, group: bool = False) -> Callable[..., None]:
    """The CLI command of ``stage``: a function whose signature typer reads (``group``: a group's callback, which
    runs the stage only when no subcommand is named)."""
    options = list(stage.cli_options)
    params = [inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=typer.Context)] if group else []
    if stage.inputs:
        what = "the run root holding its input stages" if len(stage.inputs) > 1 else "its input stage's folder"
        params.append(_option("in_dir", stage.in_flag, f"Read {what} here (default: the store's newest)."))
    params += [_option("out", "--out", "Write this stage's outputs here (default: the store)."),
               _option("profile", "--profile", "Config profile (default, production, ...).", "-p"),
               _option("overrides", "--set", "Override a setting: section.key=value (repeatable).", kind=list[str]),
               _option("usage", "--usage", "Write the stage's wall/CPU time and peak memory to this JSON file.")]
    params += [_option(f"opt_{i}", o.flag, o.help, kind=bool if o.value is not None else list[str] if o.repeat
                       else str) for i, o in enumerate(options)]  # fmt: skip
    if isinstance(stage, Gated):
        params.append(_option("no_gate", "--no-gate", "Skip the quality gate step.", kind=bool))
    if isinstance(stage, Stepped):
        steps = ", ".join(f"{s.name} ({s.help})" for s in stage.steps)
        params.append(_option("step", "--step", f"Run one step, reusing the files of the steps it needs when their "
                                                f"inputs and settings are unchanged: {steps}."))  # fmt: skip

    def command(**given) -> None:
        if group and given["ctx"].invoked_subcommand is not None:
            return
        extra = [o.override(given[f"opt_{i}"]) for i, o in enumerate(options)]
        config = _config(given["profile"], given["overrides"], [e for e in extra if e])
        raise typer.Exit(_run_one(stage, config, given, given["usage"] and Path(given["usage"])))

    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__doc__ = stage.help
    command.__name__ = f"{stage.name}_command"
    return command


def _option(name: str, flag: str, help: str, short: str | None = None, kind: type = str) -> inspect.Parameter:
    default = False if kind is bool else None
    flags = (flag, short) if short else (flag,)
    annotation = Annotated[kind if kind is bool else kind | None, typer.Option(*flags, help=help)]
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)


for _stage in stages.STEPS:
    *_where, _name = _stage.command
    if _where:  # a subcommand of a group (`release build`)
        GROUPS[_where[0]].command(_name)(stage_command(_stage))
    elif _name in GROUPS:  # a group of its own (`label`, with `label agreement`)
        GROUPS[_name].callback(invoke_without_command=True)(stage_command(_stage, group=True))
    else:
        app.command(_name)(stage_command(_stage))
for _name, _group in GROUPS.items():
    app.add_typer(_group, name=_name)


@app.command("gate")
def gate_command(
    in_dir: InOpt = None,
    crawl_dir: Annotated[
        str | None, typer.Option("--crawl", help="The input stage's folder it was made from (default: the store's).")
    ] = None,
    profile: ProfileOpt = None,
    overrides: SetOpt = None,
) -> None:
    """Run the quality gate over a gated stage's folder, the scored catalog (exit code 1 when an expectation fails)."""
    config = _config(profile, overrides)
    layout = RunLayout.of(config)
    (stage,) = [s for s in stages.STAGES if isinstance(s, Gated)]
    CliRunner(config).gate(stage, in_dir or layout.folder(stage.name), stage.inputs_under(layout, crawl_dir))


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
    raise typer.Exit(CliRunner(config, usage).run_all(stages.STAGES, RunLayout.of(config, out)))


@app.command("config")
def config_command(profile: ProfileOpt = None, overrides: SetOpt = None) -> None:
    """Print the resolved configuration."""
    typer.echo(_config(profile, overrides).model_dump_json(indent=2))


if __name__ == "__main__":
    app()
