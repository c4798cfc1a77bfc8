"""The words that mark a credential, and the URLs that are not a tool's endpoint, for every extractor.

Each reader sees names and URLs in its own shape: Python field names (``openai_api_key``), env var
names in JS or a README (``OPENAI_API_KEY``), n8n credential field names, URL literals in code, URLs
in a finished record. So these are several lists, not one: each constant says who reads it and why it
differs from its neighbours. Words two readers genuinely share are defined once (``SECRET_WORDS``,
``README_CREDENTIAL_SUFFIXES``). Lists that look alike but differ are kept apart on purpose: merging
them would change which names count as credentials or which URLs stay endpoints, and the crawl is
byte-identical for the same pins, so any change here is a change of the catalog.

Secret *redaction* (provider key shapes in crawled text) is another concept and stays in
``crawlers.normalize``.
"""

from __future__ import annotations

import re

# ---------------------------------------------------------------------------------------------------
# credentials: names that hold a secret

# Words that make a name secret-holding however it is written: Python field names (``github_token``)
# and env var names (``GITHUB_TOKEN``) alike. Both patterns built from it are case-insensitive and only
# ever asked whether they match somewhere in a name, so the order of the words does not matter.
SECRET_WORDS = ("api_?key", "token", "secret", "password", "passwd", "credential")

# Python extractors (``credentials.is_secret_field``): pydantic field and parameter names that hold a
# secret. Adds the snake_case names of credential files and ids (``key_file``, ``client_id``); unlike
# ``AUTH_ENV_VAR`` it has no bare ``_key`` suffix, so ``cache_key`` is not a secret field.
# ``api_?key`` also covers ``apikey``.
_SECRET_FIELD_WORDS = (
    *SECRET_WORDS,
    "creds",
    "private_key",
    "access_key",
    "client_id",
    "bearer",
    "service_account",
    "key_file",
    "keyfile",
)
SECRET_FIELD = re.compile("(" + "|".join(_SECRET_FIELD_WORDS) + ")", re.I)
# Python: names with a secret word that count or configure tokens of a language model (``max_tokens``,
# ``token_limit``) or name a secret kept elsewhere (``secret_name``): not credentials.
NOT_SECRET_FIELD = re.compile(
    r"(max_|_tokens$|^tokens$|tokenizer|token_limit|token_count|num_tokens|n_tokens|"
    r"tokens_|_token_type$|secret_name$)",
    re.I,
)
# Python (``AuthInfo.auth_type``): a tool's env var and credential names, joined and lowercased, that
# make its auth an API key. Passwords are not here: with a user name they make basic auth.
API_KEY_NAMES = re.compile(r"api_?key|apikey|token|secret|_key\b|key$|subscription")
# Python: string constants that show an OAuth flow (Google scopes and client files, MSAL).
OAUTH_HINT = re.compile(
    r"(oauth|googleapis\.com/auth|mail\.google\.com|credentials\.json|token\.json|"
    r"client_secret|refresh_token|authorization_code|InstalledAppFlow|msal)",
    re.I,
)

# MCP (``process.env`` reads and README instructions): env var names that carry a secret or point at
# one (credential files); other env vars are config (``MEMORY_FILE_PATH``). Adds what env var names say
# and Python field names do not: a ``_KEY`` suffix, ``KEY_ID`` (``AWS_ACCESS_KEY_ID``), ``OAUTH``/``AUTH``.
_AUTH_ENV_VAR_WORDS = (*SECRET_WORDS, r"_KEY\b", "KEY_ID", "OAUTH", "AUTH")
AUTH_ENV_VAR = re.compile("|".join(_AUTH_ENV_VAR_WORDS), re.I)
# MCP: import sources that mean the server runs an OAuth flow.
OAUTH_IMPORT = re.compile(r"local-auth|google-auth-library|oauth", re.I)

# n8n (``auth.credential_kind``): fragments of a credential type's lowercased field names that hold a
# static secret (API key, token, signature) as opposed to a login or OAuth. Plain substring tests, so
# ``key`` covers ``apiKey`` and ``privateKey``; a password field is judged apart (basic auth).
N8N_KEY_FIELD_WORDS = ("token", "key", "secret", "authcode", "signature")
# n8n: fragments of a login field name; a login beside a password field makes basic auth.
N8N_LOGIN_FIELD_WORDS = ("user", "login", "email", "binddn")

