"""Every rule a conductor's authorizer checks is checked, and the service role is Ironic's.

Each rule of each RPC write is refused alone (every other rule of both APIs
allowed): the call must be refused and write nothing.  An authorizer that
skipped that one rule (checked only the first of a node update's rules, or
left out the visibility check) lets the call through, and its case fails.

The service role in the service project is a system member only with
``[DEFAULT] rbac_service_role_elevated_access`` (Ironic's option, default
off); a context signed with a service key never gets it, whatever project
it names.
"""

from oslo_policy import policy as oslo_policy
import pytest

from common import context as berth_context
from common import exception, rpc_trust
from common.policies import baremetal as bm_policies
from common.policies import placement as pl_policies
from common.policies.baremetal import endpoints as bm
from common.policies.placement import endpoints as pl
from common.policies.placement import extensions as pl_ext
from tests.unit.conductor import test_authz as base
from tests.unit.conductor.test_authz import (
    A1,
    OTHER_MEMBER,
    OWNER_MEMBER,
    SERVICE,
    _call,
    _ctx,
    _delegate,
)

manager = base.manager      # the conductor with mocked writes (a fixture)

# a node update changing every field that has its own rule, and one without
# (``maintenance``: baremetal:node:update)
NODE_VALUES = {field: 'x' for field in bm.NODE_UPDATE_FIELDS}
NODE_VALUES.update(instance_uuid=None, retired=True, maintenance=True, name='node-x',
                   instance_info={}, properties={}, extra={}, driver_info={},
                   network_data={}, disable_power_off=True,
                   # berth-api sends a parent resolved to its UUID (write_checks)
                   parent_node='1be26c0b-03f2-4d2e-ae87-c02d7f33c123')
NODE_RULES = [bm.NODE_GET] + bm.update_rules(NODE_VALUES)
TWO = [{'uuid': u, 'allocations': {}, 'project_id': 'p', 'user_id': 'u'} for u in 'cd']

# (method, context, arguments, the delegate that writes, every rule it checks)
CASES = [
    ('claim_resources', OWNER_MEMBER, ('t', TWO), 'claims.claim_resources',
     [pl.ALLOCATIONS_MANAGE]),
    ('delete_allocations', OWNER_MEMBER, ('t', 'c'), 'claims.delete_allocations',
     [pl.ALLOCATIONS_DELETE]),
    ('reshape', OWNER_MEMBER, ('t', {}, []), 'claims.reshape', [pl.RESHAPER_RESHAPE]),
    ('schedule_and_claim', OWNER_MEMBER, ({}, [{}]), 'scheduler.schedule_and_claim',
     [pl_ext.CLAIMS_CREATE]),
    ('update_compute_node', OWNER_MEMBER, ('t', 'host1', {}), 'compute_nodes.update',
     [pl.RESOURCE_PROVIDERS_CREATE, pl.RESOURCE_PROVIDERS_INVENTORIES_UPDATE]),
    ('destroy_allocation', OWNER_MEMBER, ('a1',), 'node_allocator.destroy',
     [bm.ALLOCATION_GET, bm.ALLOCATION_DELETE]),
    ('update_allocation', OWNER_MEMBER, ('a1', {'name': 'x'}),
     'node_writes.update_allocation', [bm.ALLOCATION_GET, bm.ALLOCATION_UPDATE]),
    # another owner than the caller's project: create_restricted as well
    ('backfill_allocation', OWNER_MEMBER, ({'uuid': A1, 'owner': 'p2'}, 'n1'),
     'node_writes.backfill',
     [bm.ALLOCATION_CREATE, bm.ALLOCATION_CREATE_RESTRICTED, bm.NODE_GET]),
    ('update_node', OWNER_MEMBER, ('n1', NODE_VALUES), 'node_writes.update_node',
     NODE_RULES),
    ('set_node_provision_state', OWNER_MEMBER, ('n1', 'deleted'),
     'node_writes.set_provision_state', [bm.NODE_GET, bm.NODE_PROVISION]),
    # node:delete or, as the API, its self_owned_node rule: refused together
    ('destroy_node', OWNER_MEMBER, ('n1',), 'node_writes.destroy_node',
     [bm.NODE_GET, (bm.NODE_DELETE, bm.NODE_DELETE_SELF_OWNED)]),
    # p1's row, asked for by project p2: create_restricted as well
    ('create_allocation', OTHER_MEMBER, (7, 1.0), 'allocation_queue.run',
     [bm.ALLOCATION_CREATE, bm.ALLOCATION_CREATE_RESTRICTED]),
    ('create_allocations', OTHER_MEMBER, ([7], 1.0), 'allocation_queue.run_many',
     [bm.ALLOCATION_CREATE, bm.ALLOCATION_CREATE_RESTRICTED]),
]
PAIRS = [(method, ctx, args, delegate, rule)
         for method, ctx, args, delegate, rules in CASES for rule in rules]


