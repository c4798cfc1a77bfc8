"""The rules that read one tool's metadata and decide its tier, in the order the package docstring lists."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from schemas.unknown_fields import is_known
from scoring.side_effect.lexicon import (
    AI_NOUNS,
    CLASS_TIER,
    CODE_NOUNS,
    CREATE,
    DECLARED_READ_ONLY,
    DESTROY,
    DETERMINERS,
    HTTP_ANY,
    HUMAN_HANDOFF,
    MEMBER_NOUNS,
    MESSAGE_NOUNS,
    MONEY_NOUNS,
    NOUNLIKE,
    READ,
    RUN,
    SEND,
    SESSION_NOUNS,
    SET_NOUNS,
    TOGGLE,
    VERB_LEADS,
    VERBS,
)
from scoring.side_effect.tiers import COMPENSABLE, EXTERNAL, IRREVERSIBLE, READ_ONLY, REVERSIBLE, UNKNOWN

# the inputs of the rules a reduced copy of a tool's description may not show (schemas/unknown_fields.py)
UNKNOWABLE_INPUTS = ("http_methods", "categories")


def _tokens(text: str) -> list[str]:
    """Split snake, kebab, camel and Pascal case and prose into lowercase word tokens."""
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", text)
    return [t for t in re.split(r"[^a-zA-Z0-9]+", text.lower()) if t]


def _stem(tok: str, vocab: Iterable[str] | dict) -> str | None:
    """The lexicon entry a token inflects (fetching -> fetch, creates -> create), else None."""
    if tok in vocab:
        return tok
    cands = []
    if tok.endswith("ies"):
        cands.append(tok[:-3] + "y")
    if tok.endswith("es"):
        cands.append(tok[:-2])
    if tok.endswith("s"):
        cands.append(tok[:-1])
    if tok.endswith("ing"):
        cands += [tok[:-3], tok[:-3] + "e"]
    if tok.endswith("ed"):
        cands += [tok[:-2], tok[:-1]]
    for c in cands:
        if len(c) > 2 and c in vocab:
            return c
    return None


def singular(tok: str) -> str:
    """Drop a plural ending, so "labels" and "label" name the same object."""
    if tok.endswith("ies") and len(tok) > 4:
        return tok[:-3] + "y"
    if tok.endswith("s") and not tok.endswith("ss") and len(tok) > 3:
        return tok[:-1]
    return tok


@dataclass(frozen=True)
class Action:
    """A verb found in a tool's text, with the words after it (its object)."""

    verb: str
    cls: str
    obj: tuple[str, ...]
    source: str  # n8n_operation | name_verb | description_verb
    prefix: tuple[str, ...] = ()  # words before the verb: "soft" in softDeleteMessage


@dataclass
class Verdict:
    """A tool's tier before inverse pairing; the action is kept so inverses can pair on it."""

    side_effect: str
    rule: str
    arbitrary: bool = False
    action: Action | None = None


def _find_action(tokens: list[str], source: str, prose: bool = False) -> Action | None:
    """The first lexicon verb among tokens.  In prose, noun-like words need a verb context."""
    for i, tok in enumerate(tokens):
        verb = _stem(tok, VERBS)
        if verb is None:
            continue
        if not prose and verb in NOUNLIKE and (tok == verb + "s" or (i and tokens[i - 1] in DETERMINERS)):
            continue  # a plural or an article marks a noun in a name: youtube_comments, "Promote an alert"
        if prose and verb in NOUNLIKE:
            prev = tokens[i - 1] if i else None
            if prev is not None and prev not in VERB_LEADS:
                continue
        return Action(verb, VERBS[verb], tuple(tokens[i + 1 :]), source, tuple(tokens[:i]))
    return None


