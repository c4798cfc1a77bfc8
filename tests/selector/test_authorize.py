import json
import logging

import pytest

from selector.authorize import Authorizer, Policy
from selector.scopes import UnknownScope


@pytest.fixture
def authorizer(registry, tmp_path):
    return Authorizer(registry, tmp_path / "decisions.jsonl")


def test_permissions_are_rechecked_at_execution(authorizer):
    denied = authorizer.authorize("billing:issue_refund", ["billing.read"], Policy.ADVISORY)
    assert not denied.allowed and "billing.write" in denied.reason
    outside = authorizer.authorize("github:create_issue", ["*"], Policy.ADVISORY, tenant="acme")
    assert not outside.allowed and "tenant" in outside.reason
    assert not authorizer.authorize("nope:tool", ["*"]).allowed
    with pytest.raises(UnknownScope):
        authorizer.authorize("weather:forecast", ["weather.rea"])


@pytest.mark.parametrize(
    ("tool", "policy", "consent", "allowed", "needs_consent"),
    [
        ("weather:forecast", Policy.VETO, False, True, False),  # read_only
        ("slack:post_message", Policy.VETO, False, True, False),  # reversible
        ("orders:cancel_order", Policy.VETO, False, True, False),  # compensable
        ("billing:issue_refund", Policy.VETO, False, False, False),  # irreversible
        ("gmail:send_email", Policy.VETO, False, False, False),  # external side effect
        ("files:delete_file", Policy.VETO, False, False, False),  # unknown: fail closed
        ("billing:issue_refund", Policy.ESCALATE, False, False, True),
        ("gmail:send_email", Policy.ESCALATE, True, True, False),
        ("slack:post_message", Policy.ESCALATE, False, True, False),
        ("billing:issue_refund", Policy.ADVISORY, False, True, False),
    ],
)
def test_reversibility_policies(authorizer, tool, policy, consent, allowed, needs_consent):
    decision = authorizer.authorize(tool, ["*"], policy, consent)
    assert (decision.allowed, decision.needs_consent) == (allowed, needs_consent)
    assert decision.reason and decision.policy == policy.value


def test_compensable_reason_names_the_inverse(authorizer):
    assert "orders:reorder" in authorizer.authorize("orders:cancel_order", ["*"]).reason


def test_every_decision_is_logged_with_its_reason(authorizer, tmp_path, caplog):
    with caplog.at_level(logging.INFO, logger="selector.authorize"):
        authorizer.authorize("weather:forecast", ["*"], "veto")
        authorizer.authorize("billing:issue_refund", ["*"], "advisory")
        authorizer.authorize("billing:issue_refund", [], "veto")
    lines = [json.loads(x) for x in (tmp_path / "decisions.jsonl").read_text().splitlines()]
    assert [x["allowed"] for x in lines] == [True, True, False]
    assert all(x["reason"] for x in lines) and "advisory" in lines[1]["reason"]
    assert len([r for r in caplog.records if r.name == "selector.authorize"]) == 3
