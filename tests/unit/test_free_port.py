"""tests.services.free_port: ports no other process's connection or bind(0) can take first."""

import random
import socket

from tests import services


def test_ports_come_from_below_the_kernels_range_and_never_twice():
    low = services._ephemeral_low()
    assert low is not None and low - services.PORTS_FROM >= 1000
    ports = [services.free_port() for _ in range(300)]
    assert all(services.PORTS_FROM <= p < low for p in ports)
    assert len(set(ports)) == len(ports)


def test_a_port_someone_listens_on_is_passed_over(monkeypatch):
    held = socket.socket()
    held.bind(('127.0.0.1', 0))
    held.listen()
    taken = held.getsockname()[1]
    monkeypatch.setattr(services, 'PORTS_FROM', taken)
    monkeypatch.setattr(services, '_ephemeral_low', lambda: taken + 1000)
    # the second pick must really be free: on a shared host taken + 7 was
    # someone else's, and the loop then asked for a third pick
    with socket.socket() as spare:
        spare.bind(('127.0.0.1', 0))
        free = spare.getsockname()[1]
    picks = iter([taken, free])
    monkeypatch.setattr(random.SystemRandom, 'randrange', lambda self, a, b: next(picks))
    monkeypatch.setattr(services, '_handed_out', set())
    try:
        assert services.free_port() == free
    finally:
        held.close()


def test_without_a_known_range_the_kernel_picks(monkeypatch):
    low = services._ephemeral_low()
    monkeypatch.setattr(services, '_ephemeral_low', lambda: None)
    port = services.free_port()
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', port))        # it was free
    assert port >= low                        # the kernel's own range


def test_the_range_is_read_from_proc(tmp_path):
    path = tmp_path / 'range'
    path.write_text('32768\t60999\n')
    assert services._ephemeral_low(str(path)) == 32768
    path.write_text('')
    assert services._ephemeral_low(str(path)) is None
    assert services._ephemeral_low(str(tmp_path / 'missing')) is None
