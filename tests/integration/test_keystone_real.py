"""Both APIs behind keystonemiddleware, validating tokens of a real Keystone.

The plumbing the tenant-security and unified-limits work builds on: Keystone
installed from the package index (tests/keystone_service.py), the tenant matrix
made through its REST API (tests/keystone_identity.py), berth configured the way
an operator would (tests/keystone_berth.py).  What tenants may do is asserted
only where it must hold whatever the policy work changes: no 500, no token or a
bad token is 401, a project reader sees its own usages and not another's.
"""

import pytest
import requests

from tests.integration.conftest import MARKS

pytestmark = MARKS

PLACEMENT = {'OpenStack-API-Version': 'placement latest'}
IRONIC = {'X-OpenStack-Ironic-API-Version': 'latest'}
TENANTS = ('a-member', 'a-reader', 'b-member', 'b-reader', 'domain-member',
           'system-admin', 'system-reader', 'service')


def _placement(stack, path, token=None):
    headers = dict(PLACEMENT, **({'X-Auth-Token': token} if token else {}))
    return requests.get(stack.placement_url + path, headers=headers, timeout=60)


def _baremetal(stack, path, token=None):
    headers = dict(IRONIC, **({'X-Auth-Token': token} if token else {}))
    return requests.get(stack.baremetal_url + path, headers=headers, timeout=60)


def _tampered(token):
    """``token`` with one character in its middle changed."""
    i = len(token) // 2
    return token[:i] + ('A' if token[i] != 'A' else 'B') + token[i + 1:]


def test_keystone_issues_scoped_fernet_tokens(keystone, tenants, keystone_identity):
    for name, principal in tenants.principals.items():
        token, body = tenants.issue(name)
        assert len(token) > 100          # a fernet token, not a UUID
        if principal.project_id:
            assert body['project']['id'] == principal.project_id
        elif principal.domain_id:
            assert body['domain']['id'] == principal.domain_id
        else:
            assert body['system'] == {'all': True}
        assert principal.roles[0] in {r['name'] for r in body['roles']}
    assert tenants.projects['A'] != tenants.projects['B']
    print('keystone timings (s): %s' % {k: round(v, 1) for k, v in keystone.timings.items()})


def test_an_admin_token_reaches_both_apis(keystone_berth, tenants):
    token = tenants.token('project-admin')
    resp = _placement(keystone_berth, '/resource_providers', token)
    assert resp.status_code == 200, resp.text
    assert resp.json() == {'resource_providers': []}
    resp = _baremetal(keystone_berth, '/v1/allocations', token)
    assert resp.status_code == 200, resp.text
    assert resp.json()['allocations'] == []


def test_no_token_garbage_or_a_tampered_token_is_401(keystone_berth, tenants):
    real = tenants.token('a-member')
    for token in (None, 'not-a-token', _tampered(real), _tampered(tenants.token('system-admin'))):
        for call, path in ((_placement, '/resource_providers'),
                           (_baremetal, '/v1/allocations')):
            resp = call(keystone_berth, path, token)
            assert resp.status_code == 401, (token, path, resp.text)
    # the untampered token still is a valid identity (not a 401)
    assert _placement(keystone_berth, '/usages?project_id=%s' % tenants.projects['A'],
                      real).status_code == 200


@pytest.mark.parametrize('who', TENANTS)
def test_every_tenant_gets_an_answer_never_a_500(keystone_berth, tenants, who):
    """Records what each principal gets today (the tenant-security issue settles it)."""
    token = tenants.token(who)
    seen = {}
    for call, path in ((_placement, '/resource_providers'),
                       (_placement, '/usages?project_id=%s' % tenants.projects['A']),
                       (_baremetal, '/v1/allocations'), (_baremetal, '/v1/nodes')):
        resp = call(keystone_berth, path, token)
        seen[path] = resp.status_code
        assert resp.status_code < 500, (who, path, resp.text)
        assert resp.status_code != 401, (who, path, resp.text)   # the token is valid
    print('%s: %s' % (who, seen))


def test_a_project_reader_sees_its_own_usages_only(keystone_berth, tenants):
    token = tenants.token('a-reader')
    own = _placement(keystone_berth, '/usages?project_id=%s' % tenants.projects['A'], token)
    assert own.status_code == 200, own.text
    other = _placement(keystone_berth, '/usages?project_id=%s' % tenants.projects['B'], token)
    assert other.status_code == 403, other.text


def test_unified_limits_can_be_set_read_and_removed(tenants, keystone_identity):
    ident, service = keystone_identity, tenants.placement_service_id
    a, b = tenants.projects['A'], tenants.projects['B']
    registered = ident.set_registered_limit(service, 'class:DISK_GB', 10)
    assert ident.set_registered_limit(service, 'class:DISK_GB', 20) == registered
    limit = ident.set_project_limit(a, service, 'class:DISK_GB', 12)
    assert ident.limits(service, a)['class:DISK_GB'] == 12
    assert ident.limits(service, b)['class:DISK_GB'] == 20
    assert ident.set_project_limit(a, service, 'class:DISK_GB', 3) == limit
    assert ident.limits(service, a)['class:DISK_GB'] == 3
    ident.delete_project_limit(limit)
    ident.delete_registered_limit(registered)
    assert 'class:DISK_GB' not in ident.limits(service, a)


def test_the_service_user_can_read_what_oslo_limit_reads(tenants, keystone_identity):
    """oslo.limit logs in system-scoped and reads the endpoint and the limits."""
    token = tenants.identity.issue(tenants.service.username, tenants.service.password,
                                   tenants.service.user_domain_id, system=True)[0]
    resp = requests.get('%s/endpoints/%s' % (keystone_identity.v3,
                                             tenants.placement_endpoint_id),
                        headers={'X-Auth-Token': token}, timeout=30)
    assert resp.status_code == 200, resp.text
    assert resp.json()['endpoint']['service_id'] == tenants.placement_service_id
    resp = requests.get(keystone_identity.v3 + '/registered_limits',
                        headers={'X-Auth-Token': token}, timeout=30)
    assert resp.status_code == 200, resp.text
