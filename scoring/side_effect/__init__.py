"""Side-effect tier (POLAR), inverse tool and permission scope of every tool.

POLAR (Table 16) annotates a tool by asking, top to bottom: does another tool exactly undo it (T1
``inverse_of``)?  does it undo itself under a bound (T2)?  can it be compensated with a named residue
(T3)?  does it consume something for good (T4)?  is it a delivery or hand-off to an outside party (T5)?
Read-only tools match no row.  We have no Layer B state, only metadata, so each tier is read off the
tool's declared action.  The first rule that fires decides, and ``side_effect_rule`` names it:

1. ``declared:read_only``: the description says the tool is read-only ("Read-only.", "Run a read-only
   SQL query").  The author's own statement beats any verb guess.
2. ``arbitrary_execution:<kind>``: the tool runs caller-supplied code, shell commands, SQL, functions or
   any-method HTTP requests.  What it does depends on the input, so we take the worst case: tier
   ``irreversible`` and scope ``admin`` (never granted by a read or write scope).  This is the documented
   answer to "code/shell/SQL/HTTP tools are ambiguous".
3. ``n8n_data_transformation`` / ``n8n_flow_control``: n8n core nodes in the "Data Transformation" or
   "Flow" category (Set, Sort, Filter, Edit Image, If, Wait, ...) only rewrite or route the workflow's
   items in memory.
4. ``n8n_operation:<op>``: the operation n8n declares (``node:resource:operation``), read as verb + object.
5. ``http_method:<M>``: the HTTP methods the tool is known to call, when the crawl filled them: GET/HEAD
   only -> read_only, any DELETE -> irreversible, PUT/PATCH -> reversible, POST -> compensable.  Only used
   when no operation verb decided, because n8n nodes often POST to search endpoints.
6. ``name_verb:<verb>``: the first known verb in the LangChain toolkit mode, the tool name or the class
   name (snake, kebab and camel case are split).
7. ``handoff:human`` ("ask a human") -> external, then ``description_verb:<verb>``: the first known verb
   in the description's opening (for n8n, after the node's own first sentence).  Words that are often
   nouns ("post", "message", "set", ...) only count where they read as a verb; in names a plural or an
   article marks them as nouns (youtube_comments, "Promote an alert").
8. ``no_rule``: nothing matched -> ``unknown``.  Unknown stays unknown: we never guess a tier.

An input the tool's source could not show (its ``unknown_fields``: the n8n listing copy has no categories and no
HTTP methods) is read by no rule, neither as evidence nor as its absence; a tool that no rule decided while one was
unknown gets ``no_rule:inputs_unknown`` (tier ``unknown``, scope ``admin``). Rules 3 and 5 are the only ones that
read such inputs. Without rule 3 a tier is never laxer than it would have been (that rule only says ``read_only``);
without rule 5 the operation, the name or the description decides, as for any tool whose source names no HTTP
method.

A verb maps to a tier (``lexicon.VERBS``) and is then refined by its object: creating a message, tweet,
comment, email or alert is an ``external_side_effect``; creating a charge, payment, payout, transfer or
refund is ``irreversible`` (money moved); closing a session is ``irreversible``; "message a model" or
"create a completion" is model inference and ``read_only``.  Verbs with an ambiguous run semantics
(run, execute, invoke, trigger) decide by their object: code -> arbitrary execution, a report or search
-> read_only, a job/workflow/pipeline/agent -> ``unknown`` (``ambiguous_run:<verb>``).  Adding to or
removing from a set (a team member, a label, a contact to a list) is ``reversible`` (``+membership``),
and a soft delete is ``reversible`` (``+soft``), even when the opposite tool is not in the frame.

Tiers:

* ``read_only``: no state changes, nothing delivered (get, list, search, scrape, compute, LLM inference).
* ``reversible``: T1 (an exact inverse tool exists: archive/unarchive, lock/unlock, add/remove,
  trash/untrash, ban/unban, soft delete/undo) or T2 (update/edit/set/rename/move: writing the previous
  value back undoes it).  Toggles and membership changes are reversible even without a paired tool.
* ``compensable``: T3: creates something (create/add/insert/upsert/upload/copy/write a file); a delete
  compensates but leaves a residue (ids, history, notifications).
* ``irreversible``: T4: delete/remove/purge/cancel/void/stop/clear, money movement, and arbitrary
  execution.  A delete with an exact restore in the same group (Mattermost delete/restore a channel,
  Teams soft delete/undo) is T1 instead.
* ``external_side_effect``: T5: send/post/publish/reply/invite/share/notify/track, human hand-off.  POLAR
  puts T5 in its irreversible band; we keep it apart because it needs a different permission.
* ``unknown``: no rule fired, or the action is an ambiguous run of a named job.

Inverse tools (``inverse_tool_id``) are searched within one group: the same n8n node and resource, the
same LangChain toolkit class, the same LlamaIndex spec, the same MCP server, and otherwise the same
package and service.  Two tools pair when their verbs are inverse (``lexicon.INVERSE_VERBS``, ``un``-prefixed
verbs, ``undo X``) and their objects are equal (plural, prepositions and articles ignored).  An exact
pair makes both tools ``reversible`` (rule ``inverse_pair:<verb>/<inverse>``), except tools whose tier
is external or money: a sent message or a paid charge is not undone by another API call.  A create
whose group has a matching delete keeps ``compensable`` and points ``inverse_tool_id`` at that delete
(the compensator, POLAR's T3 ``compensates``); a delete never points back at its create, because the
create cannot restore the deleted content.

Permission scope: ``<service>.<level>`` where the service is the tool's ``service`` normalized to
``[a-z0-9_]`` (falling back to the package name, then ``unknown``) and the level follows the tier:

* read_only -> ``read``
* reversible, compensable -> ``write``
* irreversible -> ``delete``
* external_side_effect -> ``send``
* unknown and arbitrary execution -> ``admin``: the strictest scope, so a tool we cannot classify is
  never granted by a read, write, delete or send grant.

Modules:

* ``stage``: ``classify_side_effects``, the score stage's entry point (re-exported here).
* ``rules``: rules 1-8 above, one tool at a time.
* ``lexicon``: the verb classes, nouns, inverse verb pairs and phrases those rules read.
* ``inverses``: inverse pairing within a group.
* ``permission``: ``permission_scope`` and its service prefix (:func:`ecoagent.text.words.normalize_service`, falling
  back to the package).
* ``tiers``: the six tier names.

The agreement with the hand-labelled sample is measured by ``benchmarks/side_effect_agreement.py``.
"""

from scoring.side_effect.stage import classify_side_effects

__all__ = ["classify_side_effects"]
