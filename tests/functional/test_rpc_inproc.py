"""The in-process oslo.messaging driver under the real RPC client and server."""

import threading

import oslo_messaging as messaging
import pytest

from common import exception, rpc, rpc_inproc

TOPIC = 'inproc-test'


class Broken(Exception):
    """An exception of a module the caller does not allow."""


class Endpoint:
    """A tiny RPC endpoint recording who answered."""

    target = messaging.Target(version='1.1')

    def __init__(self, name):
        self.name = name
        self.casts = []
        self.cast_done = threading.Event()
        self.release = threading.Event()

    def whoami(self, ctx):
        return self.name

    def echo(self, ctx, value):
        value['seen_by'] = self.name     # must not leak back into the caller's dict
        return value

    def remember(self, ctx, value):
        self.casts.append(value)
        self.cast_done.set()

    @messaging.expected_exceptions(exception.BerthException)
    def missing(self, ctx, uuid):
        raise exception.ResourceProviderNotFound(uuid=uuid)

    def broken(self, ctx):
        raise Broken('boom')

    def slow(self, ctx):
        self.release.wait(60)
        return 'late'


@pytest.fixture
def transport(conf):
    t = rpc.get_transport(conf, url='inproc:///unit-%d' % id(conf))
    yield t
    t.cleanup()


@pytest.fixture
def servers(transport):
    started = []

    def start(*names):
        for name in names:
            endpoint = Endpoint(name)
            server = messaging.get_rpc_server(
                transport, messaging.Target(topic=TOPIC, server=name), [endpoint])
            server.start(override_pool_size=4)
            started.append((server, endpoint))
        return [e for _, e in started[-len(names):]]

    yield start
    for server, endpoint in started:
        endpoint.release.set()
        server.stop()
        server.wait()


def _client(transport, server=None, timeout=30, version='1.0', fanout=False):
    target = messaging.Target(topic=TOPIC, version='1.0')
    client = messaging.get_rpc_client(transport, target, timeout=timeout)
    return client.prepare(server=server, version=version, fanout=fanout)


def test_driver_is_registered_for_its_scheme(transport):
    assert isinstance(transport._driver, rpc_inproc.InProcessDriver)


def test_call_reaches_the_named_server_of_several(transport, servers):
    servers('c0', 'c1', 'c2')
    for name in ('c2', 'c0', 'c1'):
        assert _client(transport, name).call({}, 'whoami') == name


def test_call_arguments_and_result_cross_as_json(transport, servers):
    servers('c0')
    sent = {'when': (1, 2), 'nested': {'a': [1]}}
    result = _client(transport, 'c0').call({}, 'echo', value=sent)
    assert result == {'when': [1, 2], 'nested': {'a': [1]}, 'seen_by': 'c0'}
    assert sent == {'when': (1, 2), 'nested': {'a': [1]}}


def test_call_without_server_goes_to_each_listener_in_turn(transport, servers):
    servers('c0', 'c1')
    answered = {_client(transport).call({}, 'whoami') for _ in range(4)}
    assert answered == {'c0', 'c1'}


def test_cast_runs_on_the_server(transport, servers):
    endpoint, = servers('c0')
    assert _client(transport, 'c0').cast({}, 'remember', value=7) is None
    assert endpoint.cast_done.wait(30)
    assert endpoint.casts == [7]


def test_fanout_cast_reaches_every_server(transport, servers):
    endpoints = servers('c0', 'c1')
    _client(transport, fanout=True).cast({}, 'remember', value='all')
    for endpoint in endpoints:
        assert endpoint.cast_done.wait(30)
        assert endpoint.casts == ['all']


def test_expected_exception_is_reraised_typed_for_allowed_modules(transport, servers):
    servers('c0')
    with pytest.raises(exception.ResourceProviderNotFound) as err:
        _client(transport, 'c0').call({}, 'missing', uuid='rp-1')
    assert 'rp-1' in str(err.value)
    assert type(err.value).__name__.endswith('_Remote')


def test_exception_of_a_module_not_allowed_is_a_remote_error(transport, servers):
    servers('c0')
    with pytest.raises(messaging.RemoteError) as err:
        _client(transport, 'c0').call({}, 'broken')
    assert err.value.exc_type == 'Broken'


