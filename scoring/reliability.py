"""The metadata reliability score of RATED (Section 3.3, eq. 4-5), exactly as the paper defines it.

    r_cons  = cos(Enc(name), Enc(description))            name-description consistency (SBERT)
    w_src   = 1.0 official listing, 0.9 LangChain / CrewAI / LlamaIndex, 0.8 n8n, 0.6 otherwise
              (per listing: :data:`LISTING_RULES` says which weight each listing takes, and why)
    r_qual  = logistic(0.6 z_desc + 0.4 z_tag)             documentation quality
    r_static = 0.5 r_cons + 0.3 w_src + 0.2 r_qual          reliable when r_static >= 0.8

z standardizes a length against its median: z = (x - median(x)) / std(x), the median and spread taken over a
reference population (``score.r_qual_reference``): ``platform_official`` (default) the official and platform
listings' tools of the catalog being scored, so community packages do not move an official tool's score;
``catalog`` every tool being scored (the paper's reading, and ours before the setting). The tag string is the tool's
categories joined with ", " (only n8n ships categories, so the other platforms' z_tag is the catalog's lowest: that
is the paper's formula, not a choice here).
The name side of r_cons is ``score.name_text``: ``split`` (default: snake_case and camelCase split
into words, "brave_search" -> "brave search", so the encoder sees the words the name says), ``raw``
(the identifier as crawled, what the authors' code embeds) or ``display`` (the human-facing name). A
negative cosine is clipped to 0, so every sub-score stays in [0, 1].

The paper does not say which SBERT model or which name text it used, and its 56.8 % reliable share
is not reproduced by the formula as we read it (7.6 % on our catalog). ``score.readings`` names other
readings whose reliable share the summary reports beside ours; ``paper_compatible`` is the authors'
code (raw names, and a source weight that tests ``"official" in source``, which gives their
``n8n_official`` source 1.0).
"""

from __future__ import annotations

import re

import numpy as np

from ecoagent.retrieval.embedding.cache import Embedder

NAME_TEXTS = ("split", "raw", "display")


def name_as_words(name: str) -> str:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)
    return " ".join(re.sub(r"[_\-.:/]+", " ", spaced).split())


def name_texts(names: list[str], display_names: list[str | None], mode: str) -> list[str]:
    """What the name side of r_cons embeds: ``split`` identifiers, ``raw`` identifiers or ``display`` names."""
    if mode == "split":
        return [name_as_words(n) for n in names]
    if mode == "raw":
        return list(names)
    if mode == "display":
        return [d or n for n, d in zip(names, display_names, strict=True)]
    raise ValueError(f"score.name_text={mode!r}: choose one of {', '.join(NAME_TEXTS)}")


PLATFORM = "<platform>"  # a listing whose tools take their platform's weight
# The paper's w_src rule (Section 3.3) has an official listing, the four platforms and "otherwise"; a catalog with
# third-party packages has two more listings. Each listing's key of score.source_weights, and the reason, which the
# score summary and the dataset card state. A key of the listing's own name in score.source_weights wins.
LISTING_RULES: dict[str, tuple[str, str]] = {
    "official": ("official", "an official listing (the MCP reference servers): the paper's 1.0"),
    "platform": (PLATFORM, "the platform's own or partner packages: the paper's platform weight (0.9 LangChain, "
                           "CrewAI, LlamaIndex; 0.8 n8n)"),
    "community-verified": (PLATFORM, "a third-party package the platform verified (n8n reviews its verified community "
                                     "nodes and lists them in its own editor): the platform vouches for it, so it "
                                     "takes the platform's weight (0.8 for n8n), not the paper's 'otherwise'"),
    "community": ("other", "a third-party package no platform reviewed (anyone can publish one): the paper's "
                           "'otherwise', 0.6"),
}  # fmt: skip


def source_weight_key(platform: str, listing: str, weights: dict[str, float]) -> str:
    """The key of ``score.source_weights`` a tool of ``platform`` in ``listing`` takes (see :data:`LISTING_RULES`)."""
    if listing in weights:
        return listing
    key = LISTING_RULES.get(listing, ("other", ""))[0]
    if key == PLATFORM:
        return platform if platform in weights else "other"
    return key


def source_weight(platform: str, listing: str, weights: dict[str, float]) -> float:
    return weights[source_weight_key(platform, listing, weights)]


def median_z(values: np.ndarray, reference: np.ndarray | None = None) -> np.ndarray:
    """``(x - median) / std``, the median and spread of ``values[reference]`` (a boolean mask; None: all of them)."""
    values = values.astype(np.float64)
    if len(values) == 0:
        return values
    base = values if reference is None else values[reference]
    spread = base.std()
    return (values - np.median(base)) / (spread if spread > 0 else 1.0)


def quality_scores(
    description_lengths: np.ndarray,
    tag_lengths: np.ndarray,
    weights: tuple[float, float],
    reference: np.ndarray | None = None,
) -> np.ndarray:
    """r_qual of every tool, its z-scores against the tools ``reference`` marks (None: every tool)."""
    z = weights[0] * median_z(description_lengths, reference) + weights[1] * median_z(tag_lengths, reference)
    return 1.0 / (1.0 + np.exp(-z))


R_QUAL_REFERENCES = ("platform_official", "catalog")
REFERENCE_LISTINGS = ("official", "platform")  # platform_official: what no third-party package can move


def quality_reference(listings: list[str], reference: str) -> np.ndarray | None:
    """The tools ``r_qual``'s z-scores are taken against (``score.r_qual_reference``), as a mask; None: all.

    ``platform_official`` is the official and platform listings' tools, so that adding community packages moves no
    official tool's score; a catalog without one such tool falls back to the whole catalog (no median to take).
    """
    if reference == "catalog":
        return None
    if reference != "platform_official":
        raise ValueError(f"score.r_qual_reference={reference!r}: choose one of {', '.join(R_QUAL_REFERENCES)}")
    mask = np.array([listing in REFERENCE_LISTINGS for listing in listings], dtype=bool)
    return mask if mask.any() else None


def consistency_scores(embedder: Embedder, names: list[str], descriptions: list[str],
                       phase: str | None = None) -> np.ndarray:  # fmt: skip
    """Cosine of name and description embeddings; 0 for a tool without a description.

    ``names`` are embedded as given: build them with :func:`name_texts`. ``phase``: the name of each embedding pass
    in the running step, ``{}`` replaced by what it embeds.
    """
    if not names:
        return np.zeros(0)
    name_vecs = embedder.encode(names, phase=phase and phase.format("the names"))
    desc_vecs = embedder.encode([d or " " for d in descriptions], phase=phase and phase.format("the descriptions"))
    cos = np.einsum("ij,ij->i", name_vecs, desc_vecs)
    cos[[not d.strip() for d in descriptions]] = 0.0
    return np.clip(cos, 0.0, 1.0)


def static_prior(r_cons: np.ndarray, w_src: np.ndarray, r_qual: np.ndarray, weights: tuple[float, float, float]):
    if abs(sum(weights) - 1.0) > 1e-9:
        raise ValueError(f"score.weights must sum to 1 (the paper's constraint), got {weights}")
    return weights[0] * r_cons + weights[1] * w_src + weights[2] * r_qual
