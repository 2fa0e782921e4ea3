"""Every retry of berth's own, one named policy each: which failures, how many
attempts, how long between them.

All of them are tenacity (``tenacity.Retrying``); the loop that uses a policy
keeps only its attempt's body and what it logs or counts between attempts
(``before_sleep``).  A policy that waits nothing is given a sleep that
does nothing, so no clock is touched between its attempts.  The first
database connection's policy is db.connect.policy (db imports nothing of
common but its exceptions).

* lost_race: :data:`LOST_RACES`; ``retries`` + 1 attempts, 0 to 2 ms times
  the retry's number apart.
* coordination_start: any error of the backend's client; 0.5 s apart, doubled
  each time up to 5 s, until the next wait would pass ``retry_for`` s.
* member_rejoin: tooz ``MemberAlreadyExist``; 3 attempts, the old key left
  between them, no wait.
* rpc_replay: ``MessagingTimeout``; while ``min_attempt`` s of the budget are
  left, no wait (the attempt waited out its own timeout).
* node_lock: :class:`Again` (nodes locked); ``lock_attempts`` attempts,
  ``lock_interval`` s apart.
* candidate_claims: :class:`Again` (a claim lost a race); ``max_attempts``
  attempts, no wait (the next candidate).
"""

from __future__ import annotations

from collections.abc import Callable
import random
from typing import Any

from oslo_db import exception as db_exc
import oslo_messaging as messaging
import tenacity
from tooz import coordination

from common import exception

# A write that lost a race (a generation compare-and-swap, a deadlock the
# database broke) rolled back: worth another attempt.  A stale consumer
# generation (exception.ConsumerGenerationConflict) is the client's own
# conflict: never retried, although it is a ConcurrentUpdate.
LOST_RACES: tuple[type[Exception], ...] = (exception.ConcurrentUpdate, db_exc.DBDeadlock)

MEMBER_REJOIN_ATTEMPTS = 3
COORDINATION_FIRST_WAIT = 0.5
COORDINATION_MAX_WAIT = 5.0
LOST_RACE_JITTER = 0.002

BeforeSleep = Callable[[tenacity.RetryCallState], None] | None
Sleep = Callable[[float], None]


class Again(Exception):
    """This attempt did not get there (nodes locked, a candidate lost): try again."""

    def __init__(self, left: Any = None) -> None:
        super().__init__()
        self.left = left


def _no_sleep(seconds: float) -> None:
    """The sleep of a policy that waits nothing between its attempts."""


def _lost_race_jitter(state: tenacity.RetryCallState) -> float:
    # a little jitter so two conductors racing do not lock-step
    return random.uniform(0, LOST_RACE_JITTER * state.attempt_number)


def _lost_race(exc: BaseException) -> bool:
    return (isinstance(exc, LOST_RACES)
            and not isinstance(exc, exception.ConsumerGenerationConflict))


def lost_race(retries: int, before_sleep: BeforeSleep = None) -> tenacity.Retrying:
    """A write run again ``retries`` times while it loses races (:data:`LOST_RACES`,
    never a stale consumer generation), a jitter of up to 2 ms per retry apart."""
    return tenacity.Retrying(
        retry=tenacity.retry_if_exception(_lost_race),
        stop=tenacity.stop_after_attempt(max(0, retries) + 1),
        wait=_lost_race_jitter, before_sleep=before_sleep, reraise=True)


def coordination_start(retry_for: float, before_sleep: BeforeSleep = None,
                       sleep: Sleep | None = None) -> tenacity.Retrying:
    """A coordination backend not reachable yet (restarting): any error of its
    client, tried again 0.5 s later, then twice as long each time up to 5 s,
    until the next wait would end past ``retry_for`` seconds from the first."""
    return tenacity.Retrying(
        retry=tenacity.retry_if_exception_type(Exception),
        stop=tenacity.stop_before_delay(retry_for),
        wait=tenacity.wait_exponential(multiplier=COORDINATION_FIRST_WAIT,
                                       max=COORDINATION_MAX_WAIT),
        before_sleep=before_sleep, sleep=sleep or tenacity.nap.sleep, reraise=True)


def member_rejoin(before_sleep: BeforeSleep = None) -> tenacity.Retrying:
    """A join refused because this host's previous process still holds its member
    key: ``before_sleep`` removes that key, then the join is tried again; three
    joins at most, none waited for."""
    return tenacity.Retrying(
        retry=tenacity.retry_if_exception_type(coordination.MemberAlreadyExist),
        stop=tenacity.stop_after_attempt(MEMBER_REJOIN_ATTEMPTS),
        before_sleep=before_sleep, sleep=_no_sleep, reraise=True)


def rpc_replay(left: Callable[[], float], min_attempt: float,
               before_sleep: BeforeSleep = None) -> tenacity.Retrying:
    """A call whose attempt timed out, sent again (same call id) while at least
    ``min_attempt`` seconds of its budget are ``left()``; the attempt itself
    waits out its timeout, so nothing is waited between attempts."""
    return tenacity.Retrying(
        retry=tenacity.retry_if_exception_type(messaging.MessagingTimeout),
        stop=lambda state: left() < min_attempt,
        before_sleep=before_sleep, sleep=_no_sleep, reraise=True)


def node_lock(lock_attempts: int, lock_interval: float,
              sleep: Sleep | None = None) -> tenacity.Retrying:
    """``[allocation] node_locked_retry_attempts`` passes over the nodes still
    locked (an attempt raises :class:`Again`), ``node_locked_retry_interval``
    seconds apart; the last :class:`Again` raised."""
    return tenacity.Retrying(
        retry=tenacity.retry_if_exception_type(Again),
        stop=tenacity.stop_after_attempt(max(1, lock_attempts)),
        wait=tenacity.wait_fixed(lock_interval),
        sleep=sleep or tenacity.nap.sleep, reraise=True)


def candidate_claims(max_attempts: int) -> tenacity.Retrying:
    """``[scheduler] max_attempts`` claims of the next best candidate while each
    loses a race (an attempt raises :class:`Again`), none waited for; the last
    :class:`Again` raised."""
    return tenacity.Retrying(
        retry=tenacity.retry_if_exception_type(Again),
        stop=tenacity.stop_after_attempt(max(1, max_attempts)),
        sleep=_no_sleep, reraise=True)
