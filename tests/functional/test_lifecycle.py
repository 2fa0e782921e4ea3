"""Every long-running command stops on SIGTERM in every phase; SIGHUP reloads.

The commands run as real processes.  "Unreachable" servers are loopback
ports nobody listens on, so a start blocks in the driver's retry loop as it
would against a broker, database or coordination backend that is down.
The bounds asserted are the documented stop bounds (minutes before this
existed: only SIGKILL ended a conductor that could not reach RabbitMQ), not
speed measurements.
"""

import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

from tests import services

BIN = pathlib.Path(sys.executable).parent
# cli.lifecycle: a stop while starting exits at once; logs get START_STOP_BOUND
STOP_WHILE_STARTING_BOUND = 10 + 20


class Command:
    """A berth console command with its output in files (never a full pipe)."""

    def __init__(self, tmp_path, name, *args):
        self.out = open(tmp_path / ('%s.out' % name), 'w+')
        self.err = open(tmp_path / ('%s.err' % name), 'w+')
        self.proc = subprocess.Popen([str(BIN / name), *args], stdout=self.out,
                                     stderr=self.err, cwd=tmp_path)

    def output(self):
        self.out.flush()
        self.err.flush()
        self.out.seek(0)
        self.err.seek(0)
        return self.out.read() + self.err.read()

    def wait_for(self, text, seconds=60):
        deadline = time.monotonic() + seconds
        while text not in self.output():
            if self.proc.poll() is not None:
                pytest.fail('exited %s before %r:\n%s' % (self.proc.returncode, text,
                                                          self.output()[-3000:]))
            if time.monotonic() > deadline:
                self.kill()
                pytest.fail('no %r within %ss:\n%s' % (text, seconds, self.output()[-3000:]))
            time.sleep(0.1)

    def stop(self, sig=signal.SIGTERM, bound=STOP_WHILE_STARTING_BOUND):
        """Signal it; its exit status, failing the test if it outlives ``bound``."""
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(bound)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGUSR2)   # its stacks, for the failure
            time.sleep(1)
            self.kill()
            pytest.fail('still running %ss after %s:\n%s' % (bound, sig.name,
                                                             self.output()[-5000:]))

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def command(tmp_path):
    started = []

    def run(name, *args):
        started.append(Command(tmp_path, name, *args))
        return started[-1]
    yield run
    for cmd in started:
        cmd.kill()
        assert cmd.proc.poll() is not None
        with pytest.raises(ProcessLookupError):
            os.kill(cmd.proc.pid, 0)


def _config(tmp_path, **sections):
    """A config file: SQLite and a file coordination backend unless overridden."""
    base = {'DEFAULT': {'debug': 'true', 'state_path': str(tmp_path / 'state'),
                        'host': 'lifecycle-test'},
            'database': {'connection': 'sqlite:///%s' % (tmp_path / 'berth.sqlite')},
            'coordination': {'backend_url': 'file://%s' % (tmp_path / 'coord')},
            # the default transport is RabbitMQ: without a key nothing starts
            'rpc': {'signing_key': services.RPC_SIGNING_KEY},
            'api': {'auth_strategy': 'noauth2', 'placement_port': services.free_port(),
                    'baremetal_port': services.free_port()}}
    for group, values in sections.items():
        base.setdefault(group, {}).update(values)
    path = tmp_path / 'berth.conf'
    path.write_text(''.join('[%s]\n%s\n' % (g, ''.join('%s = %s\n' % kv for kv in v.items()))
                            for g, v in base.items()))
    return str(path)


