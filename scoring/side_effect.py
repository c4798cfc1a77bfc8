"""Side-effect tier (POLAR), inverse tool and permission scope of every tool.

POLAR (Table 16) annotates a tool by asking, top to bottom: does another tool exactly undo it (T1
``inverse_of``)?  does it undo itself under a bound (T2)?  can it be compensated with a named residue
(T3)?  does it consume something for good (T4)?  is it a delivery or hand-off to an outside party (T5)?
Read-only tools match no row.  We have no Layer B state, only metadata, so each tier is read off the
tool's declared action.  The first rule that fires decides, and ``side_effect_rule`` names it:

1. ``declared:read_only``: the description says the tool is read-only ("Read-only.", "Run a read-only
   SQL query").  The author's own statement beats any verb guess.
2. ``arbitrary_execution:<kind>``: the tool runs caller-supplied code, shell commands, SQL, functions or
   any-method HTTP requests.  What it does depends on the input, so we take the worst case: tier
   ``irreversible`` and scope ``admin`` (never granted by a read or write scope).  This is the documented
   answer to "code/shell/SQL/HTTP tools are ambiguous".
3. ``n8n_data_transformation`` / ``n8n_flow_control``: n8n core nodes in the "Data Transformation" or
   "Flow" category (Set, Sort, Filter, Edit Image, If, Wait, ...) only rewrite or route the workflow's
   items in memory.
4. ``n8n_operation:<op>``: the operation n8n declares (``node:resource:operation``), read as verb + object.
5. ``http_method:<M>``: the HTTP methods the tool is known to call, when the crawl filled them: GET/HEAD
   only -> read_only, any DELETE -> irreversible, PUT/PATCH -> reversible, POST -> compensable.  Only used
   when no operation verb decided, because n8n nodes often POST to search endpoints.
6. ``name_verb:<verb>``: the first known verb in the LangChain toolkit mode, the tool name or the class
   name (snake, kebab and camel case are split).
7. ``handoff:human`` ("ask a human") -> external, then ``description_verb:<verb>``: the first known verb
   in the description's opening (for n8n, after the node's own first sentence).  Words that are often
   nouns ("post", "message", "set", ...) only count where they read as a verb; in names a plural or an
   article marks them as nouns (youtube_comments, "Promote an alert").
8. ``no_rule``: nothing matched -> ``unknown``.  Unknown stays unknown: we never guess a tier.

A verb maps to a tier (``_VERBS``) and is then refined by its object: creating a message, tweet,
comment, email or alert is an ``external_side_effect``; creating a charge, payment, payout, transfer or
refund is ``irreversible`` (money moved); closing a session is ``irreversible``; "message a model" or
"create a completion" is model inference and ``read_only``.  Verbs with an ambiguous run semantics
(run, execute, invoke, trigger) decide by their object: code -> arbitrary execution, a report or search
-> read_only, a job/workflow/pipeline/agent -> ``unknown`` (``ambiguous_run:<verb>``).  Adding to or
removing from a set (a team member, a label, a contact to a list) is ``reversible`` (``+membership``),
and a soft delete is ``reversible`` (``+soft``), even when the opposite tool is not in the frame.

Tiers:

* ``read_only``: no state changes, nothing delivered (get, list, search, scrape, compute, LLM inference).
* ``reversible``: T1 (an exact inverse tool exists: archive/unarchive, lock/unlock, add/remove,
  trash/untrash, ban/unban, soft delete/undo) or T2 (update/edit/set/rename/move: writing the previous
  value back undoes it).  Toggles and membership changes are reversible even without a paired tool.
* ``compensable``: T3: creates something (create/add/insert/upsert/upload/copy/write a file); a delete
  compensates but leaves a residue (ids, history, notifications).
* ``irreversible``: T4: delete/remove/purge/cancel/void/stop/clear, money movement, and arbitrary
  execution.  A delete with an exact restore in the same group (Mattermost delete/restore a channel,
  Teams soft delete/undo) is T1 instead.
* ``external_side_effect``: T5: send/post/publish/reply/invite/share/notify/track, human hand-off.  POLAR
  puts T5 in its irreversible band; we keep it apart because it needs a different permission.
* ``unknown``: no rule fired, or the action is an ambiguous run of a named job.

Inverse tools (``inverse_tool_id``) are searched within one group: the same n8n node and resource, the
same LangChain toolkit class, the same LlamaIndex spec, the same MCP server, and otherwise the same
package and service.  Two tools pair when their verbs are inverse (``_INVERSE_VERBS``, ``un``-prefixed
verbs, ``undo X``) and their objects are equal (plural, prepositions and articles ignored).  An exact
pair makes both tools ``reversible`` (rule ``inverse_pair:<verb>/<inverse>``), except tools whose tier
is external or money: a sent message or a paid charge is not undone by another API call.  A create
whose group has a matching delete keeps ``compensable`` and points ``inverse_tool_id`` at that delete
(the compensator, POLAR's T3 ``compensates``); a delete never points back at its create, because the
create cannot restore the deleted content.

Permission scope: ``<service>.<level>`` where the service is the tool's ``service`` normalized to
``[a-z0-9_]`` (falling back to the package name, then ``unknown``) and the level follows the tier:

* read_only -> ``read``
* reversible, compensable -> ``write``
* irreversible -> ``delete``
* external_side_effect -> ``send``
* unknown and arbitrary execution -> ``admin``: the strictest scope, so a tool we cannot classify is
  never granted by a read, write, delete or send grant.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

import polars as pl

READ_ONLY = "read_only"
REVERSIBLE = "reversible"
COMPENSABLE = "compensable"
IRREVERSIBLE = "irreversible"
EXTERNAL = "external_side_effect"
UNKNOWN = "unknown"

SCOPE_LEVELS: dict[str, str] = {
    READ_ONLY: "read",
    REVERSIBLE: "write",
    COMPENSABLE: "write",
    IRREVERSIBLE: "delete",
    EXTERNAL: "send",
    UNKNOWN: "admin",
}

OUTPUT_SCHEMA = pl.Schema(
    {
        "tool_id": pl.String(),
        "side_effect": pl.String(),
        "side_effect_rule": pl.String(),
        "inverse_tool_id": pl.String(),
        "permission_scope": pl.String(),
    }
)

# Verb classes.  RUN verbs are decided by their object (see _refine_run).
_READ, _UPDATE, _TOGGLE, _CREATE, _DESTROY, _SEND, _MONEY, _RUN = (
    "read", "update", "toggle", "create", "destroy", "send", "money", "run"
)  # fmt: skip

_CLASS_TIER = {
    _READ: READ_ONLY,
    _UPDATE: REVERSIBLE,
    _TOGGLE: REVERSIBLE,
    _CREATE: COMPENSABLE,
    _DESTROY: IRREVERSIBLE,
    _SEND: EXTERNAL,
    _MONEY: IRREVERSIBLE,
}


def _words(text: str) -> list[str]:
    return text.split()


_VERBS: dict[str, str] = {}
for _cls, _ws in {
    _READ: """get list search fetch read query lookup find retrieve calculate compute count describe check
        download analyze analyse classify detect extract scrape crawl browse load view show summarize summarise
        translate transcribe generate convert parse validate verify compare enrich predict echo inspect monitor
        select filter sort limit aggregate estimate forecast geocode navigate scroll hover screenshot wait await
        discover explore return preview export format encode decode compress decompress resize crop rotate blur
        render recognize identify rank rerank embed tokenize research ping exist exists autocomplete suggest
        recommend measure lookup reader scraper crawler retriever loader finder searcher calculator viewer
        analyzer extractor parser summarizer translator classifier detector converter fetcher reverse
        geolocate locate answer ask scan synthesize sleep sign expand collect substitute soql sosl""",
    _UPDATE: """update edit set modify change rename move patch replace put assign reassign unassign reschedule mark
        configure adjust reorder upvote downvote vote rate switch""",
    _TOGGLE: """toggle archive unarchive lock unlock enable disable activate deactivate deactive pause resume mute
        unmute pin unpin star unstar like unlike follow unfollow block unblock ban unban subscribe unsubscribe
        resubscribe hide unhide trash untrash restore recover undelete undo reopen close open unpublish join leave
        approve disapprove unlink link unshare snooze suspend unsuspend timeout kick complete""",
    _CREATE: """create add insert upsert upload copy clone duplicate append save write register book schedule new
        import deploy redeploy install attach store merge push commit fork restart replicate enqueue queue log
        draft reserve bookmark react increment incr start writer memorize remember provision pull promote""",
    _DESTROY: """delete remove purge drop destroy erase wipe clear terminate cancel void kill stop abort reset revoke
        expire truncate flush redeem burn uninstall unregister shutdown exit quit decline reject pop""",
    _SEND: """send email mail post publish notify message call sms tweet retweet reply invite reinvite share submit
        alert forward broadcast announce dm respond track escalate handoff comment report""",
    _MONEY: """pay charge refund payout transfer purchase buy checkout withdraw deposit donate tip trade sell swap""",
    _RUN: """run execute exec invoke trigger launch dispatch perform eval evaluate""",
}.items():
    for _w in _words(_ws):
        _VERBS[_w] = _cls

# In descriptions these are mostly nouns ("a set of", "new posts", "a search query"); they count there
# only at a sentence start or right after a word that introduces a verb.
_NOUNLIKE = set(
    _words(
        """post posts message messages email emails set share call comment reply alert text record book schedule
        store log draft order note tip trade star like link open close new update updates tag label pin
        block timeout change move mark track return check count filter sort limit view show list search
        query load answer ask merge push stop start lock trash clear reset copy store report switch sign"""
    )
)
_DETERMINERS = set(_words("a an the this that new each every any my your our their its"))
_VERB_LEADS = set(_words("to can will and or also then that which who should must please you we i"))

_MESSAGE_NOUNS = set(
    _words(
        """message tweet email mail sms comment reply post dm directmessage alert notification invitation
        invite broadcast announcement"""
    )
)
_MONEY_NOUNS = set(_words("charge payment payout transfer refund purchase withdrawal donation"))
_AI_NOUNS = set(_words("model completion embedding llm prompt assistant"))
_MEMBER_NOUNS = set(
    _words("member label tag role subscriber collaborator participant attendee assignee watcher follower")
)
_SET_NOUNS = set(_words("list group team channel campaign segment audience sequence playlist queue board project"))
_SESSION_NOUNS = set(_words("session connection window browser"))
_CODE_NOUNS = {
    "code": "code", "script": "code", "python": "code", "javascript": "code", "js": "code", "typescript": "code",
    "shell": "shell", "bash": "shell", "command": "shell", "terminal": "shell", "powershell": "shell",
    "sql": "sql", "query": "sql", "cypher": "sql", "statement": "sql",
    "function": "function", "lambda": "function",
}  # fmt: skip
_STOPWORDS = set(_words("a an the to from in into on of for as by with at this that it its your my all one each"))

# Verb pairs that exactly undo each other on the same object (POLAR T1).
_INVERSE_VERBS: dict[str, set[str]] = defaultdict(set)
for _a, _b in [
    ("archive", "unarchive"), ("lock", "unlock"), ("trash", "untrash"), ("ban", "unban"), ("mute", "unmute"),
    ("pin", "unpin"), ("star", "unstar"), ("like", "unlike"), ("follow", "unfollow"), ("block", "unblock"),
    ("subscribe", "unsubscribe"), ("resubscribe", "unsubscribe"), ("enable", "disable"),
    ("activate", "deactivate"), ("publish", "unpublish"), ("add", "remove"), ("assign", "unassign"),
    ("hide", "unhide"), ("pause", "resume"), ("close", "reopen"), ("open", "close"), ("join", "leave"),
    ("approve", "disapprove"), ("link", "unlink"), ("attach", "detach"), ("suspend", "unsuspend"),
    ("delete", "restore"), ("delete", "undelete"), ("delete", "recover"), ("remove", "restore"),
    ("archive", "restore"), ("trash", "restore"), ("grant", "revoke"), ("share", "unshare"),
]:  # fmt: skip
    _INVERSE_VERBS[_a].add(_b)
    _INVERSE_VERBS[_b].add(_a)
# Verbs whose effect a delete/remove compensates but does not exactly undo (POLAR T3).
_COMPENSATED_BY = {"create": ("delete", "remove"), "add": ("delete", "remove"), "insert": ("delete", "remove"),
                   "upload": ("delete", "remove"), "upsert": ("delete", "remove")}  # fmt: skip

_DECLARED_READ_ONLY = re.compile(
    r"(^|[.!:;]\s+)read-only\b|\b(is|are)\s+read-only\b|\b(run|runs|execute|executes)\s+an?\s+read-only\b",
    re.IGNORECASE,
)
_HTTP_ANY = re.compile(r"^\s*(makes?|sends?|performs?|executes?)\s+(an?\s+)?(arbitrary\s+|custom\s+)?http\s+request",
                       re.IGNORECASE)  # fmt: skip
_HUMAN_HANDOFF = re.compile(r"\b(ask|asks|hand\s*off|transfer|escalate)\b[^.]{0,20}\b(a|the)?\s*human", re.IGNORECASE)


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


def _singular(tok: str) -> str:
    if tok.endswith("ies") and len(tok) > 4:
        return tok[:-3] + "y"
    if tok.endswith("s") and not tok.endswith("ss") and len(tok) > 3:
        return tok[:-1]
    return tok


@dataclass(frozen=True)
class _Action:
    """A verb found in a tool's text, with the words after it (its object)."""

    verb: str
    cls: str
    obj: tuple[str, ...]
    source: str  # n8n_operation | name_verb | description_verb
    prefix: tuple[str, ...] = ()  # words before the verb: "soft" in softDeleteMessage


