"""conductor.ring over the tooz file backend: membership, ownership, liveness."""

import logging
import os
import shutil
import time
from unittest import mock

import pytest
from tooz import coordination, hashring

from common import exception
from conductor import ring as conductor_ring


@pytest.fixture
def rings(conf):
    """Start rings on one file backend; every ring is stopped after the test."""
    conf.set_override('watch_interval', 3600, group='coordination')   # tests poll by hand
    started = []

    def start(host=None, join=True):
        ring = conductor_ring.Ring(conf, host=host).start()
        if host is not None and join:
            ring.join({'host': host})
        started.append(ring)
        return ring

    yield start
    for ring in started:
        ring.stop()


def test_reader_sees_joins_and_leaves_through_the_watchers(rings):
    reader = rings()
    assert reader.members() == frozenset()
    a, b = rings('cond-a'), rings('cond-b')
    reader.poll()
    assert reader.members() == {'cond-a', 'cond-b'}
    b.leave()
    reader.poll()
    assert reader.members() == {'cond-a'}
    assert reader.is_alive('cond-a') and not reader.is_alive('cond-b')
    assert a.members() >= {'cond-a'}


def test_reader_never_joins(rings):
    reader = rings()
    with pytest.raises(RuntimeError):
        reader.join()
    other = rings()
    other.refresh()
    assert other.members() == frozenset()


def test_an_empty_host_is_a_reader_and_never_joins(rings):
    # its member id is reader-...: it has no fence, and joined it would be
    # a member that nothing routes to
    nameless = rings('', join=False)
    with pytest.raises(RuntimeError, match='never joins'):
        nameless.join()
    other = rings()
    other.refresh()
    assert other.members() == frozenset()


def test_owner_is_the_same_in_every_process_view(rings):
    a, b = rings('cond-a'), rings('cond-b')
    reader = rings()
    for ring in (a, b, reader):
        ring.refresh()
    keys = ['uuid-%d' % i for i in range(200)]
    owners = [{k: ring.owner(k) for k in keys} for ring in (a, b, reader)]
    assert owners[0] == owners[1] == owners[2]
    assert set(owners[0].values()) == {'cond-a', 'cond-b'}


def test_owner_matches_a_tooz_ring_with_enough_partitions(rings, conf):
    assert conf.coordination.hash_partitions >= 256
    a = rings('cond-a')
    rings('cond-b')
    a.refresh()
    expected = hashring.HashRing(['cond-a', 'cond-b'], partitions=256)
    for key in ('k1', 'k2', 'k3', 'k4'):
        assert {a.owner(key)} == expected.get_nodes(key.encode())


def test_adding_a_member_moves_keys_only_to_it(rings):
    rings('cond-a'), rings('cond-b')
    reader = rings()
    keys = ['uuid-%d' % i for i in range(300)]
    before = {k: reader.owner(k) for k in keys}
    rings('cond-c')
    reader.poll()
    after = {k: reader.owner(k) for k in keys}
    moved = {k for k in keys if before[k] != after[k]}
    assert moved and {after[k] for k in moved} == {'cond-c'}


def test_no_member_is_service_unavailable(rings):
    reader = rings()
    with pytest.raises(exception.ServiceUnavailable):
        reader.owner('anything')


def test_owner_looks_again_on_an_empty_ring(rings):
    reader = rings()
    rings('cond-a')
    # the reader has not polled since cond-a joined: a miss reads the group again
    assert reader.owner('anything') == 'cond-a'


def test_a_conductor_never_treats_itself_as_dead(rings):
    a = rings('cond-a')
    # a backend that momentarily does not list us (late heartbeat) ...
    with a._lock:
        a._set_members(set())
    assert a.is_alive('cond-a')
    assert a.owner('x') == 'cond-a'
    # ... but after leaving, it is gone from its own view too
    a.leave()
    assert not a.is_alive('cond-a')


def test_expired_member_leaves_the_ring(rings, conf, tmp_path):
    conf.set_override('backend_url', 'file://%s?timeout=1' % (tmp_path / 'coord'),
                      group='coordination')
    a = rings('cond-a')
    reader = rings()
    assert reader.members() == {'cond-a'}
    # stop the heart without leaving, like a killed process: the member expires
    a._coord.heart.stop()
    a._coord.heart.wait()
    for _ in range(100):
        reader.poll()
        if 'cond-a' not in reader.members():
            break
        time.sleep(0.1)
    assert 'cond-a' not in reader.members()


def test_a_conductor_the_backend_forgot_joins_again(rings):
    """Membership lost behind its back (expired heartbeat, backend restart): rejoin."""
    a = rings('cond-a')
    reader = rings()
    assert reader.members() == {'cond-a'}
    with a._lock:   # the backend drops the member while the conductor still serves
        a._coord.leave_group(conductor_ring.GROUP).get()
    reader.refresh()
    assert reader.members() == frozenset()
    a.refresh()     # its own next refresh notices and joins again
    reader.refresh()
    assert reader.members() == {'cond-a'}
    assert reader.owner('x') == 'cond-a'


