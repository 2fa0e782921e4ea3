"""Ironic client behaviours, each at the microversion Ironic introduced it (issue 18)."""

import pytest

from tests.functional import baremetal_helpers as h


@pytest.mark.parametrize('path,version', [
    ('/v1/nodes?bogus=1', '1.1'), ('/v1/nodes/detail?bogus=1', '1.1'),
    ('/v1/nodes?conductor=x', 'latest'), ('/v1/allocations?bogus=1', '1.52'),
    ('/v1/allocations?node_uuid=x', 'latest')])
def test_unknown_query_parameters_are_400_not_ignored(bm, path, version):
    h.make_node(bm, 'listed')
    resp = bm.get(path, version=version)
    assert resp.status_code == 400, resp.text
    assert 'Unknown argument' in h.fault(resp)


def test_known_query_parameters_still_list(bm):
    h.make_node(bm, 'listed')
    assert len(bm.get('/v1/nodes?maintenance=false&limit=5').json()['nodes']) == 1
    assert bm.get('/v1/allocations?state=active&limit=5').status_code == 200


def test_conductor_group_settable_and_filterable_from_1_46(bm):
    made = bm.post('/v1/nodes', version='1.46', json={
        'driver': 'fake-hardware', 'name': 'g1', 'conductor_group': 'Rack-1.A'})
    assert made.status_code == 201, made.text
    assert made.json()['conductor_group'] == 'rack-1.a'      # lower case, as Ironic
    h.make_node(bm, 'g2')
    assert bm.get('/v1/nodes/g2', version='1.46').json()['conductor_group'] == ''
    resp = bm.patch('/v1/nodes/g2', version='1.46', json=[
        {'op': 'replace', 'path': '/conductor_group', 'value': 'rack-2'}])
    assert resp.status_code == 200 and resp.json()['conductor_group'] == 'rack-2'
    names = lambda q: sorted(n['name'] for n in bm.get(  # noqa: E731
        '/v1/nodes?conductor_group=%s' % q, version='1.46').json()['nodes'])
    assert names('RACK-1.A') == ['g1'] and names('rack-2') == ['g2']
    resp = bm.patch('/v1/nodes/g2', version='1.46', json=[
        {'op': 'remove', 'path': '/conductor_group'}])
    assert resp.status_code == 200 and resp.json()['conductor_group'] == ''
    assert names('') == ['g2']


def test_conductor_group_below_1_46_is_406_and_hidden(bm):
    resp = bm.post('/v1/nodes', version='1.45', json={
        'driver': 'fake-hardware', 'conductor_group': 'a'})
    assert resp.status_code == 406, resp.text
    h.make_node(bm, 'old')
    assert 'conductor_group' not in bm.get('/v1/nodes/old', version='1.45').json()
    assert bm.patch('/v1/nodes/old', version='1.45', json=[
        {'op': 'add', 'path': '/conductor_group', 'value': 'a'}]).status_code == 406
    assert bm.get('/v1/nodes?conductor_group=a', version='1.45').status_code == 406


@pytest.mark.parametrize('group', ['has space', 'a/b', 'x' * 256])
def test_invalid_conductor_group_is_400(bm, group):
    resp = bm.post('/v1/nodes', version='1.46', json={
        'driver': 'fake-hardware', 'conductor_group': group})
    assert resp.status_code == 400, resp.text