@dataclass
class _Verdict:
    side_effect: str
    rule: str
    arbitrary: bool = False
    action: _Action | None = None


def _find_action(tokens: list[str], source: str, prose: bool = False) -> _Action | None:
    """The first lexicon verb among tokens.  In prose, noun-like words need a verb context."""
    for i, tok in enumerate(tokens):
        verb = _stem(tok, _VERBS)
        if verb is None:
            continue
        if not prose and verb in _NOUNLIKE and (tok == verb + "s" or (i and tokens[i - 1] in _DETERMINERS)):
            continue  # a plural or an article marks a noun in a name: youtube_comments, "Promote an alert"
        if prose and verb in _NOUNLIKE:
            prev = tokens[i - 1] if i else None
            if prev is not None and prev not in _VERB_LEADS:
                continue
        return _Action(verb, _VERBS[verb], tuple(tokens[i + 1 :]), source, tuple(tokens[:i]))
    return None


def _refine(action: _Action, context: tuple[str, ...], label: tuple[str, ...] = ()) -> tuple[str, str] | _Verdict:
    """Tier of an action after looking at its object.

    context holds extra object words (the n8n resource); label is the n8n action label ("Message a
    model"), consulted only to recognise model inference, whose object n8n leaves out of the operation.
    """
    obj = tuple(_singular(t) for t in (*action.obj[:8], *context))
    # The verb's own object decides; the n8n resource only stands in when the operation has none
    # (gmail:message:addLabels adds labels, it does not create a message).
    own = tuple(_singular(t) for t in action.obj[:8]) or tuple(_singular(t) for t in context)
    objset = set(own)
    rule = f"{action.source}:{action.verb}"
    if action.cls == _RUN:
        for t in (*obj[:6], *(_singular(p) for p in action.prefix[-2:])):
            if t in _MONEY_NOUNS:
                return IRREVERSIBLE, rule
            if t in _CODE_NOUNS:
                return _Verdict(IRREVERSIBLE, f"arbitrary_execution:{_CODE_NOUNS[t]}", arbitrary=True)
            if t == "select" or _VERBS.get(_stem(t, _VERBS) or "") == _READ:
                return READ_ONLY, rule
            if t in ("report", "analyzer", "search", "analysis"):
                return READ_ONLY, rule
        if action.verb == "evaluate":  # "evaluate an expression" is maths, not eval()
            return READ_ONLY, rule
        return UNKNOWN, f"ambiguous_run:{action.verb}"
    if (objset | {_singular(t) for t in label}) & _AI_NOUNS and action.cls in (_SEND, _CREATE, _TOGGLE):
        return READ_ONLY, f"ai_inference:{action.verb}"  # message a model, create a completion / embedding
    if action.cls == _CREATE and objset & _MONEY_NOUNS:
        return IRREVERSIBLE, f"{rule}+money"
    if action.cls == _CREATE and objset & _MESSAGE_NOUNS:
        return EXTERNAL, f"{rule}+message"
    if action.cls == _DESTROY and "soft" in action.prefix:
        return REVERSIBLE, f"{rule}+soft"  # a soft delete is recoverable by design
    if action.verb in ("add", "remove") and _is_membership(own, tuple(_singular(t) for t in context)):
        return REVERSIBLE, f"{rule}+membership"
    if action.verb in ("close", "stop", "end") and objset & _SESSION_NOUNS:
        return IRREVERSIBLE, f"{rule}+session"
    if action.verb == "start" and objset & {"command", "shell", "script", "code"}:
        return _Verdict(IRREVERSIBLE, "arbitrary_execution:shell", arbitrary=True)
    return _CLASS_TIER[action.cls], rule