def _refine(action: Action, context: tuple[str, ...], label: tuple[str, ...] = ()) -> tuple[str, str] | Verdict:
    """Tier of an action after looking at its object.

    context holds extra object words (the n8n resource); label is the n8n action label ("Message a
    model"), consulted only to recognise model inference, whose object n8n leaves out of the operation.
    """
    obj = tuple(singular(t) for t in (*action.obj[:8], *context))
    # The verb's own object decides; the n8n resource only stands in when the operation has none
    # (gmail:message:addLabels adds labels, it does not create a message).
    own = tuple(singular(t) for t in action.obj[:8]) or tuple(singular(t) for t in context)
    objset = set(own)
    rule = f"{action.source}:{action.verb}"
    if action.cls == RUN:
        for t in (*obj[:6], *(singular(p) for p in action.prefix[-2:])):
            if t in MONEY_NOUNS:
                return IRREVERSIBLE, rule
            if t in CODE_NOUNS:
                return Verdict(IRREVERSIBLE, f"arbitrary_execution:{CODE_NOUNS[t]}", arbitrary=True)
            if t == "select" or VERBS.get(_stem(t, VERBS) or "") == READ:
                return READ_ONLY, rule
            if t in ("report", "analyzer", "search", "analysis"):
                return READ_ONLY, rule
        if action.verb == "evaluate":  # "evaluate an expression" is maths, not eval()
            return READ_ONLY, rule
        return UNKNOWN, f"ambiguous_run:{action.verb}"
    if (objset | {singular(t) for t in label}) & AI_NOUNS and action.cls in (SEND, CREATE, TOGGLE):
        return READ_ONLY, f"ai_inference:{action.verb}"  # message a model, create a completion / embedding
    if action.cls == CREATE and objset & MONEY_NOUNS:
        return IRREVERSIBLE, f"{rule}+money"
    if action.cls == CREATE and objset & MESSAGE_NOUNS:
        return EXTERNAL, f"{rule}+message"
    if action.cls == DESTROY and "soft" in action.prefix:
        return REVERSIBLE, f"{rule}+soft"  # a soft delete is recoverable by design
    if action.verb in ("add", "remove") and _is_membership(own, tuple(singular(t) for t in context)):
        return REVERSIBLE, f"{rule}+membership"
    if action.verb in ("close", "stop", "end") and objset & SESSION_NOUNS:
        return IRREVERSIBLE, f"{rule}+session"
    if action.verb == "start" and objset & {"command", "shell", "script", "code"}:
        return Verdict(IRREVERSIBLE, "arbitrary_execution:shell", arbitrary=True)
    return CLASS_TIER[action.cls], rule


def _is_membership(own: tuple[str, ...], context: tuple[str, ...]) -> bool:
    """Adding to / removing from a set (team member, label, list, group): the opposite call restores it."""
    if set(own) & MEMBER_NOUNS:
        return True
    for i, t in enumerate(own):
        if t in ("to", "from") and set(own[i + 1 : i + 3]) & SET_NOUNS:
            return True
    # n8n resources such as contactList, teamMember or a channel: the item joins or leaves that set
    return bool(set(context) & (SET_NOUNS | MEMBER_NOUNS))


def _as_verdict(result: tuple[str, str] | Verdict, action: Action) -> Verdict:
    if isinstance(result, Verdict):
        result.action = action
        return result
    return Verdict(result[0], result[1], action=action)


def n8n_parts(symbol: str) -> tuple[str, str, str]:
    """Node, resource and operation of ``node:resource:operation``; "-" for a node without operations."""
    parts = symbol.split(":")
    if len(parts) >= 3:
        return parts[0], parts[1], parts[-1]
    return (parts[0] if parts else ""), "-", "-"


def classify_one(row: dict) -> Verdict:
    """The first of rules 1-8 (package docstring) that fires on one tool row.

    An input the tool's source could not show (named in its ``unknown_fields``: a reduced copy has no categories
    and no HTTP methods) is no evidence either way: no rule reads it, and a tool no rule decided while one was
    unknown says so (``no_rule:inputs_unknown``), apart from a tool whose metadata has nothing to decide on.
    """
    unknown = [field for field in UNKNOWABLE_INPUTS if not is_known(row, field)]
    verdict = _first_rule({**row, **dict.fromkeys(unknown)})
    if unknown and verdict.rule == "no_rule":
        verdict.rule = "no_rule:inputs_unknown"
    return verdict


def _first_rule(row: dict) -> Verdict:
    platform = row.get("platform") or ""
    symbol = row.get("source_symbol") or ""
    name = row.get("name") or ""
    desc = row.get("description") or ""
    methods = [m.upper() for m in (row.get("http_methods") or [])]

    if DECLARED_READ_ONLY.search(desc):
        return Verdict(READ_ONLY, "declared:read_only")

    name_text = name.split(":", 1)[1] if platform == "n8n" and ":" in name else name
    if _tokens(name_text) == ["http", "request"] or HTTP_ANY.search(desc):
        return Verdict(IRREVERSIBLE, "arbitrary_execution:http", arbitrary=True)

    resource_toks: tuple[str, ...] = ()
    if platform == "n8n":
        _, resource, _ = n8n_parts(symbol)
        resource_toks = tuple(_tokens(resource)) if resource != "-" else ()
        verdict = _n8n_operation(symbol, name_text, desc, row.get("categories") or [], resource_toks)
        if verdict is not None:
            return verdict

    if methods:
        verdict = _from_methods(methods)
        if verdict is not None:
            return verdict

    if HUMAN_HANDOFF.search(desc[:300]):
        return Verdict(EXTERNAL, "handoff:human")
    name_toks = _tokens(name_text)
    if "sql" in name_toks and any(t in ("query", "run", "execute", "exec") for t in name_toks):
        # a tool named "... SQL query" runs whatever SQL it is given, unless it declared read-only above
        return Verdict(IRREVERSIBLE, "arbitrary_execution:sql", arbitrary=True)
    return _name_or_description_verb(row, name_text, resource_toks)