def test_join_survives_the_old_incarnation_expiring_between_look_and_delete(rings):
    """Found by the chaos run: after kill -9 the restarted conductor saw its old key
    (MemberAlreadyExist), and by the time it deleted it the old lease had expired
    (MemberNotJoined); the start failed and the process exited."""
    from tooz import coordination
    ring = rings('cond-a', join=False)
    real_join = ring._coord.join_group
    calls = []

    class Done:
        def __init__(self, exc=None):
            self.exc = exc

        def get(self):
            if self.exc:
                raise self.exc

    def join_group(group, capabilities=None):
        calls.append('join')
        if len(calls) == 1:
            return Done(coordination.MemberAlreadyExist(group, b'cond-a'))
        return real_join(group, capabilities=capabilities)

    def leave_group(group):
        calls.append('leave')
        return Done(coordination.MemberNotJoined(group, b'cond-a'))

    ring._coord.join_group = join_group
    ring._coord.leave_group = leave_group
    ring.join({'host': 'cond-a'})
    assert calls == ['join', 'leave', 'join']
    assert 'cond-a' in ring.members()


def test_a_restarted_conductor_replaces_its_old_member_key(rings):
    """kill -9 then a restart: the old process's key is still in the group; the
    join removes it and joins (common.retries.member_rejoin)."""
    rings('cond-a')                  # never leaves: a killed process
    new = rings('cond-a', join=False)
    new.join({'host': 'cond-a'})
    reader = rings()
    assert reader.members() == {'cond-a'}
    assert new._joined


def _ring_lines(caplog):
    return [r.getMessage() for r in caplog.records
            if r.getMessage().startswith('Conductor ring (')]


def test_a_lost_watch_keeps_the_view_and_logs_no_change(rings, caplog):
    """The backend unreachable (an etcd member killed under the gateway): every
    poll and refresh fails; the reader keeps routing over the view it had, and
    when reads work again nothing is reported as having joined or left."""
    rings('cond-a'), rings('cond-b')
    reader = rings()
    reader.poll()
    assert reader.members() == {'cond-a', 'cond-b'}
    owner = reader.owner('key')
    caplog.set_level(logging.INFO, logger='berth.conductor.ring')
    caplog.clear()
    lost = coordination.ToozConnectionError('Service Unavailable')
    with mock.patch.object(reader._coord, 'get_members', side_effect=lost):
        for _ in range(3):
            reader.poll()
            reader.refresh()
            assert reader.members() == {'cond-a', 'cond-b'}
            assert reader.owner('key') == owner
    assert any('Watching the conductor group failed' in m for m in caplog.messages)
    reader.poll()
    reader.refresh()
    assert reader.members() == {'cond-a', 'cond-b'}
    assert _ring_lines(caplog) == []


def test_a_group_the_backend_lost_keeps_a_readers_view(rings, conf, caplog):
    """Redis restarted empty: the group itself is gone until a conductor's next
    refresh recreates it.  tooz's watchers report that as every member leaving;
    the reader keeps its view (as its full read does) instead of going empty
    (503 "no conductor is alive") and then seeing everyone join again."""
    a, b = rings('cond-a'), rings('cond-b')
    reader = rings()
    reader.poll()
    assert reader.members() == {'cond-a', 'cond-b'}
    owner = reader.owner('key')
    caplog.set_level(logging.INFO, logger='berth.conductor.ring')
    caplog.clear()
    shutil.rmtree(os.path.join(conf.state_path, 'coordination', 'groups'))
    reader.poll()
    assert reader.members() == {'cond-a', 'cond-b'}
    assert reader.owner('key') == owner
    a.refresh(), b.refresh()         # the conductors recreate the group and join again
    reader.poll()
    reader.refresh()
    assert reader.members() == {'cond-a', 'cond-b'}
    assert _ring_lines(caplog) == []


def test_one_poll_is_one_ring_change(rings, caplog):
    """Joins and leaves seen by one poll are applied (and logged) as one change."""
    a = rings('cond-a')
    reader = rings()
    assert reader.members() == {'cond-a'}
    caplog.set_level(logging.INFO, logger='berth.conductor.ring')
    caplog.clear()
    rings('cond-b'), rings('cond-c')
    a.leave()
    reader.poll()
    assert reader.members() == {'cond-b', 'cond-c'}
    assert [m for m in _ring_lines(caplog) if m.startswith('Conductor ring (reader)')] == [
        "Conductor ring (reader): 2 members; joined ['cond-b', 'cond-c'], left ['cond-a']"]


def test_everyone_leaving_empties_the_view(rings):
    """A group that is there but empty is believed: the reader's view goes empty."""
    a = rings('cond-a')
    reader = rings()
    assert reader.members() == {'cond-a'}
    a.leave()
    reader.poll()
    assert reader.members() == frozenset()
