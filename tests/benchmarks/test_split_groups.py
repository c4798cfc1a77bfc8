"""``benchmarks/split_groups.py`` on the fixture world's BFCL queries and the bundled ToolBench-format sample: the
groups under each rule, one row per query set."""

from __future__ import annotations

from tests.benchmarks.conftest import use_world
from tests.benchmarks.scripts import run_script


def test_groups_under_each_rule(world, monkeypatch) -> None:
    use_world(monkeypatch, world.overrides)
    ran = run_script("split_groups")
    assert ran.code == 0, ran
    lines = ran.out.splitlines()
    assert lines[0].startswith("| queries | n | groups: text | + templates | merged | + paraphrases |")
    rows = {line.split(" | ")[0].strip("| "): line.strip("| ").split(" | ") for line in lines[2:4]}
    assert set(rows) == {"BFCL live", "ToolBench format (toolbench_format_sample)"}, ran
    for name, cells in rows.items():
        n, text, templates, paraphrases, gold = (int(cells[i]) for i in (1, 2, 3, 5, 7))
        assert n >= text >= templates >= paraphrases >= gold >= 1, (name, cells)  # each rule only merges
    # the bundled sample: 9 queries; two template pairs, then two paraphrases of the SQUAKE family merge
    assert rows["ToolBench format (toolbench_format_sample)"][1:9] == ["9", "9", "7", "2", "5", "2", "5", "0"]
    assert "ToolBench format (toolbench_format_sample) paraphrase: " in ran.out