# LlamaIndex READMEs (the wheel's METADATA body): the suffixes of a credential env var name, shared by
# the two patterns below (joined in this order).
README_CREDENTIAL_SUFFIXES = (
    "API_KEY", "API_TOKEN", "ACCESS_TOKEN", "BOT_TOKEN", "TOKEN", "SECRET", "SECRET_KEY", "KEY",
)  # fmt: skip
_README_SUFFIX = "|".join(README_CREDENTIAL_SUFFIXES)
# One segment before the suffix (``SERPER_API_KEY``): the auth_env_vars fallback when code reads none.
README_ENV = re.compile(rf"\b[A-Z][A-Z0-9]*_(?:{_README_SUFFIX})\b")
# Any number of segments (``MAGIC_HOUR_API_KEY``, which ``README_ENV`` misses): the declared side.
README_CREDENTIAL = re.compile(rf"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:{_README_SUFFIX})\b")
# A multi-word suffix alone (``api_key="API_KEY"``) matches the patterns above but is a placeholder
# in an example, not a variable.
README_GENERIC_NAMES = frozenset(s for s in README_CREDENTIAL_SUFFIXES if "_" in s)
# Placeholders, not variables: ``project="YOUR_PROJECT_KEY"``.
README_PLACEHOLDER_NAME = re.compile(r"^(YOUR|MY|EXAMPLE)_")
# Keys of the language model a README example runs the agent with, not of the tool's own service.
LLM_PROVIDERS = ("OPENAI", "ANTHROPIC", "AZURE_OPENAI", "GROQ", "MISTRAL", "COHERE", "GOOGLE", "GEMINI", "LLAMA_CLOUD")
LLM_PROVIDER_KEY = re.compile(rf"^({'|'.join(LLM_PROVIDERS)})_")

# ---------------------------------------------------------------------------------------------------
# URLs that are not a tool's endpoint
#
# The extractors drop these from ``endpoints`` altogether; ``crawlers.links`` then classifies what is
# left in a record, keeping placeholder and namespace URLs but never checking them. The three lists
# differ in what they see (any URL in Python code, a whole JS string literal, a record's host) and in
# their entries; sharing entries between them would change which URLs the catalog keeps.

# Python extractors (base_url-like fields, URL-named constants, URL literals passed to calls): XML
# namespaces and schema ids, examples and loopback, GitHub issue/blob links, documentation, PyPI,
# LangChain's own docs, ``your-...`` placeholders. Searched anywhere in the URL.
PYTHON_NON_ENDPOINT_URL = re.compile(
    r"(w3\.org|xmlns|schemas?\.|example\.com|localhost|127\.0\.0\.1|"
    r"github\.com/.+/(issues|blob)|docs?\.|/docs?/|readthedocs|pypi\.org|"
    r"python\.langchain\.com|your[-_])",
    re.I,
)
# MCP (every URL string literal of the compiled JS): loopback and placeholders, XML namespaces, schema
# ids, OAuth scopes. Matched at the start of the literal only.
MCP_NON_ENDPOINT_URL = re.compile(
    r"^https?://(localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\]|(www\.)?example\.(com|org)|www\.w3\.org|json-schema\.org)"
    r"|^https?://www\.googleapis\.com/auth/",
    re.I,
)
# Link classification (matched against a record URL's lowercased host): loopback, any 127.x address,
# ``.local``/``.invalid``, example domains, ``my-``/``your-`` prefixes and a bare ``host`` stand for a
# host the user fills in: the link is kept as a placeholder and never checked.
PLACEHOLDER_HOST = re.compile(
    r"^(localhost|127\.|0\.0\.0\.0|\[::1\]|.*\.local$|.*example\.(com|org|net)$|my[.-]|your[.-]|.*\.invalid$|host$)"
)
# Link classification: namespace and schema identifiers look like URLs but are never fetched.
NAMESPACE_URI_HOSTS = ("www.w3.org", "schemas.xmlsoap.org", "adaptivecards.io", "json-schema.org", "purl.org")
