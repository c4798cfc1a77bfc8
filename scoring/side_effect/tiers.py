"""The six side-effect tiers, the values of ``side_effect``."""

from __future__ import annotations

READ_ONLY = "read_only"
REVERSIBLE = "reversible"
COMPENSABLE = "compensable"
IRREVERSIBLE = "irreversible"
EXTERNAL = "external_side_effect"
UNKNOWN = "unknown"