def test_version_pinning_is_enforced_by_the_dispatcher(transport, servers):
    servers('c0')
    assert _client(transport, 'c0', version='1.1').call({}, 'whoami') == 'c0'
    with pytest.raises(messaging.RemoteError) as err:
        _client(transport, 'c0', version='1.2').call({}, 'whoami')
    assert err.value.exc_type == 'UnsupportedVersion'


def test_call_times_out_when_the_server_does_not_answer(transport, servers):
    endpoint, = servers('c0')
    with pytest.raises(messaging.MessagingTimeout):
        _client(transport, 'c0', timeout=0.2).call({}, 'slow')
    endpoint.release.set()
    # the late reply goes nowhere and the next call is answered normally
    assert _client(transport, 'c0').call({}, 'whoami') == 'c0'


def test_call_to_a_server_nobody_listens_on_is_a_timeout(transport, servers):
    servers('c0')
    with pytest.raises(messaging.MessagingTimeout) as err:
        _client(transport, 'nobody', timeout=60).call({}, 'whoami')
    assert 'nobody' in str(err.value)
    _client(transport, 'nobody').cast({}, 'remember', value=1)   # dropped


def test_stopped_server_takes_no_more_messages(transport, servers):
    endpoint, = servers('c0')
    server = messaging.get_rpc_server(
        transport, messaging.Target(topic=TOPIC, server='c9'), [Endpoint('c9')])
    server.start(override_pool_size=2)
    assert _client(transport, 'c9').call({}, 'whoami') == 'c9'
    server.stop()
    server.wait()
    with pytest.raises(messaging.MessagingTimeout):
        _client(transport, 'c9').call({}, 'whoami')
    assert _client(transport, 'c0').call({}, 'whoami') == 'c0'


def test_transports_of_one_url_share_a_broker_and_other_names_do_not(conf, servers,
                                                                     transport):
    servers('c0')
    url = 'inproc:///unit-%d' % id(conf)
    same = rpc.get_transport(conf, url=url)
    other = rpc.get_transport(conf, url=url + '-other')
    try:
        assert _client(same, 'c0').call({}, 'whoami') == 'c0'
        with pytest.raises(messaging.MessagingTimeout):
            _client(other, 'c0').call({}, 'whoami')
    finally:
        same.cleanup()
        other.cleanup()
    # the first transport still reaches its server after the others left
    assert _client(transport, 'c0').call({}, 'whoami') == 'c0'


def test_notifications_reach_one_listener_per_pool(conf, transport):
    received = []
    done = threading.Event()

    class Sink:
        def info(self, ctxt, publisher_id, event_type, payload, metadata):
            received.append((event_type, payload))
            done.set()

    notify_transport = messaging.get_notification_transport(
        conf, url='inproc:///unit-%d' % id(conf))
    listener = messaging.get_notification_listener(
        notify_transport, [messaging.Target(topic='berth-notes')], [Sink()],
        pool='p1')
    listener.start()
    try:
        notifier = messaging.Notifier(notify_transport, publisher_id='unit',
                                      driver='messaging', topics=['berth-notes'])
        notifier.info({}, 'thing.happened', {'n': 1})
        assert done.wait(30)
        assert received == [('thing.happened', {'n': 1})]
    finally:
        listener.stop()
        listener.wait()
        notify_transport.cleanup()


def test_copy_reads_as_the_json_of_a_real_transport():
    """The fast copy equals oslo's JSON round trip, special values included."""
    import datetime
    import enum
    import uuid

    from oslo_serialization import jsonutils

    from common import rpc_inproc

    class Colour(str, enum.Enum):  # noqa: UP042 (a str mix-in on purpose)
        RED = 'red'

    values = [
        {'a': 1, 'b': [1, 2, (3, 4)], 'c': None, 'd': 1.5, 'e': 'x'},
        {1: 'int key', 'n': {2: [True, False]}},
        {'when': datetime.datetime(2026, 11, 22, 13, 0, 0, 123456)},
        {'tz': datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)},
        {'u': uuid.UUID(int=5)}, {'big': 2 ** 70}, {'colour': Colour.RED},
        {'text': 'ü'}, {'set': {1}}, {'ratio': float('inf'), 'none': None},
        [float('-inf')], {'nan': [None, float('nan')]},
    ]
    for value in values:
        expected = jsonutils.dumps(jsonutils.loads(jsonutils.dumps(value)))
        assert jsonutils.dumps(rpc_inproc._copy(value)) == expected, value
