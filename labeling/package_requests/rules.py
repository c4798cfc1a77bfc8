"""The extraction rule: which strings of a package's docs are example requests a user gives an agent.

Two parts, both on text only (nothing of the package is imported or run):

- **Prose.** Inside a section whose heading path matches :data:`EXAMPLE_HEADING` ("Example prompts", "Try asking",
  "Usage examples", ...), or in a list whose lead-in line ends in ``:`` and mentions ask, try, say, prompt, request,
  query or question: the ``"..."`` string of a list item, blockquote line, table row or line of an untagged or text
  code fence; the whole item only under a *strong* heading (:data:`STRONG_HEADING`: example prompts, queries,
  questions or requests, try asking, prompt ideas) or after an "Ask:", "Try:" or "Say:" lead-in.
- **Code.** In a code fence and in the docstrings of the catalog tools' own classes and methods: the string handed
  to an agent as the request: ``<receiver>.chat / run / query / invoke / kickoff / ...(...)``, ``Task(description=
  ...)``, ``HumanMessage(...)``, ``("user", "...")``, ``{"role": "user", "content": "..."}``. The receiver's name
  decides what the string is: an agent, crew, engine or executor's is a **request**; an LLM's or model's is a plain
  prompt (``llm_prompt``, never a request); a tool's, spec's or API's is a **tool input** (``tool_input``: the
  parameter of one call, not what a user asks), as are ``query=`` / ``instruction=`` keyword arguments.

:func:`request_reason` is the filter every candidate passes: 4 to 40 words (settings), starting with a letter, not
ending in ``:``, no code, command or config marker, not a "Label: ..." line, not opening like a description
("Returns", "This tool", ...) and, outside a strong heading and code, opening like a request (an imperative verb, a
question word, "I", "my", "can", "please", ...). The empty string means it passes; otherwise the drop reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

EXAMPLE_HEADING = re.compile(
    r"(example|sample)s?\s+(prompt|quer|question|request|conversation|interaction|task|use|usage|scenario)"
    r"|(try|things to)\s+(ask|say|try)|what (you )?can (you |i )?(ask|do|say)|prompts? (examples?|ideas?)"
    r"|^(usage )?examples?$|quick examples|usage examples?|example usage|use cases?|^prompts?$|^demo"
    r"|how to use|ask (claude|the agent|your)", re.I)  # fmt: skip
STRONG_HEADING = re.compile(
    r"(example|sample)s?\s+(prompt|quer|question|request|conversation|interaction)|(try|things to)\s+(ask|say)"
    r"|what (you )?can (you |i )?(ask|say)|prompts? (examples?|ideas?)|quick examples|ask (claude|the agent|your)",
    re.I)  # fmt: skip
LEAD_IN = re.compile(r"(\bask\b|\btry\b|prompt|\bsay\b|request|quer|question|\btype\b)[^.]*:\s*\**\s*$"
                     r"|^\**\s*examples?\s*:\s*\**$", re.I)  # fmt: skip
LEAD_IN_ASK = re.compile(r"(\bask\b|\btry\b|\bsay\b)[^.]*:\s*\**\s*$", re.I)
QUOTED = re.compile(r'"([^"\n]{8,400})"|\u201c([^\u201d\n]{8,400})\u201d')
FENCE = re.compile(r"^\s*(```+|~~~+)\s*([\w+-]*)")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
LIST_ITEM = re.compile(r"^\s*(?:[-*+\u2022]|\d+[.)])\s+(.*)$")
RST_UNDERLINE = re.compile(r"([=\-~^\"#*+])\1{2,}\s*")
PROSE_FENCES = ("", "text", "txt", "plaintext", "markdown", "md", "prompt")

AGENT_RECEIVER = re.compile(r"(agent|crew|executor|engine|workflow|app|graph|worker|runner|assistant|bot|react|"
                            r"orchestrator|team|researcher|analyst)\w*$", re.I)  # fmt: skip
LLM_RECEIVER = re.compile(r"(^|_)(llm|model|chat|client|openai|anthropic|chatmodel|lm)$", re.I)
TOOL_RECEIVER = re.compile(r"(tool|spec|search|api|wrapper|loader|reader|retriever|toolkit|client)\w*$", re.I)
_STRING = r"""(?P<q>\"\"\"|'''|"|')(?P<s>(?:(?!(?P=q)).|\n){4,1200}?)(?P=q)"""
AGENT_CALL = re.compile(
    r"(?P<recv>[A-Za-z_][\w\]\[\.\(\)\"']*)\.(?P<meth>chat|achat|run|arun|query|aquery|invoke|ainvoke|stream_chat|"
    r"astream_chat|kickoff|kickoff_async|stream|astream|run_sync)\(\s*"
    r"(?:\{\s*[\"'](?:input|query|question|messages?|task|prompt)[\"']\s*:\s*)?(?:\[?\s*\(?\s*[\"'](?:user|human)"
    r"[\"']\s*,\s*)?(?:(?:user_msg|input|query|message|prompt|task|question|goal)\s*=\s*)?[fr]?" + _STRING)
CREW_TASK = re.compile(r"\bTask\(\s*(?:[^()]*?\bdescription\s*=\s*)[fr]?\(?\s*" + _STRING, re.S)
HUMAN_MESSAGE = re.compile(r"HumanMessage\(\s*(?:content\s*=\s*)?[fr]?" + _STRING)
USER_TURN = re.compile(r"\(\s*[\"'](?:user|human)[\"']\s*,\s*[fr]?" + _STRING)
ROLE_USER = re.compile(r"[\"']role[\"']\s*:\s*[\"']user[\"']\s*,\s*[\"']content[\"']\s*:\s*[fr]?" + _STRING)
TOOL_KEYWORD = re.compile(r"\b(query|search_query|user_prompt|instruction|objective|question)\s*=\s*[fr]?" + _STRING)
CODE_PATTERNS = ((AGENT_CALL, "agent_call"), (CREW_TASK, "crewai_task"), (HUMAN_MESSAGE, "human_message"),
                 (USER_TURN, "user_turn"), (ROLE_USER, "user_turn"), (TOOL_KEYWORD, "tool_input"))  # fmt: skip
DOCSTRING_PATTERNS = ((AGENT_CALL, "agent_call"), (TOOL_KEYWORD, "tool_input"))

CODE_MARKER = re.compile(r"(\w\(.*\)|[{}<>\[\]=;|\\]|\$\s|^\s*\$|--\w|\bnpx\b|\bpip\b|\bnpm\b|\buvx?\b|\bimport\b|"
                         r"\bdef\b|\bconst\b|\breturn\b|=>|::|^\w+\.\w+$|\w+_\w+=|https?://\S+$)")  # fmt: skip
DESCRIPTION_START = re.compile(
    r"^(returns?|gets|creates|provides|supports|allows|enables|uses|lets|the|this|these|it|each|all|"
    r"an?\s+\w+\s+(tool|server|api|function|client|wrapper)|optional|required|default|note|warning|tip|requires|set|"
    r"install|run|add|configure|see|if|when|for|built|works|useful|used|type|string|boolean|number|path to|url of|"
    r"name of|id of|list of|whether|api key|input|output|response|result)\b", re.I)  # fmt: skip
REQUEST_START = re.compile(
    r"^(please|can|could|would|will|what|what's|whats|how|who|whom|which|where|when|why|is|are|do|does|did|show|find|"
    r"get|give|list|search|tell|create|make|send|add|update|delete|remove|open|read|write|summari[sz]e|analy[sz]e|"
    r"compare|check|fetch|look|generate|draw|plot|convert|translate|calculate|compute|explain|book|schedule|set|help|"
    r"i|i'd|i'm|i've|my|let's|lets|use|navigate|go|take|extract|download|upload|post|publish|research|recommend|"
    r"suggest|plan|draft|edit|rename|move|copy|run|start|stop|monitor|track|retrieve|query|visuali[sz]e|render|build|"
    r"design|review|save|store|remember|recall|identify|predict|estimate|resolve|verify|validate|scrape|crawl|browse|"
    r"watch|play|transcribe|caption|describe|fix|debug|test|deploy|pull|push|merge|close|assign|invite|notify|remind|"
    r"order|buy|pay|lease|rent|reserve|cancel|display|count|sort|filter|group|map|locate|measure|evaluate|assess|"
    r"audit|scan|detect|classify|format|insert|append|replace|change|apply|enable|disable|there's|there|hey|ok|okay|"
    r"now|also|then|first|next|using|based|from|according|in|on|at|with|bring|pick|choose|select|decide|think|say|"
    r"explore|discover|investigate|access|load|import|export|connect|sign|login|log|register|subscribe|call|ask|"
    r"perform|execute|grab|collect|gather|summarise|outline|prepare|prep|return|need|want|any|have|has|should|shall|"
    r"may|might|must)\b", re.I)  # fmt: skip
NAME_LABEL = re.compile(r"^[A-Z][\w-]*(\s+[A-Z][\w-]*){0,4}\s*[:\u2013\u2014-]\s")
BOLD_LABEL = re.compile(r"^\*\*[^*]{1,40}\*\*\s*[:\-\u2013\u2014]?\s*")
ARROW_TAIL = re.compile(r"\s*(\u2192|->).*$")


@dataclass(frozen=True)
class Candidate:
    """A string the rule found: ``kind`` is request, tool_input or llm_prompt; ``context`` the line, item or code
    block it came from (where a tool named beside it is looked for); ``strong`` whether the opening test is waived."""

    text: str
    heading: str
    context: str
    rule: str  # prose | code | docstring
    how: str  # the pattern: item_quoted, item_whole, fence_line, agent_call, crewai_task, ...
    kind: str
    line: int
    strong: bool


def clean(text: str) -> str:
    """One line, without a bold "**Label:**" lead and the markdown around it."""
    text = BOLD_LABEL.sub("", re.sub(r"\s+", " ", text).strip())
    return text.strip(" *_>")


def request_reason(text: str, *, strong: bool, min_words: int, max_words: int) -> str:
    """Why ``text`` is not an example request ("" when it is; the module docstring has the rule)."""
    if not text or not text[0].isalpha():
        return "not_a_sentence"
    words = len(text.split())
    if words < min_words:
        return "too_short"
    if words > max_words:
        return "too_long"
    if CODE_MARKER.search(text):
        return "code_or_command"
    if text.endswith(":") or NAME_LABEL.match(text):
        return "label_line"
    starts_as_request = bool(REQUEST_START.match(text))
    if DESCRIPTION_START.match(text) and not starts_as_request:
        return "description"
    if not starts_as_request and not strong:
        return "not_addressed"
    return ""


def _call_kind(how: str, receiver: str | None) -> str:
    if how == "tool_input":
        return "tool_input"
    if how != "agent_call" or receiver is None:
        return "request"
    name = re.sub(r"[()\[\]\"']", "", receiver).split(".")[-1] or receiver
    if AGENT_RECEIVER.search(name):
        return "request"
    if LLM_RECEIVER.search(name):
        return "llm_prompt"
    return "tool_input" if TOOL_RECEIVER.search(name) else "request"


def code_candidates(code: str, heading: str, line: int, patterns: tuple = CODE_PATTERNS,
                    rule: str = "code") -> Iterator[Candidate]:  # fmt: skip
    """The request strings of a code block (or a docstring, with :data:`DOCSTRING_PATTERNS`)."""
    for pattern, how in patterns:
        for found in pattern.finditer(code):
            receiver = found.groupdict().get("recv")
            yield Candidate(clean(found.group("s")), heading, code, rule, how, _call_kind(how, receiver), line, True)


def markdown_from_rst(text: str) -> str:
    """reStructuredText's underlined titles as markdown headings (the only RST structure the rule reads)."""
    lines, out, i = text.splitlines(), [], 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and RST_UNDERLINE.fullmatch(nxt) and len(nxt.strip()) >= len(line.strip()) - 1:
            out.append("## " + line.strip())
            i += 2
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def _blocks(text: str) -> Iterator[tuple[str, str, str, str, int]]:
    """(heading path, kind, text, fence language, line number): kind ``heading``, ``text`` (a line) or ``code`` (a
    whole fenced block)."""
    heading, stack, fence, language, buffer, start = "", [], False, "", [], 0
    for number, line in enumerate(text.splitlines(), 1):
        opened = FENCE.match(line)
        if opened:
            if fence:
                yield heading, "code", "\n".join(buffer), language, start
                fence = False
            else:
                fence, language, buffer, start = True, opened.group(2).lower(), [], number
            continue
        if fence:
            buffer.append(line)
            continue
        title = HEADING.match(line)
        if title:
            level = len(title.group(1))
            stack = [h for h in stack if h[0] < level] + [(level, title.group(2).strip().strip("*").strip())]
            heading = " > ".join(h[1] for h in stack)
            yield heading, "heading", line, "", number
            continue
        yield heading, "text", line, "", number
    if fence and buffer:
        yield heading, "code", "\n".join(buffer), language, start


def _quoted(text: str) -> list[str]:
    return [next(g for g in found.groups() if g) for found in QUOTED.finditer(text)]


def doc_candidates(text: str, member: str) -> Iterator[Candidate]:
    """Every candidate string of one docs member (markdown, or RST read as markdown)."""
    if member.lower().endswith(".rst"):
        text = markdown_from_rst(text)
    previous, by_lead_in = "", False
    for heading, kind, body, language, line in _blocks(text):
        parts = [h.strip() for h in heading.split(" > ")]
        in_examples = any(EXAMPLE_HEADING.search(h) for h in parts)
        strong = any(STRONG_HEADING.search(h) for h in parts)
        if kind == "heading":
            by_lead_in = False
            continue
        if kind == "code":
            yield from code_candidates(body, heading, line)
            if in_examples and language in PROSE_FENCES:  # a fence of prompts, one per line
                for row in (r.strip() for r in body.splitlines()):
                    quoted = _quoted(row)
                    if quoted:
                        yield Candidate(clean(quoted[0]), heading, row, "prose", "fence_quoted", "request", line,
                                        False)  # fmt: skip
                    elif strong and row:
                        yield Candidate(clean(LIST_ITEM.sub(r"\1", row)), heading, row, "prose", "fence_line",
                                        "request", line, True)  # fmt: skip
            previous = ""
            continue
        stripped = body.strip()
        if not stripped:
            continue
        item = LIST_ITEM.match(stripped)
        table_row = stripped.startswith("|") and stripped.endswith("|") and not re.fullmatch(r"[|:\-\s]+", stripped)
        if not (item or table_row or stripped.startswith(">")):
            by_lead_in, previous = bool(LEAD_IN.search(stripped)), stripped
            if in_examples:
                for quoted in _quoted(stripped):
                    yield Candidate(clean(quoted), heading, stripped, "prose", "paragraph_quoted", "request", line,
                                    False)  # fmt: skip
            continue
        if not (in_examples or by_lead_in):
            continue
        content = item.group(1) if item else stripped.strip("|> ")
        quoted = _quoted(content)
        for text_ in quoted:
            yield Candidate(clean(text_), heading, stripped, "prose", "item_quoted", "request", line, False)
        if not quoted and not table_row and (strong or (by_lead_in and LEAD_IN_ASK.search(previous))):
            yield Candidate(clean(ARROW_TAIL.sub("", content)), heading, stripped, "prose", "item_whole", "request",
                            line, True)  # fmt: skip