def _is_membership(own: tuple[str, ...], context: tuple[str, ...]) -> bool:
    """Adding to / removing from a set (team member, label, list, group): the opposite call restores it."""
    if set(own) & _MEMBER_NOUNS:
        return True
    for i, t in enumerate(own):
        if t in ("to", "from") and set(own[i + 1 : i + 3]) & _SET_NOUNS:
            return True
    # n8n resources such as contactList, teamMember or a channel: the item joins or leaves that set
    return bool(set(context) & (_SET_NOUNS | _MEMBER_NOUNS))


def _as_verdict(result: tuple[str, str] | _Verdict, action: _Action) -> _Verdict:
    if isinstance(result, _Verdict):
        result.action = action
        return result
    return _Verdict(result[0], result[1], action=action)


def _n8n_parts(symbol: str) -> tuple[str, str, str]:
    parts = symbol.split(":")
    if len(parts) >= 3:
        return parts[0], parts[1], parts[-1]
    return (parts[0] if parts else ""), "-", "-"


def _classify_one(row: dict) -> _Verdict:
    platform = row.get("platform") or ""
    symbol = row.get("source_symbol") or ""
    name = row.get("name") or ""
    display = row.get("display_name") or ""
    desc = row.get("description") or ""
    methods = [m.upper() for m in (row.get("http_methods") or [])]
    categories = row.get("categories") or []

    if _DECLARED_READ_ONLY.search(desc):
        return _Verdict(READ_ONLY, "declared:read_only")

    name_text = name.split(":", 1)[1] if platform == "n8n" and ":" in name else name
    if _tokens(name_text) == ["http", "request"] or _HTTP_ANY.search(desc):
        return _Verdict(IRREVERSIBLE, "arbitrary_execution:http", arbitrary=True)

    if platform == "n8n":
        _, resource, op = _n8n_parts(symbol)
        resource_toks = tuple(_tokens(resource)) if resource != "-" else ()
        op_action = _find_action(_tokens(op), "n8n_operation") if op != "-" else None
        if op_action is None:
            # A run verb in the tool's own label ("Run custom JavaScript ... code") decides before the
            # category; the description is only the tool's own when the node has no operation.
            run = _find_action(_tokens(name_text), "name_verb")
            if (run is None or run.cls != _RUN) and op == "-":
                run = _find_action(_sentence_tokens(desc.split(". ")[0]), "description_verb", prose=True)
            if run is not None and run.cls == _RUN:
                return _as_verdict(_refine(run, resource_toks), run)
        if op_action is None or op_action.cls != _RUN:
            if "Data Transformation" in categories:
                return _Verdict(READ_ONLY, "n8n_data_transformation")
            if "Flow" in categories:  # If, Switch, Wait, Loop: routing items inside the workflow
                return _Verdict(READ_ONLY, "n8n_flow_control")
        if op_action is not None:
            extra = resource_toks + (tuple(_tokens(name_text)) if op_action.cls == _RUN else ())
            verdict = _as_verdict(_refine(op_action, extra, tuple(_tokens(name_text))), op_action)
            if verdict.rule.startswith("n8n_operation:"):
                # keep n8n's own spelling of the operation in the rule code (getAll, not get)
                verdict.rule = "n8n_operation:" + op + verdict.rule[len("n8n_operation:") + len(op_action.verb) :]
            return verdict
    else:
        resource_toks = ()

    if methods:
        verdict = _from_methods(methods)
        if verdict is not None:
            return verdict

    if _HUMAN_HANDOFF.search(desc[:300]):
        return _Verdict(EXTERNAL, "handoff:human")
    name_toks = _tokens(name_text)
    if "sql" in name_toks and any(t in ("query", "run", "execute", "exec") for t in name_toks):
        # a tool named "... SQL query" runs whatever SQL it is given, unless it declared read-only above
        return _Verdict(IRREVERSIBLE, "arbitrary_execution:sql", arbitrary=True)

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
    return _Verdict(UNKNOWN, "no_rule")


