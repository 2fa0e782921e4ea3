"""Signed RPC messages (common.rpc_trust): what a conductor accepts and what it refuses.

A message verifies only as signed, by a known key, for this conductor,
within the window and once; a service's message acts with at most its
configured roles and never with system scope.
"""

import copy
import json

import pytest

from common import exception, rpc_keys, rpc_trust

KEY = 'k' * 40
NOVA_KEY = 'n' * 40
MESSAGE = {'method': 'claim_resources', 'version': '1.9',
           'args': {'tree': 'r1', 'consumers': [{'uuid': 'c1', 'allocations': {
               'rp': {'VCPU': 1}}}], 'call_id': 'id-1'}}
CONTEXT = {'user': 'u1', 'project_id': 'p1', 'roles': ['admin', 'member'],
           'system_scope': None, 'is_admin': True, 'request_id': 'req-1'}


class Clock:
    def __init__(self):
        self.now = 1_000_000.0

    def __call__(self):
        return self.now


@pytest.fixture
def clock(monkeypatch):
    c = Clock()
    monkeypatch.setattr(rpc_trust.time, 'time', c)
    return c


def _verifier(clock, server='c1'):
    return rpc_trust.Verifier(server, {'berth': KEY, 'nova': NOVA_KEY},
                              {'berth': None, 'nova': frozenset({'service'})},
                              ttl=60, clock=clock)


def _wire(value):
    """What the receiver sees: a JSON round trip."""
    return json.loads(json.dumps(value))


def _signed(key_id='berth', key=KEY, server='c1', ctxt=CONTEXT, message=MESSAGE):
    signed = rpc_trust.Signer(key_id, key).sign(server, dict(ctxt), message)
    return _wire(signed), _wire(message)


def _refused(verifier, ctxt, message, reason):
    with pytest.raises(exception.Forbidden) as err:
        verifier.verify(ctxt, message)
    assert reason in err.value.message
    return err.value


def test_berths_message_verifies_with_its_context_as_sent(clock):
    ctxt, message = _signed()
    ctxt['client_timeout'] = 60          # what the rabbit driver adds on the way
    got = _verifier(clock).verify(ctxt, message)
    assert got == CONTEXT


def test_an_unsigned_message_is_refused(clock):
    _refused(_verifier(clock), dict(CONTEXT), MESSAGE, 'not signed')


def test_an_unknown_key_is_refused(clock):
    ctxt, message = _signed(key_id='glance', key='g' * 40)
    _refused(_verifier(clock), ctxt, message, 'unknown signing key')


def test_a_forged_key_is_refused(clock):
    ctxt, message = _signed(key='x' * 40)
    _refused(_verifier(clock), ctxt, message, 'bad signature')


@pytest.mark.parametrize('change', [
    lambda c, m: c.update(roles=['admin', 'member', 'reader']),
    lambda c, m: c.update(system_scope='all'),
    lambda c, m: c.update(project_id='p2'),
    lambda c, m: c.update(project_name='service'),
    lambda c, m: m.update(method='delete_allocations'),
    lambda c, m: m['args']['consumers'][0]['allocations']['rp'].update(VCPU=64),
    lambda c, m: m['args'].update(call_id='id-2'),
    lambda c, m: m.update(version='1.0'),
    lambda c, m: c['berth_auth'].update(ts=c['berth_auth']['ts'] + 1),
    lambda c, m: c['berth_auth'].update(key='nova'),
])
def test_any_change_after_signing_is_refused(clock, change):
    ctxt, message = _signed()
    ctxt, message = copy.deepcopy(ctxt), copy.deepcopy(message)
    change(ctxt, message)
    _refused(_verifier(clock), ctxt, message, 'bad signature')


def test_a_message_for_another_conductor_or_a_fanout_is_refused(clock):
    ctxt, message = _signed(server='c2')
    _refused(_verifier(clock), ctxt, message, 'bad signature')
    ctxt, message = _signed(server=None)
    _refused(_verifier(clock), ctxt, message, 'bad signature')


