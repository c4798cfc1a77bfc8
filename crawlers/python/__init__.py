"""Static reading of Python packages for the LangChain, CrewAI and LlamaIndex extractors.

Everything here works on ``ast`` trees of the package's own files: nothing from a crawled package
is ever imported or executed. Import each name from the module that defines it:

* ``index``: ``PackageIndex``, every module of the package (imports incl. relative ones and
  ``__init__`` re-exports, module constants, classes, functions) with symbol lookup across modules
  and a memoized, package-internal MRO; ``ModuleInfo``, ``ClassRef``, ``Symbol`` and the class and
  decorator readers (``own_attr``, ``decorator_call``, ``is_abstract``).
* ``evaluate``: ``Evaluator``, a tiny safe evaluator for the literal shapes tool metadata is written
  in (strings, concatenation, ``textwrap.dedent``, ``.strip()``, f-strings, references to module
  constants through imports, lists/tuples/dicts, simple comprehensions); ``Unresolved``, ``bind_target``.
* ``schema``: pydantic models and function signatures turned into JSON Schema objects
  (``model_schema``, ``signature_schema``, ``json_type``), ``Field(...)`` and docstring readers.
* ``credentials``: harvesting of credentials (env vars with their provenance, secret-holding fields,
  OAuth hints) into ``AuthInfo``; ``tool_auth`` over a tool's classes and the helpers they call.
* ``urls``: a tool's endpoints (``endpoint_urls``, ``module_endpoints``) and documentation links
  (``doc_urls_in``) found in the source.
* ``metadata``: the wheel's METADATA (``read_metadata``), which archive members to read
  (``want_python``), service names from module paths, ``@deprecated``, ``dedupe``.
* ``base_tool``: pydantic ``BaseTool`` classes (LangChain and CrewAI share this shape),
  ``read_tool_class``.

Which names and URLs count as credentials or endpoints is ``crawlers.vocabulary``'s.
"""
