"""The conductor registry's rules (objects/baremetal/conductor.py, conductor/periodic/registry.py).

On a SQLite file migrated to head.  The registry's clock
(``conductor_obj.now``) is the test's to move: a conductor is dead when its
last heartbeat is older than the timeout, and the test decides when that is
instead of waiting for it.
"""

import datetime

import pytest

from common import context as berth_context
from conductor.periodic import registry
from objects import database
from objects.baremetal import conductor as conductor_obj
from tests import fixtures

T0 = datetime.datetime(2026, 11, 27, 12, 0, 0)
TIMEOUT = 60


class Clock:
    """The registry's clock, moved by the test."""

    def __init__(self):
        self.at = T0

    def __call__(self):
        return self.at

    def advance(self, seconds):
        self.at += datetime.timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch):
    c = Clock()
    monkeypatch.setattr(conductor_obj, 'now', c)
    return c


@pytest.fixture
def conf(tmp_path):
    return fixtures.make_conf(tmp_path / 'state')


@pytest.fixture
def db(conf, tmp_path_factory):
    fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf)
    d = database.open_database(conf)
    yield d
    d.dispose()


@pytest.fixture
def ctx(db):
    return berth_context.admin_context(db)


def _state(ctx, host):
    c = conductor_obj.get(ctx, host)
    return c.online, c.alive(TIMEOUT)


def test_register_lists_an_alive_conductor_with_its_group_and_drivers(ctx, clock):
    made = conductor_obj.register(ctx, 'c1', 'Rack-A')
    assert (made.hostname, made.conductor_group, made.online) == ('c1', 'rack-a', True)
    assert made.drivers == list(conductor_obj.DRIVERS)
    assert made.created_at == made.updated_at == T0
    assert made.alive(TIMEOUT)
    assert [c.hostname for c in conductor_obj.list_conductors(ctx)] == ['c1']


def test_a_conductor_is_dead_once_its_heartbeat_is_older_than_the_timeout(ctx, clock):
    conductor_obj.register(ctx, 'c1')
    clock.advance(TIMEOUT)
    assert _state(ctx, 'c1') == (True, True)          # exactly the timeout: alive
    clock.advance(1)
    assert _state(ctx, 'c1') == (True, False)         # older: dead, still listed
    assert [c.hostname for c in conductor_obj.list_conductors(ctx)] == ['c1']
    assert conductor_obj.heartbeat(ctx, 'c1') is True
    assert _state(ctx, 'c1') == (True, True)          # it came back
    assert conductor_obj.get(ctx, 'c1').updated_at == clock.at


def test_a_clean_stop_keeps_the_row_but_not_alive(ctx, clock):
    conductor_obj.register(ctx, 'c1')
    assert conductor_obj.unregister(ctx, 'c1') is True
    assert _state(ctx, 'c1') == (False, False)
    assert conductor_obj.unregister(ctx, 'nobody') is False
    assert conductor_obj.heartbeat(ctx, 'nobody') is False


def test_registering_again_takes_the_row_over_and_keeps_its_history(ctx, clock):
    conductor_obj.register(ctx, 'c1', 'old')
    conductor_obj.unregister(ctx, 'c1')
    clock.advance(3600)
    again = conductor_obj.register(ctx, 'c1', 'new')
    assert (again.online, again.conductor_group) == (True, 'new')
    assert (again.created_at, again.updated_at) == (T0, clock.at)
    assert len(conductor_obj.list_conductors(ctx)) == 1


def test_forget_refuses_a_live_conductor_and_removes_a_dead_or_stopped_one(ctx, clock):
    for host in ('live', 'dead', 'stopped'):
        conductor_obj.register(ctx, host)
    conductor_obj.unregister(ctx, 'stopped')
    clock.advance(TIMEOUT + 1)
    conductor_obj.heartbeat(ctx, 'live')
    with pytest.raises(conductor_obj.ConductorAlive, match='Conductor live is alive'):
        conductor_obj.forget(ctx, 'live', TIMEOUT)
    assert conductor_obj.forget(ctx, 'dead', TIMEOUT).hostname == 'dead'
    assert conductor_obj.forget(ctx, 'stopped', TIMEOUT).hostname == 'stopped'
    assert [c.hostname for c in conductor_obj.list_conductors(ctx)] == ['live']
    with pytest.raises(conductor_obj.ConductorNotFound,
                       match='Conductor dead could not be found.'):
        conductor_obj.forget(ctx, 'dead', TIMEOUT)


