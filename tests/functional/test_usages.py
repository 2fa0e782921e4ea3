"""GET /usages: totals per project/user, and grouped by consumer type at 1.38."""

import pytest

from tests.functional import alloc_helpers as h


@pytest.fixture
def rp(client, ctx):
    return h.provider(client, ctx, {'VCPU': {'total': 64}, 'MEMORY_MB': {'total': 65536},
                                    'DISK_GB': {'total': 1000}})


@pytest.fixture
def usage(client, rp):
    """p1/u1: two INSTANCE consumers and one untyped; p1/u2: one MIGRATION; p2: one."""
    def put(resources, project='p1', user='u1', consumer_type=None):
        version = '1.38' if consumer_type else '1.37'
        resp = h.put(client, h.new_uuid(), {rp: resources}, version=version,
                     project=project, user=user, consumer_type=consumer_type)
        assert resp.status_code == 204, resp.text
    put({'VCPU': 2, 'MEMORY_MB': 2048}, consumer_type='INSTANCE')
    put({'VCPU': 4, 'MEMORY_MB': 4096}, consumer_type='INSTANCE')
    put({'DISK_GB': 20})
    put({'VCPU': 1}, user='u2', consumer_type='MIGRATION')
    put({'VCPU': 8}, project='p2', consumer_type='INSTANCE')


def _usages(client, query, version='latest', **kw):
    resp = client.get('/usages?' + query, version=version, **kw)
    assert resp.status_code == 200, resp.text
    return resp.json()['usages']


def test_not_before_1_9(client):
    h.error(client.get('/usages?project_id=p1', version='1.8'), 404,
            version_has_code=False)


def test_totals_1_9(client, usage):
    assert _usages(client, 'project_id=p1', '1.9') == {
        'VCPU': 7, 'MEMORY_MB': 6144, 'DISK_GB': 20}
    assert _usages(client, 'project_id=p1&user_id=u2', '1.37') == {'VCPU': 1}
    assert _usages(client, 'project_id=nobody', '1.9') == {}
    resp = client.get('/usages?project_id=p1')
    assert resp.headers['cache-control'] == 'no-cache'


def test_grouped_by_consumer_type_1_38(client, usage):
    assert _usages(client, 'project_id=p1') == {
        'INSTANCE': {'consumer_count': 2, 'VCPU': 6, 'MEMORY_MB': 6144},
        'MIGRATION': {'consumer_count': 1, 'VCPU': 1},
        'unknown': {'consumer_count': 1, 'DISK_GB': 20}}
    assert _usages(client, 'project_id=p1&user_id=u1') == {
        'INSTANCE': {'consumer_count': 2, 'VCPU': 6, 'MEMORY_MB': 6144},
        'unknown': {'consumer_count': 1, 'DISK_GB': 20}}


@pytest.mark.parametrize('consumer_type,expected', [
    ('all', {'all': {'consumer_count': 4, 'VCPU': 7, 'MEMORY_MB': 6144,
                     'DISK_GB': 20}}),
    ('unknown', {'unknown': {'consumer_count': 1, 'DISK_GB': 20}}),
    ('INSTANCE', {'INSTANCE': {'consumer_count': 2, 'VCPU': 6, 'MEMORY_MB': 6144}}),
    ('NONE_OF_THESE', {}),
    ('ALL', {}),
    ('UNKNOWN', {}),
])
def test_consumer_type_filter(client, usage, consumer_type, expected):
    assert _usages(client, 'project_id=p1&consumer_type=' + consumer_type) == expected


def test_all_of_an_empty_project(client, usage):
    assert _usages(client, 'project_id=nobody&consumer_type=all') == {}


@pytest.mark.parametrize('query,version', [
    ('', 'latest'),
    ('user_id=u1', 'latest'),
    ('project_id=', 'latest'),
    ('project_id=p1&user_id=', 'latest'),
    ('project_id=p1&project_id=p2', 'latest'),
    ('project_id=p1&bogus=1', 'latest'),
    ('project_id=p1&consumer_type=instance', 'latest'),
    ('project_id=p1&consumer_type=', 'latest'),
    ('project_id=p1&consumer_type=INSTANCE', '1.37'),
])
def test_bad_queries(client, query, version):
    detail = h.error(client.get('/usages?' + query, version=version), 400)
    assert 'Invalid query string parameters' in detail


def test_policy_target_is_the_query_project(client, usage):
    reader = {'X-Roles': 'reader'}
    assert _usages(client, 'project_id=p1', token='someone:p1', headers=reader)
    h.error(client.get('/usages?project_id=p2', token='someone:p1', headers=reader), 403)
    h.error(client.get('/usages?project_id=p1', token='someone:p1'), 403)
    assert _usages(client, 'project_id=p2', token='svc', headers={'X-Roles': 'service'})
