"""Each retry policy of berth (common/retries.py, db/connect.py): its attempts,
the failures it retries and those it raises at once, and its waits.

A change to any policy's numbers or exception set fails here, whatever the
loop that uses it.
"""

from oslo_db import exception as db_exc
import oslo_messaging as messaging
import pytest
from sqlalchemy import exc as sa_exc
from tooz import coordination

from common import exception, retries
from db import connect


class Flaky:
    """A callable raising ``errors`` in turn, then answering 'done'."""

    def __init__(self, *errors):
        self.errors = list(errors)
        self.attempts = 0

    def __call__(self):
        self.attempts += 1
        if self.errors:
            raise self.errors.pop(0)
        return 'done'


def run(policy, fn, slept=None):
    """``fn`` under ``policy``, its sleeps recorded in ``slept``."""
    policy.sleep = (slept.append if slept is not None else policy.sleep)
    return policy(fn)


def refused():
    return sa_exc.OperationalError('connect', {}, Exception(
        'connection to server at "127.0.0.1", port 5999 failed: Connection refused'))


# --- db.connect.policy: [database] max_retries / retry_interval ---

def test_first_connect_retries_max_retries_times_retry_interval_apart():
    fn, slept = Flaky(*[refused()] * 3), []
    with pytest.raises(sa_exc.OperationalError):
        run(connect.policy(2, 1.5), fn, slept)
    assert (fn.attempts, slept) == (3, [1.5, 1.5])


def test_first_connect_minus_one_is_forever_and_what_waiting_cannot_fix_is_raised():
    fn, slept = Flaky(*[refused()] * 50), []
    assert run(connect.policy(-1, 0), fn, slept) == 'done'
    assert fn.attempts == 51
    fn = Flaky(ValueError('bad URL'))
    with pytest.raises(ValueError):
        run(connect.policy(-1, 0), fn, [])
    assert fn.attempts == 1


# --- lost_race: the claims' writes ---

@pytest.mark.parametrize('error', [
    lambda: exception.ConcurrentUpdate(what='resource provider', reason='x'),
    lambda: db_exc.DBDeadlock()])
def test_a_lost_race_is_retried_retries_times_with_a_jitter_of_2_ms_per_retry(error):
    fn, slept = Flaky(*[error() for _ in range(4)]), []
    with pytest.raises(retries.LOST_RACES):
        run(retries.lost_race(3), fn, slept)
    assert fn.attempts == 4
    assert len(slept) == 3
    assert all(0 <= s <= 0.002 * n for n, s in enumerate(slept, 1)), slept


@pytest.mark.parametrize('error', [
    exception.ConsumerGenerationConflict(reason='stale'),
    exception.InvalidAllocation(reason='over capacity'),
    db_exc.DBConnectionError()])
def test_what_is_no_lost_race_is_raised_at_once(error):
    fn = Flaky(error)
    with pytest.raises(type(error)):
        run(retries.lost_race(3), fn, [])
    assert fn.attempts == 1


def test_no_retries_is_one_attempt():
    fn = Flaky(db_exc.DBDeadlock())
    with pytest.raises(db_exc.DBDeadlock):
        run(retries.lost_race(0), fn, [])
    assert fn.attempts == 1


# --- coordination_start: a backend restarting as the process starts ---

def test_the_coordination_backend_is_tried_again_with_doubling_waits_up_to_5_s():
    fn, slept = Flaky(*[ConnectionError('refused')] * 6), []
    assert run(retries.coordination_start(60), fn, slept) == 'done'
    assert (fn.attempts, slept) == (7, [0.5, 1, 2, 4, 5, 5])


def test_the_coordination_backend_is_given_up_before_a_wait_passes_retry_for():
    fn, slept = Flaky(*[ConnectionError('refused')] * 6), []
    with pytest.raises(ConnectionError):
        run(retries.coordination_start(1.6), fn, slept)
    assert (fn.attempts, slept) == (3, [0.5, 1])    # a wait of 2 s would pass 1.6 s


# --- member_rejoin: this host's previous process still in the group ---

def test_a_join_meeting_its_old_member_key_is_tried_three_times():
    fn, left = Flaky(*[coordination.MemberAlreadyExist(b'g', b'm')] * 3), []
    with pytest.raises(coordination.MemberAlreadyExist):
        run(retries.member_rejoin(before_sleep=left.append), fn, [])
    assert (fn.attempts, len(left)) == (3, 2)


def test_another_join_error_is_raised_at_once():
    fn = Flaky(coordination.ToozError('down'))
    with pytest.raises(coordination.ToozError):
        run(retries.member_rejoin(), fn, [])
    assert fn.attempts == 1


# --- rpc_replay: a write call's lost reply ---

def test_a_timed_out_call_is_sent_again_while_an_attempt_fits_the_budget():
    budget = [1.0]

    def attempt():
        budget[0] -= 0.3
        raise messaging.MessagingTimeout('late')

    calls = Flaky()
    with pytest.raises(messaging.MessagingTimeout):
        run(retries.rpc_replay(lambda: budget[0], 0.2), lambda: (calls(), attempt()))
    # 1.0 -> 0.7 -> 0.4 -> 0.1 (< 0.2: no fourth attempt)
    assert calls.attempts == 3


def test_a_remote_error_is_not_replayed():
    fn = Flaky(messaging.RemoteError('Invalid', 'bad'))
    with pytest.raises(messaging.RemoteError):
        run(retries.rpc_replay(lambda: 60.0, 0.2), fn)
    assert fn.attempts == 1


# --- node_lock: [allocation] node_locked_retry_attempts / _interval ---

def test_locked_nodes_get_lock_attempts_passes_lock_interval_apart():
    fn, slept = Flaky(*[retries.Again(['node'])] * 5), []
    with pytest.raises(retries.Again):
        run(retries.node_lock(3, 0.1), fn, slept)
    assert (fn.attempts, slept) == (3, [0.1, 0.1])


def test_node_lock_makes_one_pass_at_least_and_raises_other_errors_at_once():
    fn = Flaky(*[retries.Again()] * 2)
    with pytest.raises(retries.Again):
        run(retries.node_lock(0, 0.1), fn, [])
    assert fn.attempts == 1
    fn = Flaky(db_exc.DBDeadlock())
    with pytest.raises(db_exc.DBDeadlock):
        run(retries.node_lock(3, 0.1), fn, [])
    assert fn.attempts == 1


# --- candidate_claims: [scheduler] max_attempts ---

def test_a_lost_candidate_is_followed_by_the_next_up_to_max_attempts_without_waiting():
    fn = Flaky(*[retries.Again()] * 5)
    policy = retries.candidate_claims(4)
    with pytest.raises(retries.Again):
        policy(fn)
    assert fn.attempts == 4
    assert policy.statistics['idle_for'] == 0
    fn = Flaky(exception.ConsumerGenerationConflict(reason='held'))
    with pytest.raises(exception.ConsumerGenerationConflict):
        retries.candidate_claims(4)(fn)
    assert fn.attempts == 1