def _n8n_operation(
    symbol: str, name_text: str, desc: str, categories: list[str], resource_toks: tuple[str, ...]
) -> Verdict | None:
    """An n8n node's verdict from its operation, a run verb in its label, or its category; None to go on."""
    _, _, op = n8n_parts(symbol)
    op_action = _find_action(_tokens(op), "n8n_operation") if op != "-" else None
    if op_action is None:
        # A run verb in the tool's own label ("Run custom JavaScript ... code") decides before the
        # category; the description is only the tool's own when the node has no operation.
        run = _find_action(_tokens(name_text), "name_verb")
        if (run is None or run.cls != RUN) and op == "-":
            run = _find_action(_sentence_tokens(desc.split(". ")[0]), "description_verb", prose=True)
        if run is not None and run.cls == RUN:
            return _as_verdict(_refine(run, resource_toks), run)
    if op_action is None or op_action.cls != RUN:
        if "Data Transformation" in categories:
            return Verdict(READ_ONLY, "n8n_data_transformation")
        if "Flow" in categories:  # If, Switch, Wait, Loop: routing items inside the workflow
            return Verdict(READ_ONLY, "n8n_flow_control")
    if op_action is None:
        return None
    extra = resource_toks + (tuple(_tokens(name_text)) if op_action.cls == RUN else ())
    verdict = _as_verdict(_refine(op_action, extra, tuple(_tokens(name_text))), op_action)
    if verdict.rule.startswith("n8n_operation:"):
        # keep n8n's own spelling of the operation in the rule code (getAll, not get)
        verdict.rule = "n8n_operation:" + op + verdict.rule[len("n8n_operation:") + len(op_action.verb) :]
    return verdict


def _name_or_description_verb(row: dict, name_text: str, resource_toks: tuple[str, ...]) -> Verdict:
    """The verb of the tool's names (toolkit symbol, name, class name), else of its description's opening."""
    platform, symbol = row.get("platform") or "", row.get("source_symbol") or ""
    name, display, desc = row.get("name") or "", row.get("display_name") or "", row.get("description") or ""
    name_sources: list[str] = []
    if platform == "langchain" and ":" in symbol:
        name_sources.append(symbol.split(":", 1)[1])  # toolkit mode, e.g. GitHubAction:comment_on_issue
    name_sources.append(name_text)
    if platform in ("langchain", "crewai") and display and display != name:
        name_sources.append(display)  # the class name: CouchbaseFTSVectorSearchTool
    # Only the opening of the description: later sentences describe arguments and caveats.
    sentences = desc.replace("\n", " ").split(". ")
    if platform == "n8n" and len(sentences) > 1:
        sentences = sentences[1:]  # n8n's first sentence is the node's ("Consume Beeminder API")
    opening = " . ".join(sentences[:2])[:300]
    desc_action = _find_action(_sentence_tokens(opening), "description_verb", prose=True)
    for text in name_sources:
        action = _find_action(_tokens(text), "name_verb")
        if action is not None:
            verdict = _as_verdict(_refine(action, resource_toks), action)
            if verdict.side_effect == UNKNOWN and desc_action is not None:
                # "Sandbox Exec" says run but not what: the description's verb may ("Execute a shell command")
                better = _as_verdict(_refine(desc_action, resource_toks), desc_action)
                if better.side_effect != UNKNOWN:
                    return better
            return verdict

    if desc_action is not None:
        return _as_verdict(_refine(desc_action, resource_toks), desc_action)
    return Verdict(UNKNOWN, "no_rule")


def _sentence_tokens(text: str) -> list[str]:
    """Tokens with a sentence start marked by 'to', so noun-like verbs may open a sentence."""
    out: list[str] = []
    for sentence in re.split(r"[.!?\n]+", text):
        toks = _tokens(sentence)
        if toks:
            out += ["to", *toks]
    return out


def _from_methods(methods: list[str]) -> Verdict | None:
    known = {m for m in methods if m in ("GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE")}
    if not known:
        return None
    if known <= {"GET", "HEAD", "OPTIONS"}:
        return Verdict(READ_ONLY, "http_method:GET")
    if "DELETE" in known:
        return Verdict(IRREVERSIBLE, "http_method:DELETE")
    if "POST" in known:
        return Verdict(COMPENSABLE, "http_method:POST")
    return Verdict(REVERSIBLE, "http_method:" + ("PUT" if "PUT" in known else "PATCH"))
