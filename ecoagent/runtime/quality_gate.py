"""A small great-expectations (1.x) runner shared by the pipeline's quality gates.

A gate validates one polars frame (converted to pandas: GX 1.x has no polars source) against a list
of GX expectation objects, plus optional run-level ``metrics`` (e.g. the crawl's drop share) that are
validated as a one-row frame. Expectations meant for that frame are built with :func:`metric_between`,
which tags them in their ``meta``; everything else runs on the main frame.

The result is written as a Markdown report for people (``<name>_gate.md``) and the GX JSON
(``<name>_gate.json``), and :func:`enforce` turns a failed gate into :class:`QualityGateFailed` so
that a failing catalog is never released.

great_expectations takes ~5 s to import, so it is imported inside the functions that need it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import polars as pl

from ecoagent.errors import EcoAgentError
from ecoagent.text.markdown import markdown_cell, markdown_table

if TYPE_CHECKING:
    from great_expectations.expectations import Expectation

METRICS_TARGET = "metrics"
TABLE_TARGET = "table"
_TARGET_KEY = "gate_target"
_SAMPLE_SIZE = 5  # unexpected values shown per expectation in the report and the error message


@dataclass
class GateResult:
    """The outcome of one gate; ``results`` holds one plain dict per expectation, in the order given."""

    name: str
    success: bool
    results: list[dict] = field(default_factory=list)
    report_path: str | None = None

    def failures(self) -> list[dict]:
        return [r for r in self.results if not r["success"]]


class QualityGateFailed(EcoAgentError, RuntimeError):
    """A gate failed; the message names the failed expectations and the report path."""

    def __init__(self, result: GateResult) -> None:
        self.result = result
        failed = result.failures()
        lines = [f"quality gate '{result.name}' failed {len(failed)} of {len(result.results)} expectations:"]
        lines += [f"  - {_label(r)}: {_observed(r)}" for r in failed]
        lines.append(f"report: {result.report_path or '(not written)'}")
        super().__init__("\n".join(lines))


def metric_between(
    metric: str, *, min_value: float | None = None, max_value: float | None = None, description: str | None = None
) -> Expectation:
    """An expectation on one run-level metric passed to :func:`run_gate` as ``metrics[metric]``."""
    if min_value is None and max_value is None:
        raise ValueError(f"metric_between({metric!r}) needs min_value or max_value")
    import great_expectations as gx

    return gx.expectations.ExpectColumnValuesToBeBetween(
        column=metric,
        min_value=min_value,
        max_value=max_value,
        description=description,
        meta={_TARGET_KEY: METRICS_TARGET},
    )


def run_gate(
    name: str,
    frame: pl.DataFrame,
    expectations: list[Expectation],
    out_dir: str | None,
    *,
    metrics: dict[str, float] | None = None,
) -> GateResult:
    """Validate ``frame`` (and ``metrics``) with great-expectations; write the reports when ``out_dir`` is set."""
    import great_expectations as gx
    from great_expectations.data_context.types.base import ProgressBarsConfig

    metrics = dict(metrics or {})
    # Copies: GX refuses an expectation that already belongs to a suite, and callers may reuse theirs.
    by_target: dict[str, list[tuple[int, Expectation]]] = {TABLE_TARGET: [], METRICS_TARGET: []}
    for i, e in enumerate(expectations):
        by_target[(e.meta or {}).get(_TARGET_KEY, TABLE_TARGET)].append((i, _copy(e)))
    data = {TABLE_TARGET: frame.to_pandas(), METRICS_TARGET: _metrics_frame(metrics)}

    ctx = gx.get_context(mode="ephemeral")
    # The tqdm bars would flood the stage logs with one bar per metric batch.
    ctx.variables.progress_bars = ProgressBarsConfig(globally=False)
    source = ctx.data_sources.add_pandas(f"{name}_source")
    raw: dict[str, Any] = {}
    results: list[dict | None] = [None] * len(expectations)
    for target, group in by_target.items():
        if not group:
            continue
        batch = source.add_dataframe_asset(name=f"{name}_{target}").add_batch_definition_whole_dataframe("whole")
        # One store write for the whole suite: add_expectation re-serializes the suite on every call.
        suite = ctx.suites.add(gx.ExpectationSuite(name=f"{name}_{target}_suite", expectations=[e for _, e in group]))
        position = {e.id: i for (i, _), e in zip(group, suite.expectations, strict=True)}
        vd = ctx.validation_definitions.add(gx.ValidationDefinition(name=f"{name}_{target}", data=batch, suite=suite))
        res = vd.run(batch_parameters={"dataframe": data[target]}, result_format={"result_format": "SUMMARY"})
        raw[target] = res.to_json_dict()
        # GX groups results by column; put them back in the order the caller listed the expectations.
        for r in res.results:
            results[position[r.expectation_config.id]] = _summarize(r, metrics)
    missing = [expectations[i] for i, r in enumerate(results) if r is None]
    if missing:  # would mean GX changed how it reports; better loud than a gate that silently checks less
        raise RuntimeError(f"great-expectations returned no result for {missing}")

    result = GateResult(name=name, success=all(r["success"] for r in results), results=results)  # type: ignore[index]
    if out_dir is not None:
        from ecoagent.store import ArtifactStore

        out = ArtifactStore(out_dir)  # each file atomic; a stage folder's gate report is added whole (StageFolder)
        report = {"name": name, "success": result.success, "metrics": metrics, "validations": raw}
        out.write_text(json.dumps(_jsonable(report), indent=2, allow_nan=False) + "\n", f"{name}_gate.json")
        out.write_text(_markdown(result, metrics), f"{name}_gate.md")
        result.report_path = out.url(f"{name}_gate.md")
    return result


def enforce(result: GateResult) -> None:
    """Raise :class:`QualityGateFailed` unless the gate passed."""
    if not result.success:
        raise QualityGateFailed(result)


def _copy(expectation: Expectation) -> Expectation:
    e = expectation.copy(deep=True)
    e.id = None  # GX takes only expectations that belong to no suite yet
    return e


def _metrics_frame(metrics: dict[str, float]) -> Any:
    import pandas as pd

    # One row even with no metrics, so an expectation on a missing metric fails as "column does not exist".
    return pd.DataFrame([{k: float(v) for k, v in metrics.items()}])


def _summarize(r: Any, metrics: dict[str, float]) -> dict:
    cfg = r.expectation_config
    kwargs = {k: v for k, v in cfg.kwargs.items() if k != "batch_id"}
    target = (cfg.meta or {}).get(_TARGET_KEY, TABLE_TARGET)
    res = r.result or {}
    out: dict[str, Any] = {
        "expectation": cfg.type,
        "column": kwargs.get("column"),
        "target": target,
        "kwargs": kwargs,
        "description": cfg.description,
        "success": bool(r.success),
        "observed": res.get("observed_value"),
        "element_count": res.get("element_count"),
        "unexpected_count": res.get("unexpected_count"),
        "unexpected_percent": res.get("unexpected_percent"),
        "unexpected_sample": _sample(res),
        "unexpected_rows": list(res.get("partial_unexpected_index_list") or [])[:_SAMPLE_SIZE],
        "exception": _exception(r.exception_info),
    }
    if target == METRICS_TARGET:
        out["observed"] = metrics.get(kwargs.get("column"))
    return _jsonable(out)


def _sample(res: dict) -> list:
    # Distinct values first (GX sorts the counts by frequency), so one common bad value doesn't hide the rest.
    counts = res.get("partial_unexpected_counts")
    values = [c["value"] for c in counts] if counts else list(res.get("partial_unexpected_list") or [])
    return values[:_SAMPLE_SIZE]


def _exception(info: Any) -> str | None:
    # A single result holds {raised_exception, exception_message}; a metric failure maps metric ids to those.
    if not info:
        return None
    infos = [info] if "raised_exception" in info else list(info.values())
    messages = {i.get("exception_message") for i in infos if isinstance(i, dict) and i.get("raised_exception")}
    return "; ".join(sorted(m for m in messages if m)) or None


def _jsonable(value: Any) -> Any:
    """Plain JSON types: numpy scalars -> Python, NaN -> None (GX samples nulls as NaN)."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        try:
            value = value.item()
        except (ValueError, TypeError):
            return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def _label(r: dict) -> str:
    return f"{r['expectation']}({r['column']})" if r["column"] else r["expectation"]


