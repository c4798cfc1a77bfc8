"""What a learning policy is told after each execution: the reward definitions of Table 2.

The simulator hands every policy an :class:`Outcome` per tried tool; a reward function turns it
into the number the bandit learns from (``rated.simulation.reward``):

- ``paper``: the paper's text (Section 3.3): ``y = 1`` when the tool executed, ``0`` on an error
  or timeout. Availability only: a wrong but working tool earns the same 1 as a right one.
- ``authors_code``: the reward of the authors' evaluation script (``evaluate_rated_full.py``):
  ``0.1 S_sem r_static + 0.9 e`` with ``e = +1`` when the executed tool was a right one, ``-2``
  when it failed, ``0`` when it ran but was wrong. A failure costs twice what a success earns,
  and relevance is part of the signal.
- ``module:function``: your own, any function ``Outcome -> float`` importable from the project's
  environment (e.g. ``mypkg.rewards:latency_aware``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from ecoagent.config import ConfigError


@dataclass(frozen=True)
class Outcome:
    """One tried tool at one step, as the simulator observed it."""

    executed: bool  # the tool ran (False: it was down, an error or a timeout)
    relevant: bool  # it is a ground-truth tool of the query
    sem: float  # its semantic score for the query (S_sem)
    r_static: float  # its catalog prior

    @property
    def success(self) -> bool:
        """The step's goal: a right tool that ran."""
        return self.executed and self.relevant


Reward = Callable[[Outcome], float]


def paper_reward(outcome: Outcome) -> float:
    """The paper's ``y_t``: 1 when the tool executed, 0 on an error or timeout."""
    return 1.0 if outcome.executed else 0.0


# the authors' script: exec_signal = 1 success / -2 failed / 0 wrong, then 0.1 cos r_static + 0.9 exec_signal
AUTHORS_SUCCESS, AUTHORS_FAILED, AUTHORS_WRONG = 1.0, -2.0, 0.0
AUTHORS_PRIOR_WEIGHT, AUTHORS_EXEC_WEIGHT = 0.1, 0.9


def authors_code_reward(outcome: Outcome) -> float:
    """The authors' code: ``0.1 S_sem r_static + 0.9 e``, ``e`` = +1 right, -2 failed, 0 wrong."""
    if not outcome.executed:
        signal = AUTHORS_FAILED
    elif outcome.relevant:
        signal = AUTHORS_SUCCESS
    else:
        signal = AUTHORS_WRONG
    return AUTHORS_PRIOR_WEIGHT * outcome.sem * outcome.r_static + AUTHORS_EXEC_WEIGHT * signal


REWARDS: dict[str, Reward] = {"paper": paper_reward, "authors_code": authors_code_reward}


def resolve_reward(spec: str, setting: str = "rated.simulation.reward") -> Reward:
    """A reward by name (``paper``, ``authors_code``) or as ``module:function``."""
    if spec in REWARDS:
        return REWARDS[spec]
    if ":" not in spec:
        raise ConfigError(
            f"{setting}={spec!r}: not a reward; use {', '.join(REWARDS)}, auto, or module:function for your own"
        )
    module_name, _, attribute = spec.partition(":")
    try:
        function = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"{setting}={spec!r}: cannot import {attribute!r} from {module_name!r} ({exc})") from exc
    if not callable(function):
        raise ConfigError(f"{setting}={spec!r}: {attribute!r} is not a function Outcome -> float")
    return function