def test_a_replay_is_refused(clock):
    ctxt, message = _signed()
    verifier = _verifier(clock)
    verifier.verify(copy.deepcopy(ctxt), message)
    clock.now += 1
    _refused(verifier, copy.deepcopy(ctxt), message, 'replayed')


def test_an_old_or_future_message_is_refused(clock):
    ctxt, message = _signed()
    verifier = _verifier(clock)
    clock.now += 61
    _refused(verifier, copy.deepcopy(ctxt), message, 'expired')
    clock.now -= 122
    _refused(verifier, copy.deepcopy(ctxt), message, 'expired')


@pytest.mark.parametrize('auth', [None, 'x', [], {'key': 'berth'},
                                  {'key': 'berth', 'ts': 'now', 'nonce': 'n', 'sig': 's'},
                                  {'key': ['berth'], 'ts': 1, 'nonce': 'n', 'sig': 's'}])
def test_malformed_signatures_are_refused(clock, auth):
    with pytest.raises(exception.Forbidden):
        _verifier(clock).verify(dict(CONTEXT, berth_auth=auth), MESSAGE)


def test_a_service_acts_with_its_roles_only(clock):
    forged = dict(CONTEXT, roles=['admin', 'service', 'member'], system_scope='all',
                  is_admin=True, domain='d1', project_name='service')
    ctxt, message = _signed(key_id='nova', key=NOVA_KEY, ctxt=forged)
    got = _verifier(clock).verify(ctxt, message)
    assert got['roles'] == ['service']
    assert got['is_admin'] is False
    assert 'system_scope' not in got and 'domain' not in got
    assert got['project_id'] == 'p1'


def test_modes(conf):
    class Transport:
        def __init__(self, module):
            self._driver = type('D', (), {'__module__': module})()
            self.conf = conf
    assert rpc_trust.mode(conf, Transport('common.rpc_inproc'))[0] == 'embedded'
    # no key on a broker: refused, unless explicitly allowed (common.rpc_keys)
    with pytest.raises(rpc_keys.Refused):
        rpc_trust.mode(conf, Transport('oslo_messaging._drivers.impl_rabbit'))
    conf.set_override('allow_unsigned', True, group='rpc')
    assert rpc_trust.mode(conf, Transport('oslo_messaging._drivers.impl_rabbit'))[0] == \
        'unsigned'
    assert rpc_trust.verifier(conf, Transport('x.impl_rabbit'), 'c1') is None
    conf.set_override('signing_key', KEY, group='rpc')
    assert rpc_trust.mode(conf, Transport('x.impl_rabbit')) == ('signed', 'berth', KEY)
    conf.set_override('service_keys', {'nova': 'short'}, group='rpc')
    with pytest.raises(ValueError):
        rpc_trust.verifier(conf, Transport('x.impl_rabbit'), 'c1')
    conf.set_override('service_keys', {'nova': NOVA_KEY}, group='rpc')
    conf.set_override('service_roles', {'nova': 'admin+service'}, group='rpc')
    verifier = rpc_trust.verifier(conf, Transport('x.impl_rabbit'), 'c1')
    assert verifier.keys == {'berth': KEY, 'nova': NOVA_KEY}
    assert verifier.roles == {'berth': None, 'nova': frozenset({'admin', 'service'})}


def test_each_process_says_its_trust_mode_once(caplog, monkeypatch):
    monkeypatch.setattr(rpc_trust, '_LOGGED', set())
    with caplog.at_level('INFO', logger='berth'):
        rpc_trust.log_mode('server', 'embedded')
        rpc_trust.log_mode('server', 'embedded')
        rpc_trust.log_mode('client', 'unsigned')
    lines = [r for r in caplog.records if 'trust mode' in r.getMessage()]
    assert [(r.levelname, r.getMessage().split(':')[0]) for r in lines] == [
        ('INFO', 'RPC server trust mode'), ('WARNING', 'RPC client trust mode')]
