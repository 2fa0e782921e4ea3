"""Policy defaults: writes need admin or service, reads follow Placement's secure RBAC;
the rules are published through oslo.policy's entry points (sample and effective policy)."""

import os
import subprocess
import sys

import pytest

from api.baremetal import policy as bm_policy
from api.placement import policy as placement_policy
from common import context as berth_context
from common.policies import baremetal as bm_policies
from common.policies import placement as policies
from common.policies.baremetal import endpoints as bm_rules
from common.policies.placement import endpoints
from tests import fixtures

BIN = os.path.dirname(sys.executable)


def _ctx(*roles, project='p-1'):
    return berth_context.RequestContext(user_id='u-1', project_id=project,
                                        roles=list(roles), is_admin='admin' in roles,
                                        overwrite=False)


def _operations():
    for rule in policies.list_rules():
        for op in getattr(rule, 'operations', None) or ():
            yield rule.name, op['method']


@pytest.fixture
def enforcer(tmp_path):
    return placement_policy.make_enforcer(fixtures.make_conf(tmp_path))


def _allowed(enforcer, rule, ctx, project='p-1'):
    return enforcer.enforce(rule, {'project_id': project, 'user_id': ctx.user_id}, ctx)


def test_every_placement_rule_has_an_operation():
    documented = {name for name, _ in _operations()}
    assert len(documented) >= 30
    assert {r.name for r in policies.list_rules() if r.name.startswith('placement:')} \
        <= documented


def test_placement_writes_need_admin_or_service(enforcer):
    writes = {name for name, method in _operations() if method != 'GET'}
    assert endpoints.ALLOCATIONS_UPDATE in writes
    for name in sorted(writes):
        for roles in (('reader',), ('member',), ('reader', 'member'), ()):
            assert not _allowed(enforcer, name, _ctx(*roles)), (name, roles)
        assert _allowed(enforcer, name, _ctx('admin')) or name.startswith(
            'placement:reshaper'), name


def test_placement_reads_are_admin_or_service_but_usages_per_project(enforcer):
    reads = {name for name, method in _operations() if method == 'GET'}
    for name in sorted(reads):
        assert _allowed(enforcer, name, _ctx('admin')), name
        project_reader = _allowed(enforcer, name, _ctx('reader'))
        assert project_reader == (name == endpoints.USAGES), name
    # a reader sees only its own project's usages
    assert not _allowed(enforcer, endpoints.USAGES, _ctx('reader'), project='p-2')


def test_placement_rules_are_project_scoped_as_upstream(enforcer):
    """Upstream Placement: every rule has scope_types ['project'], so a
    system-scoped admin token is refused everything (a project admin is not)."""
    system_admin = berth_context.RequestContext(
        user_id='u-1', roles=['admin', 'member', 'reader'], system_scope='all',
        overwrite=False)
    names = sorted({name for name, _ in _operations()})
    for rule in policies.list_rules():
        if rule.name.startswith('placement:'):
            assert rule.scope_types == ['project'], rule.name
    for name in names:
        assert not _allowed(enforcer, name, system_admin), name
    assert _allowed(enforcer, endpoints.USAGES, _ctx('admin'))


def test_service_role_reaches_the_service_apis(enforcer):
    for name in (endpoints.ALLOCATIONS_UPDATE, endpoints.RESHAPER_RESHAPE,
                 endpoints.ALLOCATION_CANDIDATES_LIST):
        assert _allowed(enforcer, name, _ctx('service')), name


