"""Third-party text (tool names and descriptions, user queries) inserted into a prompt as data, never as instructions.

Every prompt of the pipeline (Syn generation, Real verification) puts such text in a delimited slot. Before it goes
there it is flattened to one line, trimmed, and stripped of anything that could close the slot or start a new
few-shot entry, so a description cannot turn itself into instructions.
"""

from __future__ import annotations

import re

# markers that would let the text escape its slot: the data delimiters and the few-shot labels of our templates
_BREAKOUT = re.compile(
    r"</?\s*(tool_data|tool|query)\s*>|\b(Tool|Description|Requests)\s*:|\[(Task|Inputs|Requirements|Output)\]", re.I
)


def as_data(text: str, limit: int) -> str:
    """One line of inert text: newlines collapsed, block markers removed, braces kept literal."""
    flat = " ".join(_BREAKOUT.sub(" ", text or "").split())
    if len(flat) > limit:
        flat = flat[:limit].rsplit(" ", 1)[0] + " ..."
    return flat
