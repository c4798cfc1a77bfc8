"""How the side-effect rules compare with hand labels: agreement over the tools the rules did not mark unknown.

Measured on the hand-labelled sample (``tests/scoring/data/side_effect_sample.jsonl``) by its test and by
``benchmarks/side_effect_agreement.py``, which prints and records the same figures.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from scoring.side_effect.stage import classify_side_effects
from scoring.side_effect.tiers import COMPENSABLE, EXTERNAL, IRREVERSIBLE, READ_ONLY, REVERSIBLE, UNKNOWN


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
