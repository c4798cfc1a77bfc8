"""The tool registry: every tool of a release in one fixed order, the core tools and the tenants.

The order never changes between calls (the release's ``tool_id`` order, or the list given): the
selector emits tools in this order so the tools block of a prompt keeps a stable, cacheable prefix.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import polars as pl

from ecoagent.release_format.reader import Release
from ecoagent.text.documents import document_text
from selector.scopes import ScopeIndex, ScopeVocabulary, UnknownScope

REQUIRED_COLUMNS = ("tool_id", "name", "description", "permission_scope", "prompt_tokens", "side_effect")


class UnknownTool(KeyError):
    def __str__(self) -> str:
        return f"unknown tool id {self.args[0]!r}"


class UnknownTenant(KeyError):
    def __str__(self) -> str:
        return f"unknown tenant {self.args[0]!r}"


@dataclass(frozen=True)
class Tool:
    tool_id: str
    name: str
    description: str
    platform: str
    service: str
    permission_scope: str
    prompt_tokens: int
    side_effect: str
    inverse_tool_id: str | None
    parameters: str  # JSON Schema of the input, as a JSON string
    document: str  # what the lexical and dense indexes see

    def definition(self) -> dict:
        """An OpenAI-style function definition; ``x-tool_id`` keeps the catalog id next to the display name."""
        try:
            parameters = json.loads(self.parameters) if self.parameters else {}
        except ValueError:
            parameters = {}
        if not isinstance(parameters, dict) or not parameters:
            parameters = {"type": "object", "properties": {}}
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": parameters},
            "x-tool_id": self.tool_id,
            "x-permission_scope": self.permission_scope,
            "x-side_effect": self.side_effect,
        }


class ToolRegistry:
    """Tools in a fixed order, the ids of the core tools, and optional tenant -> tool subsets.

    ``tenants`` maps a tenant to the tool ids it may see (its private tools plus whatever shared
    tools it gets); ``tenant=None`` means the whole registry. Core tools must be registry tools.
    """

    def __init__(
        self,
        tools: Sequence[Tool],
        core_tools: Sequence[str] = (),
        tenants: Mapping[str, Sequence[str]] | None = None,
        version: str = "",
    ):
        self.tools = list(tools)
        self.version = version
        self.ids = [t.tool_id for t in self.tools]
        self.row_of = {tool: i for i, tool in enumerate(self.ids)}
        if len(self.row_of) != len(self.ids):
            raise ValueError("the registry lists a tool id twice")
        missing = [c for c in core_tools if c not in self.row_of]
        if missing:
            raise UnknownTool(missing[0])
        self.core_rows = np.array(sorted(self.row_of[c] for c in dict.fromkeys(core_tools)), dtype=np.int64)
        self.is_core = np.zeros(len(self.tools), dtype=bool)
        self.is_core[self.core_rows] = True
        self.tokens = np.array([t.prompt_tokens for t in self.tools], dtype=np.int64)
        self.token_list = self.tokens.tolist()  # packing reads a few entries per call: list indexing is cheaper
        self.id_array = np.array(self.ids, dtype=object)  # ids of many rows in one fancy index
        scopes = [t.permission_scope for t in self.tools]
        self._scope_index = ScopeIndex(scopes)
        self.vocabulary = ScopeVocabulary.of(scopes)
        self._all_rows = np.arange(len(self.tools), dtype=np.int64)
        self._all_rows.flags.writeable = False
        self.tenant_rows: dict[str, np.ndarray] = {}
        self._in_tenant: dict[str, np.ndarray] = {}
        for tenant, ids in (tenants or {}).items():
            unknown = [i for i in ids if i not in self.row_of]
            if unknown:
                raise UnknownTool(unknown[0])
            self.tenant_rows[tenant] = np.array(sorted({self.row_of[i] for i in ids}), dtype=np.int64)
            self._in_tenant[tenant] = np.zeros(len(self.tools), dtype=bool)
            self._in_tenant[tenant][self.tenant_rows[tenant]] = True
        # callers repeat their scope lists: the mask of each (scopes, tenant) is kept, read-only, in a bounded LRU
        self._allowed = lru_cache(maxsize=4096)(self._allowed_uncached)

    def __len__(self) -> int:
        return len(self.tools)

    def tool(self, tool_id: str) -> Tool:
        if tool_id not in self.row_of:
            raise UnknownTool(tool_id)
        return self.tools[self.row_of[tool_id]]

    def rows_of_tenant(self, tenant: str | None) -> np.ndarray:
        """Registry rows a tenant sees, ascending (all rows for ``None``)."""
        if tenant is None:
            return self._all_rows
        if tenant not in self.tenant_rows:
            raise UnknownTenant(tenant)
        return self.tenant_rows[tenant]

    def check_scopes(self, caller_scopes: Iterable[str]) -> None:
        bad = self.vocabulary.unknown(caller_scopes)
        if bad:
            raise UnknownScope(bad)

    def allowed(self, caller_scopes: Iterable[str], tenant: str | None = None) -> np.ndarray:
        """Mask over all rows (read-only): in the tenant's subset and granted by the caller's scopes."""
        return self._allowed(tuple(caller_scopes), tenant)[0]

    def allowed_rows(self, caller_scopes: Iterable[str], tenant: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(:meth:`allowed`'s mask, the rows it allows in ascending order), both read-only."""
        return self._allowed(tuple(caller_scopes), tenant)

    def _allowed_uncached(self, caller_scopes: tuple[str, ...], tenant: str | None) -> tuple[np.ndarray, np.ndarray]:
        self.check_scopes(caller_scopes)  # raises: an error is never cached
        mask = self._scope_index.mask(caller_scopes)
        if tenant is not None:
            self.rows_of_tenant(tenant)  # raises UnknownTenant
            mask &= self._in_tenant[tenant]
        rows = np.flatnonzero(mask)
        mask.flags.writeable = rows.flags.writeable = False
        return mask, rows

    @classmethod
    def from_frame(
        cls,
        frame: pl.DataFrame,
        core_tools: Sequence[str] = (),
        tenants: Mapping[str, Sequence[str]] | None = None,
        documents: Sequence[str] | None = None,
        order: Sequence[str] | None = None,
        version: str = "",
    ) -> ToolRegistry:
        """Tools from a ``tools`` table (the scored catalog's columns), in ``order`` or the frame's order."""
        missing = [c for c in REQUIRED_COLUMNS if c not in frame.columns]
        if missing:
            raise ValueError(f"the tools table lacks column(s) {missing}")
        if order is not None:
            position = {tool: i for i, tool in enumerate(order)}
            if set(position) != set(frame["tool_id"]):
                raise ValueError("the registry order must list exactly the tools of the table")
            rank = pl.col("tool_id").replace_strict(position, return_dtype=pl.Int64)
            frame = frame.with_columns(rank.alias("_order")).sort("_order").drop("_order")
            documents = None  # a given document list follows the frame's original order
        rows = frame.to_dicts()
        tools = []
        for i, row in enumerate(rows):
            name, description = row.get("name") or "", row.get("description") or ""
            tools.append(
                Tool(
                    tool_id=row["tool_id"],
                    name=name,
                    description=description,
                    platform=row.get("platform") or "",
                    service=row.get("service") or "",
                    permission_scope=row.get("permission_scope") or "",
                    prompt_tokens=int(row["prompt_tokens"]),
                    side_effect=row.get("side_effect") or "unknown",
                    inverse_tool_id=row.get("inverse_tool_id"),
                    parameters=row.get("parameters") or "",
                    document=documents[i] if documents is not None else document_text(name, description),
                )
            )
        return cls(tools, core_tools, tenants, version)

    @classmethod
    def from_release(
        cls,
        folder: str | Path,
        core_tools: Sequence[str] = (),
        tenants: Mapping[str, Sequence[str]] | None = None,
    ) -> ToolRegistry:
        """The release's ``tools`` config in its ``tool_id`` order, indexed on the released corpus text."""
        from ecoagent.release_format.reader import load_release

        return cls.of_release(load_release(folder), core_tools, tenants)

    @classmethod
    def of_release(cls, release: Release, core_tools: Sequence[str] = (),
                   tenants: Mapping[str, Sequence[str]] | None = None) -> ToolRegistry:  # fmt: skip
        """:meth:`from_release` of a release already loaded (and verified)."""
        return cls.from_frame(
            release.tools, core_tools, tenants, documents=release.corpus.documents, version=release.version
        )
