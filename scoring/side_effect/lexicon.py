"""The words the rules read: verb classes, nouns that refine a verb, inverse verb pairs and trigger phrases.

Extending the classifier to a new verb or object is usually an edit here, not in the rules.
"""

from __future__ import annotations

import re
from collections import defaultdict

from scoring.side_effect.tiers import COMPENSABLE, EXTERNAL, IRREVERSIBLE, READ_ONLY, REVERSIBLE

# Verb classes.  RUN verbs are decided by their object (see rules._refine).
READ, UPDATE, TOGGLE, CREATE, DESTROY, SEND, MONEY, RUN = (
    "read", "update", "toggle", "create", "destroy", "send", "money", "run"
)  # fmt: skip

CLASS_TIER = {
    READ: READ_ONLY,
    UPDATE: REVERSIBLE,
    TOGGLE: REVERSIBLE,
    CREATE: COMPENSABLE,
    DESTROY: IRREVERSIBLE,
    SEND: EXTERNAL,
    MONEY: IRREVERSIBLE,
}


def _words(text: str) -> list[str]:
    return text.split()


VERBS: dict[str, str] = {}
for _cls, _ws in {
    READ: """get list search fetch read query lookup find retrieve calculate compute count describe check
        download analyze analyse classify detect extract scrape crawl browse load view show summarize summarise
        translate transcribe generate convert parse validate verify compare enrich predict echo inspect monitor
        select filter sort limit aggregate estimate forecast geocode navigate scroll hover screenshot wait await
        discover explore return preview export format encode decode compress decompress resize crop rotate blur
        render recognize identify rank rerank embed tokenize research ping exist exists autocomplete suggest
        recommend measure lookup reader scraper crawler retriever loader finder searcher calculator viewer
        analyzer extractor parser summarizer translator classifier detector converter fetcher reverse
        geolocate locate answer ask scan synthesize sleep sign expand collect substitute soql sosl""",
    UPDATE: """update edit set modify change rename move patch replace put assign reassign unassign reschedule mark
        configure adjust reorder upvote downvote vote rate switch""",
    TOGGLE: """toggle archive unarchive lock unlock enable disable activate deactivate deactive pause resume mute
        unmute pin unpin star unstar like unlike follow unfollow block unblock ban unban subscribe unsubscribe
        resubscribe hide unhide trash untrash restore recover undelete undo reopen close open unpublish join leave
        approve disapprove unlink link unshare snooze suspend unsuspend timeout kick complete""",
    CREATE: """create add insert upsert upload copy clone duplicate append save write register book schedule new
        import deploy redeploy install attach store merge push commit fork restart replicate enqueue queue log
        draft reserve bookmark react increment incr start writer memorize remember provision pull promote""",
    DESTROY: """delete remove purge drop destroy erase wipe clear terminate cancel void kill stop abort reset revoke
        expire truncate flush redeem burn uninstall unregister shutdown exit quit decline reject pop""",
    SEND: """send email mail post publish notify message call sms tweet retweet reply invite reinvite share submit
        alert forward broadcast announce dm respond track escalate handoff comment report""",
    MONEY: """pay charge refund payout transfer purchase buy checkout withdraw deposit donate tip trade sell swap""",
    RUN: """run execute exec invoke trigger launch dispatch perform eval evaluate""",
}.items():
    for _w in _words(_ws):
        VERBS[_w] = _cls

# In descriptions these are mostly nouns ("a set of", "new posts", "a search query"); they count there
# only at a sentence start or right after a word that introduces a verb.
NOUNLIKE = set(
    _words(
        """post posts message messages email emails set share call comment reply alert text record book schedule
        store log draft order note tip trade star like link open close new update updates tag label pin
        block timeout change move mark track return check count filter sort limit view show list search
        query load answer ask merge push stop start lock trash clear reset copy store report switch sign"""
    )
)
DETERMINERS = set(_words("a an the this that new each every any my your our their its"))
VERB_LEADS = set(_words("to can will and or also then that which who should must please you we i"))

MESSAGE_NOUNS = set(
    _words(
        """message tweet email mail sms comment reply post dm directmessage alert notification invitation
        invite broadcast announcement"""
    )
)
MONEY_NOUNS = set(_words("charge payment payout transfer refund purchase withdrawal donation"))
AI_NOUNS = set(_words("model completion embedding llm prompt assistant"))
MEMBER_NOUNS = set(
    _words("member label tag role subscriber collaborator participant attendee assignee watcher follower")
)
SET_NOUNS = set(_words("list group team channel campaign segment audience sequence playlist queue board project"))
SESSION_NOUNS = set(_words("session connection window browser"))
CODE_NOUNS = {
    "code": "code", "script": "code", "python": "code", "javascript": "code", "js": "code", "typescript": "code",
    "shell": "shell", "bash": "shell", "command": "shell", "terminal": "shell", "powershell": "shell",
    "sql": "sql", "query": "sql", "cypher": "sql", "statement": "sql",
    "function": "function", "lambda": "function",
}  # fmt: skip
STOPWORDS = set(_words("a an the to from in into on of for as by with at this that it its your my all one each"))

# Verb pairs that exactly undo each other on the same object (POLAR T1).
INVERSE_VERBS: dict[str, set[str]] = defaultdict(set)
for _a, _b in [
    ("archive", "unarchive"), ("lock", "unlock"), ("trash", "untrash"), ("ban", "unban"), ("mute", "unmute"),
    ("pin", "unpin"), ("star", "unstar"), ("like", "unlike"), ("follow", "unfollow"), ("block", "unblock"),
    ("subscribe", "unsubscribe"), ("resubscribe", "unsubscribe"), ("enable", "disable"),
    ("activate", "deactivate"), ("publish", "unpublish"), ("add", "remove"), ("assign", "unassign"),
    ("hide", "unhide"), ("pause", "resume"), ("close", "reopen"), ("open", "close"), ("join", "leave"),
    ("approve", "disapprove"), ("link", "unlink"), ("attach", "detach"), ("suspend", "unsuspend"),
    ("delete", "restore"), ("delete", "undelete"), ("delete", "recover"), ("remove", "restore"),
    ("archive", "restore"), ("trash", "restore"), ("grant", "revoke"), ("share", "unshare"),
]:  # fmt: skip
    INVERSE_VERBS[_a].add(_b)
    INVERSE_VERBS[_b].add(_a)
# Verbs whose effect a delete/remove compensates but does not exactly undo (POLAR T3).
COMPENSATED_BY = {"create": ("delete", "remove"), "add": ("delete", "remove"), "insert": ("delete", "remove"),
                  "upload": ("delete", "remove"), "upsert": ("delete", "remove")}  # fmt: skip

DECLARED_READ_ONLY = re.compile(
    r"(^|[.!:;]\s+)read-only\b|\b(is|are)\s+read-only\b|\b(run|runs|execute|executes)\s+an?\s+read-only\b",
    re.IGNORECASE,
)
HTTP_ANY = re.compile(r"^\s*(makes?|sends?|performs?|executes?)\s+(an?\s+)?(arbitrary\s+|custom\s+)?http\s+request",
                      re.IGNORECASE)  # fmt: skip
HUMAN_HANDOFF = re.compile(r"\b(ask|asks|hand\s*off|transfer|escalate)\b[^.]{0,20}\b(a|the)?\s*human", re.IGNORECASE)
