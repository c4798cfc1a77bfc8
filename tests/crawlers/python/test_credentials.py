"""Credential harvesting: env var shapes and their provenance."""

from __future__ import annotations

from crawlers.python.credentials import harvest_auth
from tests.crawlers.python.helpers import package_index


def test_env_var_harvesting_shapes() -> None:
    index = package_index(
        {
            "m.py": """
import os
from langchain_core.utils import get_from_dict_or_env, secret_from_env, from_env
KEY_NAME = "CONST_KEY"
class W:
    a = Field(default_factory=secret_from_env(["LIST_KEY"]))
    b = Field(default_factory=secret_from_env("PLAIN_KEY"))
    c = Field(default_factory=from_env("FROM_ENV_KEY"))
    def v(self, values):
        values["k"] = get_from_dict_or_env(values, "k", "DICT_KEY")
        return os.environ["ENVIRON_KEY"], os.getenv(KEY_NAME), os.environ.get("GET_KEY")
"""
        }
    )
    info = index.module("m")
    auth = harvest_auth(index, info, [info.classes["W"]])
    expected = {"LIST_KEY", "PLAIN_KEY", "FROM_ENV_KEY", "DICT_KEY", "ENVIRON_KEY", "CONST_KEY", "GET_KEY"}
    assert set(auth.env_vars) == expected
    assert auth.auth_type() == "api_key"


def test_env_var_provenance_declared_read_and_set() -> None:
    """LangChain field helpers declare; os.* reads and membership tests read; an assignment does neither."""
    index = package_index(
        {
            "m.py": """
import os
from langchain_core.utils import get_from_dict_or_env, get_from_env, secret_from_env
class W:
    a = Field(default_factory=secret_from_env("DECL_KEY"))
    def v(self, values):
        values["k"] = get_from_dict_or_env(values, "k", "DICT_KEY")
        values["j"] = get_from_env("j", "GET_FROM_ENV_KEY")
        os.environ["SET_ONLY_KEY"] = "x"
        if "MEMBER_KEY" in os.environ and "ABSENT_KEY" not in os.environ:
            pass
        return os.environ["ENVIRON_KEY"], os.getenv("GETENV_KEY"), os.environ.get("DICT_KEY")
"""
        }
    )
    info = index.module("m")
    auth = harvest_auth(index, info, [info.classes["W"]])
    assert set(auth.env_declared) == {"DECL_KEY", "DICT_KEY", "GET_FROM_ENV_KEY"}
    assert set(auth.env_read) == {"MEMBER_KEY", "ABSENT_KEY", "ENVIRON_KEY", "GETENV_KEY", "DICT_KEY"}
    # env_vars keeps its historical content: the set-only name, no membership-test names
    expected = {"DECL_KEY", "DICT_KEY", "GET_FROM_ENV_KEY", "SET_ONLY_KEY", "ENVIRON_KEY", "GETENV_KEY"}
    assert set(auth.env_vars) == expected
    merged = harvest_auth(index, info, [])
    merged.merge(auth)
    assert merged.env_declared == auth.env_declared and merged.env_read == auth.env_read
