"""Only the published methods of the conductor's endpoint dispatch (common.rpc_door).

Every attribute of a ConductorManager (its collaborators ``conf``, ``db``,
``ring``, ``workers``, ... and everything Python gives an object) is tried
as a method name: only the names of doc/source/rpc.md's table reach the endpoint,
every other one is refused with NoSuchMethod, no traceback, one log line.
"""

import logging
import pathlib
import re
import types

from oslo_messaging.rpc import dispatcher as rpc_dispatcher
import pytest

from common import rpc, rpc_door
from conductor import manager as manager_mod
from conductor.rpcapi import version as rpc_version

ROOT = pathlib.Path(__file__).resolve().parents[3]


def _manager(conf):
    """A ConductorManager with its collaborators, as a conductor builds it."""
    return manager_mod.ConductorManager(
        conf, 'c1', db=object(), ring=types.SimpleNamespace(members=lambda: {'c1'}),
        workers=types.SimpleNamespace(size=2))


def _incoming(method):
    return types.SimpleNamespace(ctxt={}, message={'method': method, 'args': {},
                                                   'version': '1.0'},
                                 client_timeout=None)


def _attributes(endpoint):
    names = set(dir(endpoint)) | set(vars(endpoint))
    assert {'conf', 'db', 'ring', 'workers', 'calls', 'authz', 'claims'} <= names
    return sorted(names)


def test_every_attribute_but_the_published_methods_is_refused(conf, caplog):
    endpoint = _manager(conf)
    reached = []
    for name in rpc_version.METHODS:
        # shadow the method: reaching it is all this test asks
        setattr(endpoint, name, lambda ctx, _name=name, **kw: reached.append(_name))
    door = rpc_door.Dispatcher([endpoint], rpc.RequestContextSerializer())
    refused = []
    for name in _attributes(endpoint):
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger='berth'):
            try:
                door.dispatch(_incoming(name))
            except rpc_dispatcher.ExpectedException as exc:
                exc_type, value, tb = exc.exc_info
                assert exc_type is rpc_dispatcher.NoSuchMethod and tb is None
                assert value.__traceback__ is None
                refused.append(name)
                assert len(caplog.records) == 1
                assert 'not a published method' in caplog.records[0].getMessage()
    assert sorted(reached) == sorted(rpc_version.METHODS)
    assert set(refused) == set(_attributes(endpoint)) - rpc_version.METHODS
    # the configuration is the conductor's as before: nothing cleared it
    assert endpoint.conf.conductor.workers == conf.conductor.workers


@pytest.mark.parametrize('method', [None, 5, ['ping'], '', 'oslo_rpc_server_ping',
                                    '_refused', 'x' * 10000])
def test_odd_method_names_are_no_such_method(conf, method):
    door = rpc_door.Dispatcher([_manager(conf)], rpc.RequestContextSerializer())
    with pytest.raises(rpc_dispatcher.ExpectedException) as err:
        door.dispatch(_incoming(method))
    assert err.value.exc_info[0] is rpc_dispatcher.NoSuchMethod
    assert len(str(err.value.exc_info[1])) < 200


def test_the_access_policy_admits_the_published_names_only(conf):
    endpoint = _manager(conf)
    policy = rpc_door.PublishedOnly()
    assert all(policy.is_allowed(endpoint, name) for name in rpc_version.METHODS)
    assert not any(policy.is_allowed(endpoint, name)
                   for name in ('conf', 'db', 'ring', 'periodic_tasks', 'target'))


def test_every_published_method_is_an_endpoint_method_and_in_the_doc():
    for name in rpc_version.METHODS:
        assert callable(getattr(manager_mod.ConductorManager, name))
    table = (ROOT / 'doc' / 'source' / 'rpc.md').read_text().split('## Methods', 1)[1]
    table = table.split('\n## ', 1)[0]
    documented = set(re.findall(r'^\| `([a-z_]+)` \|', table, re.M))
    assert documented == rpc_version.METHODS
