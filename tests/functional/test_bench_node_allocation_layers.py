"""bench/node_allocation_layers.py: every layer measured, and only on requests that worked."""

import json

import pytest

from bench import node_allocation_layers as bench


def test_every_layer_is_measured_on_a_real_embedded_berth(capsys):
    assert bench.main(['--requests', '20']) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    layers = result['layers']
    assert set(layers) == {
        'http floor', 'http berth server', 'app GET /v1', 'app GET allocation',
        'app POST allocation', 'served GET /v1', 'served GET allocation',
        'served POST allocation'}
    assert all(v['cpu_ms'] > 0 for v in layers.values())
    post = layers['app POST allocation']
    # the conductor's reservation runs on its own threads, not the API's
    assert post['other_threads_ms'] > 0
    assert post['this_thread_ms'] + post['other_threads_ms'] == pytest.approx(
        post['cpu_ms'], abs=0.002)
    assert result['one_core_allocations_per_s'] > 0


def test_a_post_that_does_not_end_active_is_not_counted(monkeypatch):
    # no node to give: the POSTs end in error, which would time a cheaper path
    monkeypatch.setattr(bench.node_allocations, 'make_nodes', lambda db, count: None)
    with pytest.raises(RuntimeError, match='did not end active'):
        bench.application_layers(5)


def test_the_posts_reuse_the_nodes_in_rounds():
    # 30 POSTs per layer on 5 nodes: only if each round's allocations are
    # deleted before the next (else the 5th POST ends in error and raises)
    rows = bench.application_layers(30, nodes=5)
    assert rows['app POST allocation'][0] > 0 and rows['served POST allocation'][0] > 0
