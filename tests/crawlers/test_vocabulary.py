"""The shared credential and non-endpoint vocabulary: words shared by readers, and differences kept."""

from __future__ import annotations

from crawlers.vocabulary import (
    AUTH_ENV_VAR,
    MCP_NON_ENDPOINT_URL,
    NOT_SECRET_FIELD,
    PYTHON_NON_ENDPOINT_URL,
    README_CREDENTIAL,
    README_CREDENTIAL_SUFFIXES,
    README_ENV,
    README_GENERIC_NAMES,
    SECRET_FIELD,
)


def test_shared_secret_words_mark_python_fields_and_env_vars_alike() -> None:
    pairs = [
        ("openai_api_key", "OPENAI_API_KEY"),
        ("apikey", "APIKEY"),
        ("github_token", "GITHUB_TOKEN"),
        ("client_secret", "CLIENT_SECRET"),
        ("db_password", "DB_PASSWORD"),
        ("db_passwd", "DB_PASSWD"),
        ("gcp_credentials", "GCP_CREDENTIALS"),
    ]
    for field, env in pairs:
        assert SECRET_FIELD.search(field), field
        assert AUTH_ENV_VAR.search(env), env


def test_field_and_env_var_words_differ_where_the_names_do() -> None:
    # an env var's _KEY suffix and KEY_ID are credentials; a Python field's bare _key is not
    assert AUTH_ENV_VAR.search("STRIPE_KEY") and AUTH_ENV_VAR.search("AWS_ACCESS_KEY_ID")
    assert not SECRET_FIELD.search("cache_key")
    # credential files and client ids count as Python fields only
    assert SECRET_FIELD.search("service_account_file") and SECRET_FIELD.search("client_id")
    assert not AUTH_ENV_VAR.search("GOOGLE_CLIENT_ID")
    assert not AUTH_ENV_VAR.search("MEMORY_FILE_PATH")  # config, not a credential
    # token counts of a language model are not secrets
    assert SECRET_FIELD.search("max_tokens") and NOT_SECRET_FIELD.search("max_tokens")
    assert not NOT_SECRET_FIELD.search("access_token")


def test_readme_patterns_share_suffixes_and_a_bare_suffix_is_a_placeholder() -> None:
    text = "Set SERPER_API_KEY and MAGIC_HOUR_API_KEY."
    assert README_ENV.findall(text) == ["SERPER_API_KEY"]
    assert README_CREDENTIAL.findall(text) == ["SERPER_API_KEY", "MAGIC_HOUR_API_KEY"]
    alone = [s for s in README_CREDENTIAL_SUFFIXES if README_CREDENTIAL.fullmatch(s)]
    assert alone and set(alone) == README_GENERIC_NAMES


def test_non_endpoint_urls_differ_by_reader() -> None:
    # Python drops documentation URLs found anywhere; MCP drops only loopback, examples, namespaces, OAuth scopes
    assert PYTHON_NON_ENDPOINT_URL.search("https://docs.acme.dev/api")
    assert not MCP_NON_ENDPOINT_URL.match("https://docs.acme.dev/api")
    assert MCP_NON_ENDPOINT_URL.match("https://www.googleapis.com/auth/drive.readonly")
    assert MCP_NON_ENDPOINT_URL.match("http://[::1]:8080/") and not PYTHON_NON_ENDPOINT_URL.search("http://[::1]:8080/")
