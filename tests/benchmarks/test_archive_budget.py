"""``benchmarks/archive_budget.py`` with 1 MiB members instead of 24 MiB (80 MiB unpacked, still over the default
64 MiB budget): three real crawls, each in a fresh process that reports its peak RSS; the many-members wheel is
refused naming the budget, the small and the at-budget wheels are read."""

from __future__ import annotations

from tests.benchmarks.scripts import run_script


def test_the_many_members_wheel_is_refused_the_others_read() -> None:
    ran = run_script("archive_budget", "--member-mib", 1)
    assert ran.code == 0, ran
    report = ran.json_after()
    cases = {row["case"]: row for row in report["cases"]}
    assert list(cases) == ["small", "many_members", "at_budget"]
    assert cases["many_members"]["unpacked_mb"] == 80.0 and cases["at_budget"]["unpacked_mb"] == 2.0
    assert report["many_members_refused"] is True and cases["many_members"]["tools"] == 0
    assert "package_too_large" in cases["many_members"]["errors"][0]
    assert cases["small"]["tools"] == cases["at_budget"]["tools"] == 1  # the one tool, read whole
    assert not cases["small"]["errors"] and not cases["at_budget"]["errors"]
    assert all(row["peak_rss_mb"] > 0 and row["over_small"] > 0 for row in cases.values())
    assert report["meets_target"] is (cases["many_members"]["peak_rss_mb"] <= report["target_peak_rss_mb_max"])
    assert ran.out.splitlines()[-2].lstrip().startswith("many_members: ")
