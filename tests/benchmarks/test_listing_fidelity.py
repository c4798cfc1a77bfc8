"""``benchmarks/listing_fidelity.py`` on a fixture mirror (the real npm client, no network): community packages the
mirror serves, read from their archive and from a listing copy that keeps only their resource and operation options,
compared per listing; the packages it does not serve are counted apart. On the real listing it needs the registry:
not run here."""

from __future__ import annotations

from pathlib import Path

from tests.benchmarks.scripts import record_written, run_script
from tests.crawlers import community_fixtures as cf
from tests.fixture_packages import fixture_overrides

# acme's node as n8n-mcp keeps it: the resource and operation options only (no invoiceId, no notes, no credential)
_ACME_REDUCED = [
    {"displayName": "Resource", "name": "resource", "type": "options", "noDataExpression": True, "default": "invoice",
     "options": [{"name": "Invoice", "value": "invoice"}, {"name": "Contact", "value": "contact"}]},
    {"displayName": "Operation", "name": "operation", "type": "options", "noDataExpression": True, "default": "create",
     "displayOptions": {"show": {"resource": ["invoice"]}},
     "options": [{"name": "Create", "value": "create", "action": "Create an invoice"},
                 {"name": "Get", "value": "get", "action": "Get an invoice"}]},
    {"displayName": "Operation", "name": "operation", "type": "options", "noDataExpression": True, "default": "list",
     "displayOptions": {"show": {"resource": ["contact"]}},
     "options": [{"name": "List", "value": "list", "action": "List contacts"}]},
]  # fmt: skip


def test_the_archive_and_the_listing_copy_of_the_served_packages_compared(tmp_path: Path, results_dir: Path) -> None:
    mirror = tmp_path / "mirror"
    cf.build_acme(mirror)  # served: its archive has 3 tools, with a credential, parameters and a doc link
    cf.build_builder(mirror)  # served: its archive gives no tool (run-time properties), its copy one
    rows = [(cf.ACME, cf.ACME_VERSION, 1, f"{cf.ACME}.acme", cf.compressed(_ACME_REDUCED), 0), *cf.LISTING_ROWS[1:]]
    cf.build_listing(mirror, rows)  # weather and the empty package: not in the mirror, not served
    settings = [*fixture_overrides(mirror, tmp_path / "cache"), *cf.listing_overrides(), "crawl.fetch_retries=0"]
    ran = run_script("listing_fidelity", "--profile", "fixture", *(f"--set={s}" for s in settings),
                     "--record", "smoke-listing-fidelity")  # fmt: skip
    assert ran.code == 0, ran
    report = ran.json_after()
    assert report["packages_listed"] == 4 and report["not_compared"] == {"not_served": 2}
    verified = report["per_listing"]["community-verified"]
    assert {k: verified[k] for k in ("packages", "tools_archive", "tools_copy", "same_id", "archive_only",
                                     "copy_only", "same_name", "same_description", "nodes_both",
                                     "same_operations")} == {
        "packages": 2, "tools_archive": 3, "tools_copy": 4, "same_id": 3, "archive_only": 0, "copy_only": 1,
        "same_name": 3, "same_description": 0, "nodes_both": 1, "same_operations": 1}  # fmt: skip
    # what only the archive shows: the copy marks each unknown
    assert (verified["archive_auth"], verified["archive_parameters"]) == (3, 2) and verified["archive_docs"] == 3
    assert report["per_listing"]["all"] == verified
    assert "2 of 4 listed packages served: 3 of 3 archive tools have the copy's id, 1 copy tools" in ran.out
    record = record_written(results_dir, "smoke-listing-fidelity")
    assert record["section"] == "crawl" and record["tables"][0]["rows"][0][:7] == [
        "community-verified", 2, 3, 4, 3, 0, 1]  # fmt: skip
    assert record["tables"][0]["rows"][0][7:9] == ["3 (100%)", "0 (0%)"]