def test_baremetal_rules_are_ironics_scoped_defaults(tmp_path):
    """Operators are system-scoped (or the service project's service role); a
    project-scoped admin is only a member of its project, as in Ironic."""
    enforcer = bm_policy.make_enforcer(fixtures.make_conf(tmp_path))
    target = {'project_id': 'p-1', 'user_id': 'u-1', 'node.owner': 'p-1',
              'node.lessee': None, 'allocation.owner': 'p-1',
              'config.service_project_name': 'service'}
    system_admin = berth_context.RequestContext(
        user_id='u-1', roles=['admin', 'member', 'reader'], system_scope='all',
        overwrite=False)
    service = berth_context.RequestContext(
        user_id='u-1', project_id='p-s', project_name='service', roles=['service'],
        overwrite=False)
    domain = berth_context.RequestContext(
        user_id='u-1', domain_id='d-1', roles=['admin', 'member', 'reader'],
        overwrite=False)
    for name in (bm_rules.NODE_CREATE, bm_rules.NODE_DELETE, bm_rules.NODE_UPDATE_FIELDS[
            'owner'], bm_rules.ALLOCATION_CREATE_RESTRICTED, bm_rules.ALLOCATION_LIST_ALL,
            bm_rules.NODE_LIST_ALL):
        assert not enforcer.enforce(name, target, _ctx('member', 'reader')), name
        assert not enforcer.enforce(name, target, _ctx('admin', 'member', 'reader')), name
        assert enforcer.enforce(name, target, system_admin), name
        if name not in (bm_rules.NODE_CREATE, bm_rules.NODE_DELETE):
            assert enforcer.enforce(name, target, service), name
    for rule in bm_policies.list_rules():
        if rule.scope_types:
            # Ironic's chassis and driver rules are system-scoped only
            system_only = rule.name.startswith(('baremetal:chassis:', 'baremetal:driver:'))
            assert rule.scope_types == (
                ['system'] if system_only else ['system', 'project']), rule.name
            assert not enforcer.enforce(rule.name, target, domain), rule.name
    # Ironic's project model: members manage their own project's allocations
    # and owned nodes, readers only read them; another project's are denied
    member = _ctx('member', 'reader')
    assert enforcer.enforce(bm_rules.ALLOCATION_CREATE, target, member)
    assert enforcer.enforce(bm_rules.ALLOCATION_DELETE, target, member)
    assert enforcer.enforce(bm_rules.NODE_PROVISION, target, member)
    assert not enforcer.enforce(bm_rules.ALLOCATION_CREATE, target, _ctx('reader'))
    assert not enforcer.enforce(bm_rules.ALLOCATION_DELETE, target, _ctx('reader'))
    assert enforcer.enforce(bm_rules.ALLOCATION_LIST, target, _ctx('reader'))
    assert enforcer.enforce(bm_rules.NODE_GET, target, _ctx('reader'))
    other = dict(target, **{'node.owner': 'p-2', 'allocation.owner': 'p-2'})
    for name in (bm_rules.NODE_GET, bm_rules.ALLOCATION_GET, bm_rules.ALLOCATION_DELETE):
        assert not enforcer.enforce(name, other, member), name
    leased = dict(other, **{'node.lessee': 'p-1'})
    assert enforcer.enforce(bm_rules.NODE_GET, leased, _ctx('reader'))
    assert not enforcer.enforce(bm_rules.NODE_GET_DRIVER_INFO, leased, _ctx('reader'))


def test_ironics_self_owned_node_rules(tmp_path):
    """Ironic's defaults: any admin or service may create a node owned by its
    project; only an admin of the owning project may delete it."""
    enforcer = bm_policy.make_enforcer(fixtures.make_conf(tmp_path))
    mine = {'project_id': 'p-1', 'node.owner': 'p-1', 'node.lessee': None}
    leased = {'project_id': 'p-1', 'node.owner': 'p-2', 'node.lessee': 'p-1'}
    admin = _ctx('admin', 'member', 'reader')
    assert enforcer.enforce(bm_rules.NODE_CREATE_SELF_OWNED, mine, admin)
    assert enforcer.enforce(bm_rules.NODE_CREATE_SELF_OWNED, mine, _ctx('service'))
    assert not enforcer.enforce(bm_rules.NODE_CREATE_SELF_OWNED, mine,
                                _ctx('member', 'reader'))
    assert enforcer.enforce(bm_rules.NODE_DELETE_SELF_OWNED, mine, admin)
    assert not enforcer.enforce(bm_rules.NODE_DELETE_SELF_OWNED, leased, admin)
    assert not enforcer.enforce(bm_rules.NODE_DELETE_SELF_OWNED, mine,
                                _ctx('member', 'reader'))


def _run(*argv):
    return subprocess.run([os.path.join(BIN, argv[0])] + list(argv[1:]),
                          capture_output=True, text=True, timeout=120, check=True).stdout


def test_sample_generator_lists_every_rule(tmp_path):
    out = tmp_path / 'policy.yaml'
    _run('oslopolicy-sample-generator', '--namespace', 'berth',
         '--namespace', 'berth.baremetal', '--output-file', str(out))
    sample = out.read_text()
    for rule in policies.list_rules() + bm_policies.list_rules():
        assert '#"%s":' % rule.name in sample, rule.name


def test_effective_policy_through_the_enforcer_entry_point(tmp_path):
    overrides = tmp_path / 'policy.yaml'
    overrides.write_text('"placement:resource_providers:list": "role:reader"\n')
    conf = tmp_path / 'berth.conf'
    conf.write_text('[oslo_policy]\npolicy_file = %s\n' % overrides)
    out = _run('oslopolicy-policy-generator', '--namespace', 'berth',
               '--config-file', str(conf))
    assert '"placement:resource_providers:list": "role:reader"' in out
    assert '"placement:resource_providers:create": "rule:admin_or_service_api"' in out