def _alone(rule):
    """A case's rule: one name, or a tuple of alternatives refused together."""
    return rule if isinstance(rule, tuple) else (rule,)


def _only_refusing(manager, refused=None):
    """Every rule of both APIs passes for anyone, except ``refused`` (a rule
    or a tuple of alternatives)."""
    for enforcer, policies in ((manager.authz.placement, pl_policies),
                               (manager.authz.baremetal, bm_policies)):
        names = {r.name: '@' for r in policies.list_rules()}
        for name in _alone(refused):
            if name in names:
                names[name] = '!'
        enforcer.set_rules(oslo_policy.Rules.from_dict(names), overwrite=True)
        enforcer.load_rules = lambda *a, **k: None      # keep the override


def test_every_rule_of_every_case_is_a_registered_rule():
    known = {r.name for r in pl_policies.list_rules() + bm_policies.list_rules()}
    assert {name for *_, rule in PAIRS for name in _alone(rule)} <= known
    # the node update covers every field rule and the generic one
    assert set(NODE_RULES) == {bm.NODE_GET, bm.NODE_UPDATE,
                               *bm.NODE_UPDATE_FIELDS.values()}


@pytest.mark.parametrize('method,ctx,args,delegate,rules', CASES,
                         ids=[c[0] for c in CASES])
def test_each_call_passes_when_every_rule_does(manager, method, ctx, args, delegate,
                                               rules):
    """The control: the refusals below come from the one refused rule."""
    _only_refusing(manager)
    write = _delegate(manager, delegate)
    _call(getattr(manager, method), ctx, *args)
    write.assert_called_once()


@pytest.mark.parametrize('method,ctx,args,delegate,rule', PAIRS,
                         ids=['%s-%s' % (p[0], '+'.join(_alone(p[4]))) for p in PAIRS])
def test_each_rule_alone_refuses_the_call(manager, method, ctx, args, delegate, rule):
    _only_refusing(manager, rule)
    write = _delegate(manager, delegate)
    try:
        answer = _call(getattr(manager, method), ctx, *args)
    except (exception.Forbidden, exception.NotFound):
        pass
    else:
        # create_allocation(s) answer a row the caller may not create as None
        assert method.startswith('create_allocation'), (method, rule)
        assert answer in (None, [None]), answer
    write.assert_not_called()


@pytest.mark.parametrize('field', sorted(bm.NODE_UPDATE_FIELDS))
def test_a_member_may_not_change_a_field_of_a_stricter_rule(manager, field):
    """Defaults: the owner's member changes name and the like, not owner or
    conductor_group (system member) nor the driver (owner admin) nor the shard
    (system admin) -- also when the field comes after one the member may change."""
    values = {'instance_uuid': None, 'name': 'node-x', field: NODE_VALUES[field]}
    rules = bm.update_rules(values)
    strict = {bm.NODE_UPDATE_FIELDS[f] for f in ('owner', 'conductor_group',
                                                  'chassis_uuid', 'driver', 'shard',
                                                  'parent_node', 'disable_power_off')}
    if bm.NODE_UPDATE_FIELDS[field] not in strict:
        _call(manager.update_node, OWNER_MEMBER, 'n1', values)
        manager.node_writes.update_node.assert_called_once()
        return
    assert rules.index(bm.NODE_UPDATE_FIELDS[field]) > 0
    with pytest.raises(exception.Forbidden):
        _call(manager.update_node, OWNER_MEMBER, 'n1', values)
    manager.node_writes.update_node.assert_not_called()