def test_list_pages_by_hostname_marker_in_either_direction(ctx, clock):
    for host in ('b', 'c', 'a', 'd'):
        conductor_obj.register(ctx, host)
        clock.advance(1)

    def page(**kw):
        return [c.hostname for c in conductor_obj.list_conductors(ctx, **kw)]

    assert page() == ['b', 'c', 'a', 'd']                      # by id
    assert page(sort_key='hostname', limit=2) == ['a', 'b']
    assert page(sort_key='hostname', limit=2, marker='b') == ['c', 'd']
    assert page(sort_key='hostname', sort_dir='desc', marker='c') == ['b', 'a']
    assert page(sort_key='updated_at', sort_dir='desc', limit=1) == ['d']
    with pytest.raises(conductor_obj.ConductorNotFound):
        page(marker='nobody')


def test_allocation_affinities_reads_each_allocation_once(ctx):
    from objects.baremetal import allocation as node_alloc_obj
    a1 = node_alloc_obj.create_row(ctx, {'conductor_affinity': 'c1', 'resource_class': 'x'})
    a2 = node_alloc_obj.create_row(ctx, {'conductor_affinity': None, 'resource_class': 'x'})
    assert conductor_obj.allocation_affinities(ctx, [a1.uuid, a2.uuid, a1.uuid]) == {
        a1.uuid: 'c1', a2.uuid: None}
    assert conductor_obj.allocation_affinities(ctx, []) == {}


# --- a conductor's Registration (conductor/periodic/registry.py) ---

def test_registration_heartbeats_until_it_signs_off(conf, db, ctx, clock):
    reg = registry.Registration(conf, 'c1', db)
    assert reg.register() is True
    clock.advance(30)
    reg.heartbeat()
    assert conductor_obj.get(ctx, 'c1').updated_at == clock.at
    reg.sign_off()
    clock.advance(30)
    reg.heartbeat()                      # a beat after the sign-off changes nothing
    assert reg.register() is False
    stopped = conductor_obj.get(ctx, 'c1')
    assert (stopped.online, stopped.updated_at) == (False, T0 + datetime.timedelta(
        seconds=30))


def test_a_forgotten_conductor_registers_again_on_its_next_heartbeat(conf, db, ctx, clock):
    reg = registry.Registration(conf, 'c1', db)
    reg.register()
    clock.advance(TIMEOUT + 1)         # it hung (SIGSTOP) and an operator forgot it
    conductor_obj.forget(ctx, 'c1', TIMEOUT)
    reg.heartbeat()                    # it woke up
    back = conductor_obj.get(ctx, 'c1')
    assert (back.online, back.created_at) == (True, clock.at)


def test_a_timeout_under_two_heartbeats_is_warned_about(conf, db, caplog):
    registry.Registration(conf, 'c1', db)
    assert 'will look dead' not in caplog.text       # the defaults: 10 s and 60 s
    conf.set_override('heartbeat_timeout', 15, group='conductor')
    registry.Registration(conf, 'c1', db)
    assert 'heartbeat_timeout (15s) is under two heartbeat_interval (10s)' in caplog.text


def test_registration_heartbeat_interval_and_group_come_from_conf(conf, db):
    conf.set_override('heartbeat_interval', 7, group='conductor')
    conf.set_override('conductor_group', 'Rack-B', group='conductor')
    reg = registry.Registration(conf, 'c1', db)
    [(task, spacing)] = reg.tasks()
    assert spacing == 7
    task()                               # no row yet: the beat registers it
    ctx = berth_context.admin_context(db)
    assert conductor_obj.get(ctx, 'c1').conductor_group == 'rack-b'


def test_a_database_without_the_table_never_stops_the_conductor(conf, tmp_path, caplog):
    conf.set_override('connection', 'sqlite:///%s' % (tmp_path / 'empty.sqlite'),
                      group='database')
    empty = database.open_database(conf)
    try:
        reg = registry.Registration(conf, 'c1', empty)
        assert reg.register() is False
        reg.heartbeat()
        reg.sign_off()
    finally:
        empty.dispose()
    text = caplog.text
    assert 'could not register' in text
    assert 'could not heartbeat' in text
    assert 'could not mark itself offline' in text