def _sentence_tokens(text: str) -> list[str]:
    """Tokens with a sentence start marked by 'to', so noun-like verbs may open a sentence."""
    out: list[str] = []
    for sentence in re.split(r"[.!?\n]+", text):
        toks = _tokens(sentence)
        if toks:
            out += ["to", *toks]
    return out


def _from_methods(methods: list[str]) -> _Verdict | None:
    known = {m for m in methods if m in ("GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE")}
    if not known:
        return None
    if known <= {"GET", "HEAD", "OPTIONS"}:
        return _Verdict(READ_ONLY, "http_method:GET")
    if "DELETE" in known:
        return _Verdict(IRREVERSIBLE, "http_method:DELETE")
    if "POST" in known:
        return _Verdict(COMPENSABLE, "http_method:POST")
    return _Verdict(REVERSIBLE, "http_method:" + ("PUT" if "PUT" in known else "PATCH"))


def _group_key(row: dict) -> str:
    """Tools that may undo each other: one n8n node+resource, toolkit, spec, server or package+service."""
    platform = row.get("platform") or ""
    symbol = row.get("source_symbol") or ""
    package = row.get("package") or ""
    if platform == "n8n":
        node, resource, _ = _n8n_parts(symbol)
        return f"n8n|{package}|{node}|{resource}"
    if platform == "langchain" and ":" in symbol:
        return f"langchain|{package}|{symbol.split(':', 1)[0]}"
    if platform == "llamaindex" and "." in symbol:
        return f"llamaindex|{package}|{symbol.split('.', 1)[0]}"
    if platform == "mcp":
        return f"mcp|{package}"
    return f"{platform}|{package}|{row.get('service') or ''}"