def _limits(r: dict) -> str:
    kw = r["kwargs"]
    parts = []
    if "value_set" in kw:
        parts.append(f"set={kw['value_set']}")
    if kw.get("min_value") is not None:
        parts.append(f"{'>' if kw.get('strict_min') else '≥'} {kw['min_value']}")
    if kw.get("max_value") is not None:
        parts.append(f"{'<' if kw.get('strict_max') else '≤'} {kw['max_value']}")
    if kw.get("mostly") is not None:
        parts.append(f"mostly={kw['mostly']}")
    return ", ".join(parts)


def _observed(r: dict) -> str:
    if r["exception"]:
        return f"error: {r['exception']}"
    if r["target"] == METRICS_TARGET or r["unexpected_count"] is None:
        observed = r["observed"]
        return f"observed {observed:.4g}" if isinstance(observed, float) else f"observed {observed}"
    text = f"{r['unexpected_count']} of {r['element_count']} unexpected"
    if r["unexpected_percent"] is not None:
        text += f" ({r['unexpected_percent']:.1f}%)"
    if r["unexpected_count"]:
        text += f", e.g. {r['unexpected_sample']} at rows {r['unexpected_rows']}"
    return text


def _markdown(result: GateResult, metrics: dict[str, float]) -> str:
    failed = result.failures()
    lines = [
        f"# Quality gate: {result.name}",
        "",
        f"**{'PASSED' if result.success else 'FAILED'}**: {len(result.results) - len(failed)} of "
        f"{len(result.results)} expectations met ({datetime.now(UTC).isoformat(timespec='seconds')}).",
        "",
    ]
    if metrics:
        lines += ["## Metrics", "", *markdown_table(["metric", "value"], [[k, f"{v:.4g}"] for k, v in metrics.items()])]
        lines.append("")
    rows = [
        [i, "pass" if r["success"] else "**FAIL**", r["expectation"], r["column"] or "", _limits(r), _observed(r),
         r["description"] or ""]
        for i, r in enumerate(result.results, 1)
    ]  # fmt: skip
    header = ["#", "result", "expectation", "column", "limits", "observed", "description"]
    lines += ["## Expectations", "", *markdown_table(header, rows)]
    if failed:
        lines += ["", "## Failures", ""]
        lines += [
            f"- **{markdown_cell(_label(r))}** {markdown_cell(_limits(r))}: {markdown_cell(_observed(r))}"
            for r in failed
        ]
    return "\n".join(lines) + "\n"
