"""Word and service-name handling shared by the stages (the language rule is tested with the Syn filters)."""

from __future__ import annotations

from ecoagent.text.words import normalize_service, service_key


def test_service_key_joins_one_service_written_three_ways() -> None:
    assert service_key("Google Sheets") == service_key("google_sheets") == "googlesheets"
    assert service_key(None) == ""


def test_normalize_service_is_a_scope_identifier() -> None:
    assert normalize_service("Google-Maps") == "google_maps"
    assert normalize_service("@modelcontextprotocol/server-memory") == "modelcontextprotocol_server_memory"
    assert normalize_service(None) == normalize_service("--") == ""


def test_a_reader_counts_whitespace_separated_words_and_ngrams_keep_their_tokens() -> None:
    from ecoagent.text.words import word_count, words

    url_query = "50041763 https://api.github.com/users/carlosantos?ref=qbase_token#v2"
    assert word_count(url_query) == 2  # 11 with the n-gram tokenizer, and passed the 5-word minimum
    assert len(words(url_query)) == 11  # the n-gram tokenizer is unchanged
    assert word_count("Post 'lunch at noon' in #eng, it's 12:30") == 8
    assert word_count("给团队发消息 now") == 7  # one word per Han character, as before