def _pair_key(action: _Action) -> tuple[str, ...]:
    """The object words that must match for two actions to be inverse (articles, plurals ignored)."""
    return tuple(_singular(t) for t in action.obj if t not in _STOPWORDS)


def _split_undo(action: _Action) -> tuple[str, tuple[str, ...]]:
    """Normalise 'undo soft delete message' -> ('undo:delete', ('message',)) and 'soft delete' likewise."""
    obj = _pair_key(action)
    if action.verb == "undo":
        rest = [t for t in obj if t != "soft"]
        if rest and rest[0] in _VERBS:
            return "undo:" + rest[0], tuple(rest[1:])
    return action.verb, tuple(t for t in obj if t != "soft")


def _object_un_pair(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """markAsRead / markAsUnread: same verb, objects that differ by one un- prefix."""
    if len(a) != len(b) or a == b:
        return False
    diff = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    return len(diff) == 1 and (diff[0][0] == "un" + diff[0][1] or diff[0][1] == "un" + diff[0][0])


def _pairable(v: _Verdict) -> bool:
    return (v.side_effect in (REVERSIBLE, COMPENSABLE, IRREVERSIBLE) and not v.arbitrary
            and "+money" not in v.rule and "+session" not in v.rule)  # fmt: skip


def _link_inverses(rows: list[dict], verdicts: list[_Verdict]) -> list[tuple[str | None, str | None]]:
    """For each tool: (inverse_tool_id, new rule or None).  Exact pairs are T1; create->delete is T3."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, row in enumerate(rows):
        if verdicts[i].action is not None:
            groups[_group_key(row)].append(i)
    out: list[tuple[str | None, str | None]] = [(None, None)] * len(rows)
    for members in groups.values():
        if len(members) < 2:
            continue
        # external sends, money and arbitrary execution are never undone by a paired call, so they
        # neither get an inverse nor serve as one (removing a comment does not unsend it)
        keyed = [(i, *_split_undo(verdicts[i].action)) for i in members if _pairable(verdicts[i])]  # type: ignore[arg-type]
        verbs = {i: verb for i, verb, _ in keyed}
        for i, verb, obj in keyed:
            exact = compensator = None
            for j, verb2, obj2 in keyed:
                if i == j:
                    continue
                undoes = verb2 in _INVERSE_VERBS.get(verb, ()) or verb2 == "undo:" + verb or verb == "undo:" + verb2
                if (obj == obj2 and undoes) or (verb == verb2 and _object_un_pair(obj, obj2)):
                    exact = j if exact is None else exact
                elif obj == obj2 and verb2 in _COMPENSATED_BY.get(verb, ()):
                    compensator = j if compensator is None else compensator
            if exact is not None:
                out[i] = (rows[exact]["tool_id"], f"inverse_pair:{verb}/{verbs[exact]}")
            elif compensator is not None and verdicts[i].side_effect == COMPENSABLE:
                out[i] = (rows[compensator]["tool_id"], None)
    return out


def normalize_service(service: str | None, package: str | None = None) -> str:
    """A lowercase ``[a-z0-9_]`` identifier for the scope prefix; the package when service is empty."""
    for raw in (service, package):
        norm = re.sub(r"[^a-z0-9]+", "_", (raw or "").lower()).strip("_")
        if norm:
            return norm
    return "unknown"


def permission_scope(service: str | None, package: str | None, side_effect: str, arbitrary: bool = False) -> str:
    """``<service>.<level>``: read, write, delete, send, or admin for unknown tiers and arbitrary execution."""
    level = "admin" if arbitrary else SCOPE_LEVELS[side_effect]
    return f"{normalize_service(service, package)}.{level}"


_COLUMNS = ("tool_id", "platform", "package", "service", "source_symbol", "name", "display_name", "description",
            "http_methods", "categories")  # fmt: skip


def classify_side_effects(tools: pl.DataFrame) -> pl.DataFrame:
    """One row per input tool, same order: tool_id, side_effect, side_effect_rule, inverse_tool_id, permission_scope."""
    present = [c for c in _COLUMNS if c in tools.columns]
    rows = tools.select(present).to_dicts()
    verdicts = [_classify_one(r) for r in rows]
    links = _link_inverses(rows, verdicts)
    out: dict[str, list] = {c: [] for c in OUTPUT_SCHEMA.names()}
    for row, verdict, (inverse, pair_rule) in zip(rows, verdicts, links, strict=True):
        side_effect, rule = verdict.side_effect, verdict.rule
        if pair_rule is not None:
            side_effect, rule = REVERSIBLE, pair_rule
        out["tool_id"].append(row.get("tool_id"))
        out["side_effect"].append(side_effect)
        out["side_effect_rule"].append(rule)
        out["inverse_tool_id"].append(inverse)
        out["permission_scope"].append(
            permission_scope(row.get("service"), row.get("package"), side_effect, verdict.arbitrary)
        )
    return pl.DataFrame(out, schema=OUTPUT_SCHEMA)


@dataclass(frozen=True)
class Agreement:
    """How the rules compare with hand labels: agreement over the tools the rules did not mark unknown."""

    n: int
    decided: int
    agreed: int
    unknown: int
    confusion: pl.DataFrame  # rows: label, columns: predicted tier, values: counts

    @property
    def agreement(self) -> float:
        return self.agreed / self.decided if self.decided else 0.0

    @property
    def unknown_share(self) -> float:
        return self.unknown / self.n if self.n else 0.0

    def render(self) -> str:
        with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=200, tbl_hide_dataframe_shape=True):
            return (
                f"tools={self.n} decided={self.decided} agreed={self.agreed} "
                f"agreement={self.agreement:.3f} unknown={self.unknown} ({self.unknown_share:.1%})\n"
                f"confusion (rows: hand label, columns: rule)\n{self.confusion}"
            )


def agreement_with_labels(sample: pl.DataFrame, label_column: str = "label") -> Agreement:
    """Classify a hand-labelled sample and compare with its labels."""
    predicted = classify_side_effects(sample)["side_effect"]
    labels = sample[label_column]
    tiers = [READ_ONLY, REVERSIBLE, COMPENSABLE, IRREVERSIBLE, EXTERNAL, UNKNOWN]
    counts = {(a, p): 0 for a in tiers for p in tiers}
    for a, p in zip(labels, predicted, strict=True):
        counts[(a, p)] += 1
    confusion = pl.DataFrame(
        {"label": tiers, **{p: [counts[(a, p)] for a in tiers] for p in tiers}},
    )
    decided = sum(1 for p in predicted if p != UNKNOWN)
    agreed = sum(1 for a, p in zip(labels, predicted, strict=True) if p != UNKNOWN and a == p)
    return Agreement(len(sample), decided, agreed, len(sample) - decided, confusion)