def _synced(tmp_path, **sections):
    path = _config(tmp_path, **sections)
    done = subprocess.run([str(BIN / 'berth-manage'), '--config-file', path, 'db', 'sync'],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return path


def _nobody_listens():
    return services.free_port()


class _Silent:
    """A listening port whose server never speaks; ``connected()`` waits for a client."""

    def __init__(self, sock):
        self.sock = sock
        self.port = sock.getsockname()[1]
        self.clients = []

    def connected(self, seconds=60):
        """Wait until a client's connection arrives (kept open, never answered)."""
        self.sock.settimeout(seconds)
        try:
            self.clients.append(self.sock.accept()[0])
        except TimeoutError:
            pytest.fail('nothing connected to the silent server within %ss' % seconds)


@pytest.fixture
def silent_server():
    """A port whose kernel completes the handshake but whose server never speaks.

    A database client connecting there waits (up to its connect timeout)
    as it would for a server that is hung or cut off by a partition.
    """
    import socket
    sock = socket.socket()
    sock.bind(('127.0.0.1', 0))
    sock.listen(16)
    silent = _Silent(sock)
    yield silent
    for client in silent.clients:
        client.close()
    sock.close()


def test_conductor_stops_while_the_broker_is_unreachable(tmp_path, command):
    cfg = _synced(tmp_path, DEFAULT={
        'transport_url': 'rabbit://guest:guest@127.0.0.1:%d/' % _nobody_listens()})
    cmd = command('berth-conductor', '--config-file', cfg)
    cmd.wait_for('connecting to the message broker')
    assert cmd.stop() == 0
    assert 'stop requested while connecting to the message broker' in cmd.output()


def test_conductor_stops_while_the_database_is_unreachable(tmp_path, command,
                                                           silent_server):
    cfg = _config(tmp_path, database={
        'connection': 'postgresql+psycopg2://berth:pw@127.0.0.1:%d/berth'
                      % silent_server.port})
    cmd = command('berth-conductor', '--config-file', cfg)
    cmd.wait_for('opening the database')
    silent_server.connected()   # inside libpq's connect (10 s connect timeout)
    assert cmd.stop(signal.SIGINT) == 0
    assert 'stop requested while opening the database' in cmd.output()


def test_conductor_stops_while_coordination_is_unreachable(tmp_path, command,
                                                          silent_server):
    cfg = _synced(tmp_path, coordination={
        'backend_url': 'etcd3+http://127.0.0.1:%d?timeout=1' % silent_server.port})
    cmd = command('berth-conductor', '--config-file', cfg)
    cmd.wait_for('connecting to the coordination backend')
    silent_server.connected()   # inside the coordinator's first request
    assert cmd.stop() == 0
    assert 'stop requested while connecting to the coordination backend' in cmd.output()


def test_api_stops_while_the_database_is_unreachable(tmp_path, command, silent_server):
    cfg = _config(tmp_path, database={
        'connection': 'postgresql+psycopg2://berth:pw@127.0.0.1:%d/berth'
                      % silent_server.port})
    cmd = command('berth-api', '--config-file', cfg)
    cmd.wait_for('opening the database')
    assert cmd.stop() == 0
    assert 'stop requested while opening the database' in cmd.output()


def test_serve_stops_when_serving_and_reloads_log_level_on_sighup(tmp_path, command):
    cfg = _config(tmp_path, DEFAULT={'debug': 'false'})
    cmd = command('berth', 'serve', '--config-file', cfg, '--data-dir',
                  str(tmp_path / 'data'))
    cmd.wait_for('berth is running')
    pathlib.Path(cfg).write_text(pathlib.Path(cfg).read_text().replace(
        'debug = false', 'debug = true'))
    cmd.proc.send_signal(signal.SIGHUP)
    cmd.wait_for('SIGHUP: configuration reloaded (DEFAULT.debug)')
    assert cmd.proc.poll() is None, 'SIGHUP must not stop the process'
    assert cmd.stop(bound=120) == 0
    assert 'berth: stopping' in cmd.output()


def test_sighup_with_a_broken_file_keeps_serving(tmp_path, command):
    cfg = _config(tmp_path)
    cmd = command('berth', 'serve', '--config-file', cfg, '--data-dir',
                  str(tmp_path / 'data'))
    cmd.wait_for('berth is running')
    pathlib.Path(cfg).write_text('[DEFAULT\nthis is not ini\n')
    cmd.proc.send_signal(signal.SIGHUP)
    cmd.wait_for('SIGHUP: configuration not reloaded')
    assert cmd.proc.poll() is None
    assert cmd.stop(bound=120) == 0


def test_a_port_in_use_is_one_line_and_exit_1(tmp_path, command):
    import socket
    taken = socket.socket()
    taken.bind(('127.0.0.1', 0))
    taken.listen()
    port = taken.getsockname()[1]
    try:
        cmd = command('berth', 'serve', '--data-dir', str(tmp_path / 'data'),
                      '--placement-port', str(port),
                      '--baremetal-port', str(services.free_port()))
        assert cmd.proc.wait(120) == 1
        out = cmd.output()
        assert 'berth: cannot start:' in out
        assert 'Traceback' not in out
    finally:
        taken.close()
