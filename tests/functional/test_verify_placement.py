"""``berth-manage verify placement``: two berths with the same data, then one changed."""

import socket

import pytest
import requests

from cli import manage
from tests import adoption_builder, fixtures

pytestmark = pytest.mark.slow


@pytest.fixture
def twin(tmp_path, tmp_path_factory):
    """A second embedded berth beside the ``berth`` fixture."""
    conf = fixtures.make_conf(tmp_path / 'twin')
    fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf)
    stack = fixtures.start_embedded(conf)
    yield stack
    stack.stop()


def _verify(capsys, placement_url, berth_url, *extra):
    code = manage.main(['verify', 'placement', '--endpoint', placement_url,
                        '--berth-endpoint', berth_url, '--workers', '2', *extra])
    out = capsys.readouterr()
    return code, out.out, out.err


def _free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def test_identical_berths_then_one_changed(berth, twin, capsys):
    with requests.Session() as session:
        for stack in (berth, twin):
            adoption_builder.build(adoption_builder.Api(session, stack.placement_url))
        code, out, err = _verify(capsys, berth.placement_url, twin.placement_url,
                                 '--token', 'admin')
        assert (code, err) == (0, ''), out
        assert out.count('DIFFERENT') == 0
        assert ' 0 difference(s)' in out
        # every kind of read was made: providers, filters, usages, candidates
        reads = int(out.rsplit('\n', 2)[-2].split()[0])
        assert reads > 100, out
        # a sample reads fewer providers one by one, and still finds them equal
        code, out, err = _verify(capsys, berth.placement_url, twin.placement_url,
                                 '--token', 'admin', '--sample', '2')
        assert (code, err) == (0, ''), out
        assert 'providers                  12 reads' in out, out

        api = adoption_builder.Api(session, twin.placement_url)
        api.inventories('cn2', {'VCPU': {'total': 48, 'reserved': 2,
                                         'allocation_ratio': 4.0, 'max_unit': 16},
                                'MEMORY_MB': {'total': 131072, 'reserved': 4096,
                                              'min_unit': 256, 'step_size': 256,
                                              'allocation_ratio': 1.5},
                                'DISK_GB': {'total': 100, 'reserved': 10}})
        api.call('DELETE', '/allocations/%s' % adoption_builder.uid('mig1'))
    code, out, err = _verify(capsys, berth.placement_url, twin.placement_url,
                             '--token', 'admin')
    assert code == 1, out
    cn2 = adoption_builder.uid('cn2')
    mig1 = adoption_builder.uid('mig1')
    lines = out.splitlines()
    assert ('DIFFERENT /resource_providers/%s/inventories /inventories/VCPU/total: '
            'placement=32 berth=48' % cn2) in lines, out
    # generations are compared: the inventory write moved cn2's
    assert any(line.startswith('DIFFERENT /resource_providers/%s /generation:' % cn2)
               for line in lines), out
    # the consumer only one side still has is read on both
    assert any(line.startswith('DIFFERENT /allocations/%s /consumer_generation:' % mig1)
               for line in lines), out
    assert any('/usages?project_id=proj-b&consumer_type=MIGRATION' in line
               for line in lines), out
    assert any(line.startswith('DIFFERENT /allocation_candidates?') for line in lines), out
    assert not err


def test_unreachable_endpoint_is_one_line(berth, capsys, monkeypatch):
    monkeypatch.delenv('OS_TOKEN', raising=False)
    dead = 'http://127.0.0.1:%d' % _free_port()
    code, out, err = _verify(capsys, dead, berth.placement_url, '--token', 'admin')
    assert code == 2 and out == ''
    assert err == ('berth-manage: cannot reach placement at %s (ConnectionError); check '
                   'the URL and that the service runs\n' % dead)


def test_missing_credentials_is_one_line(berth, capsys, monkeypatch):
    monkeypatch.delenv('OS_TOKEN', raising=False)
    code, out, err = _verify(capsys, berth.placement_url, berth.placement_url)
    assert code == 2 and out == ''
    assert err.count('\n') == 1
    assert 'placement at %s refused the credentials (401)' % berth.placement_url in err


def test_not_a_placement_endpoint_is_one_line(berth, capsys):
    code, out, err = _verify(capsys, berth.placement_url, berth.baremetal_url,
                             '--token', 'admin')
    assert code == 2 and out == ''
    assert err.count('\n') == 1
    assert 'berth at %s is not a Placement endpoint' % berth.baremetal_url in err


def test_not_a_url_is_one_line(berth, capsys):
    code, out, err = _verify(capsys, 'controller:8778', berth.placement_url,
                             '--token', 'admin')
    assert code == 2 and out == ''
    assert err.count('\n') == 1 and "'controller:8778'" in err
