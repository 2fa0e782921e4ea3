"""TLS to RabbitMQ and to the database through the standard oslo options, as documented."""

import socket
import ssl
import subprocess
import threading

import oslo_messaging as messaging
import psycopg2
import pytest
import sqlalchemy as sa

from common import rpc
from db import api as db_api
from tests import fixtures


def test_mysql_tls_options_reach_the_driver():
    """PyMySQL's TLS settings in the URL's query become its ``ssl`` connect argument."""
    engine = sa.create_engine('mysql+pymysql://berth:pw@db.example/berth?charset=utf8mb4'
                              '&ssl_ca=/etc/berth/db-ca.pem&ssl_check_hostname=true')
    _args, kwargs = engine.dialect.create_connect_args(engine.url)
    assert kwargs['ssl'] == {'ca': '/etc/berth/db-ca.pem', 'check_hostname': True}
    engine.dispose()


def test_postgresql_speaks_tls_with_the_configured_ca(tls_listener):
    """oslo.db hands ``sslmode=verify-full&sslrootcert=`` to libpq, which does TLS."""
    port, ca, state = tls_listener
    state['prelude'] = 'postgresql'
    url = ('postgresql+psycopg2://berth:pw@127.0.0.1:%d/berth?sslmode=verify-full'
           '&sslrootcert=%s&connect_timeout=5' % (port, ca))
    # the listener is not a database: libpq's TLS handshake succeeds, then it fails
    with pytest.raises(sa.exc.OperationalError, match='SSL') as info:
        db_api.Database(url, max_retries=1).engine.connect()
    assert isinstance(info.value.orig, psycopg2.OperationalError)
    assert state['handshakes'] >= 1 and state.get('payload_over_tls'), info.value


@pytest.fixture
def tls_listener(tmp_path):
    """A loopback TLS endpoint with a self-signed certificate; records handshakes."""
    cert, key = tmp_path / 'ca.pem', tmp_path / 'key.pem'
    subprocess.run(['openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes',
                    '-keyout', str(key), '-out', str(cert), '-days', '1',
                    '-subj', '/CN=localhost', '-addext',
                    'subjectAltName=DNS:localhost,IP:127.0.0.1'],
                   check=True, capture_output=True, timeout=60)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(str(cert), str(key))
    sock = socket.socket()
    sock.bind(('127.0.0.1', 0))
    sock.listen(8)
    sock.settimeout(0.2)
    state = {'handshakes': 0, 'stop': False}

    def serve():
        while not state['stop']:
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            try:
                if state.get('prelude') == 'postgresql':
                    conn.recv(8)  # SSLRequest: libpq asks, the server says yes
                    conn.sendall(b'S')
                with context.wrap_socket(conn, server_side=True) as tls:
                    state['handshakes'] += 1
                    if tls.recv(8):  # AMQP header / startup packet, over TLS
                        state['payload_over_tls'] = True
            except (OSError, ssl.SSLError):
                conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield sock.getsockname()[1], cert, state
    state['stop'] = True
    thread.join(5)
    sock.close()


def test_rabbit_transport_speaks_tls_with_the_configured_ca(tmp_path, tls_listener):
    port, ca, state = tls_listener
    conf = fixtures.make_conf(tmp_path)
    rpc.register_opts(conf)
    conf.set_override('transport_url', 'rabbit://berth:pw@127.0.0.1:%d/' % port)
    for name, value in (('ssl', True), ('ssl_ca_file', str(ca)),
                        ('rabbit_retry_interval', 1), ('heartbeat_timeout_threshold', 0)):
        conf.set_override(name, value, group='oslo_messaging_rabbit')
    # one send without retries over the same driver and options berth's RPC uses
    # (an RPC call's reply listener would retry its connection forever)
    transport = messaging.get_notification_transport(conf)
    notifier = messaging.Notifier(transport, publisher_id='berth', driver='messaging',
                                  topics=['tls-check'], retry=0)
    sender = threading.Thread(target=notifier.info, args=({}, 'tls.check', {}),
                              daemon=True)
    sender.start()
    sender.join(60)
    transport.cleanup()
    assert not sender.is_alive()
    assert state['handshakes'] >= 1 and state.get('payload_over_tls')