# -- the service role ------------------------------------------------------

WRITES = [('update_node', ('n1', {'instance_uuid': None}), 'node_writes.update_node'),
          ('update_allocation', ('a1', {'name': 'x'}), 'node_writes.update_allocation'),
          ('destroy_allocation', ('a1',), 'node_allocator.destroy'),
          ('set_node_provision_state', ('n1', 'deleted'),
           'node_writes.set_provision_state')]


@pytest.mark.parametrize('method,args,delegate', WRITES, ids=[w[0] for w in WRITES])
def test_the_service_project_has_no_cross_project_access_by_default(
        manager, method, args, delegate):
    write = _delegate(manager, delegate)
    with pytest.raises(exception.NotFound):     # another project's: as if missing
        _call(getattr(manager, method), SERVICE, *args)
    write.assert_not_called()
    manager.conf.set_override('rbac_service_role_elevated_access', True)
    _call(getattr(manager, method), SERVICE, *args)
    write.assert_called_once()


def test_another_service_project_name_is_the_one_elevated(manager):
    manager.conf.set_override('rbac_service_role_elevated_access', True)
    manager.conf.set_override('rbac_service_project_name', 'services')
    with pytest.raises(exception.NotFound):
        _call(manager.update_allocation, SERVICE, 'a1', {'name': 'x'})
    renamed = _ctx(['service'], project='svc', project_name='services')
    _call(manager.update_allocation, renamed, 'a1', {'name': 'x'})
    manager.node_writes.update_allocation.assert_called_once()


def test_the_service_role_of_the_owning_project_keeps_its_own_nodes(manager):
    """Off, the service role is Ironic's project service role: its own nodes."""
    owner_service = _ctx(['service'], project='p1', project_name='p1-name')
    _call(manager.set_node_provision_state, owner_service, 'n1', 'deleted')
    manager.node_writes.set_provision_state.assert_called_once()


NOVA_KEY = 'n' * 40


def _through_the_door(ctxt, key_id, key):
    """``ctxt`` as a conductor acts with it after verifying the message."""
    message = {'method': 'update_allocation', 'version': '1.6', 'args': {}}
    verifier = rpc_trust.Verifier('c1', {'berth': 'k' * 40, 'nova': NOVA_KEY},
                                  {'berth': None, 'nova': frozenset({'service'})},
                                  ttl=60)
    signed = rpc_trust.Signer(key_id, key).sign('c1', ctxt.to_dict(), message)
    return berth_context.RequestContext.from_dict(verifier.verify(signed, message))


@pytest.mark.parametrize('project', ['svc', 'p2'])
def test_a_service_key_naming_the_service_project_is_not_elevated(manager, project):
    """Over RPC a project name is the sender's word: a service key's context
    never matches the service_role rule (the option on): p1's rows stay p1's."""
    manager.conf.set_override('rbac_service_role_elevated_access', True)
    forged = _ctx(['service'], project=project, project_name='service')
    acting = _through_the_door(forged, 'nova', NOVA_KEY)
    assert acting.project_name is None
    with pytest.raises(exception.NotFound):
        _call(manager.update_allocation, acting, 'a1', {'name': 'x'})
    with pytest.raises(exception.NotFound):
        _call(manager.update_node, acting, 'n1', {'instance_uuid': None})
    manager.node_writes.update_allocation.assert_not_called()
    manager.node_writes.update_node.assert_not_called()


def test_berths_own_key_keeps_the_keystone_checked_project_name(manager):
    """berth-api forwards its caller's context, checked by Keystone: the name stays."""
    manager.conf.set_override('rbac_service_role_elevated_access', True)
    acting = _through_the_door(SERVICE, 'berth', 'k' * 40)
    assert acting.project_name == 'service'
    _call(manager.update_allocation, acting, 'a1', {'name': 'x'})
    manager.node_writes.update_allocation.assert_called_once()
