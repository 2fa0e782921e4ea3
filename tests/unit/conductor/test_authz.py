"""The conductor checks the REST API's rules on the context of each RPC message.

Every endpoint method that writes is refused (Forbidden, nothing delegated)
for a context without the role, and runs for the contexts berth-api
forwards (the user that passed the same rule in the API).
"""

import contextlib
import types
from unittest import mock

from oslo_messaging.rpc import dispatcher
import pytest

from common import context as berth_context
from common import exception
from common.policies.baremetal import endpoints as bm
from conductor import manager as manager_mod
from conductor.manager import authz
from conductor.manager import replay as manager_replay
from conductor.rpcapi import payloads

NODE = types.SimpleNamespace(uuid='n1', owner='p1', lessee=None)
ALLOC = types.SimpleNamespace(id=7, uuid='a1', owner='p1')
# a backfill's uuid (checked as a UUID before anything else)
A1 = '9f3c8a52-7a51-4d8e-9b0e-4a7f5cbe0a11'


def _ctx(roles, project='p1', system=None, project_name=None):
    return berth_context.RequestContext(
        user_id='u', project_id=None if system else project, roles=roles,
        system_scope=system, project_name=project_name, overwrite=False)


ADMIN = _ctx(['admin', 'member', 'reader'], system='all')
# Placement's rules are project scoped: its administrator has a project token
PROJECT_ADMIN = _ctx(['admin', 'member', 'reader'], project='admin')
SYSTEM_MEMBER = _ctx(['member', 'reader'], system='all')
SERVICE = _ctx(['service'], project='svc', project_name='service')
OWNER_MEMBER = _ctx(['member', 'reader'], project='p1')
OTHER_MEMBER = _ctx(['member', 'reader'], project='p2')
READER = _ctx(['reader'], project='p1')
NO_ROLE = _ctx([], project='p1')


@pytest.fixture
def manager(conf, monkeypatch):
    monkeypatch.setattr(authz.node_obj, 'get', lambda ctx, ident: NODE)
    monkeypatch.setattr(authz.node_alloc, 'get', lambda ctx, ident: ALLOC)
    monkeypatch.setattr(manager_mod.node_alloc, 'get_by_id', lambda ctx, i: ALLOC)
    monkeypatch.setattr(manager_mod.node_alloc, 'owners', lambda ctx, ids: [
        types.SimpleNamespace(id=i, uuid=ALLOC.uuid, owner=ALLOC.owner) for i in ids])
    set_error = mock.Mock(return_value='now')
    monkeypatch.setattr(manager_mod.node_alloc, 'set_error', set_error)
    m = manager_mod.ConductorManager.__new__(manager_mod.ConductorManager)
    m.host = 'c1'
    m.conf = conf
    m.authz = authz.Authorizer(conf)
    m.workers = types.SimpleNamespace(slot=contextlib.nullcontext,
                                      admit=contextlib.nullcontext)
    m.calls = manager_replay.CallLedger()
    m.claims = mock.Mock()
    m.node_writes = mock.Mock()
    m.node_writes.backfill.return_value = payloads.BackfillAnswer('a1', None)
    m.scheduler = mock.Mock()
    m.compute_nodes = mock.Mock()
    m.allocation_queue = mock.Mock()
    m.allocation_queue.run_many.side_effect = lambda ctx, ids, wait: [{'id': i} for i in ids]
    m.set_error = set_error
    return m


# (method, arguments, the delegate that does the write)
PLACEMENT = [
    ('claim_resources', ('t', [{'uuid': 'c', 'allocations': {}, 'project_id': 'p',
                                'user_id': 'u'}]), 'claims.claim_resources'),
    ('delete_allocations', ('t', 'c'), 'claims.delete_allocations'),
    ('reshape', ('t', {}, []), 'claims.reshape'),
    ('schedule_and_claim', ({}, [{}]), 'scheduler.schedule_and_claim'),
    ('update_compute_node', ('t', 'host1', {}), 'compute_nodes.update'),
]
BAREMETAL = [
    ('destroy_allocation', ('a1',), 'node_allocator.destroy'),
    ('backfill_allocation', ({'uuid': A1}, 'n1'), 'node_writes.backfill'),
    ('update_allocation', ('a1', {'name': 'x'}), 'node_writes.update_allocation'),
    ('update_node', ('n1', {'instance_uuid': None}), 'node_writes.update_node'),
    ('set_node_provision_state', ('n1', 'deleted'), 'node_writes.set_provision_state'),
    ('destroy_node', ('n1',), 'node_writes.destroy_node'),
    ('create_allocation', (7, 1.0), 'allocation_queue.run'),
]


def _call(fn, *args, **kwargs):
    """Call an endpoint method, unwrapping oslo.messaging's ExpectedException."""
    try:
        return fn(*args, **kwargs)
    except dispatcher.ExpectedException as exc:
        raise exc.exc_info[1] from None


def _delegate(m, path):
    if path.startswith('node_allocator.'):
        m.node_allocator = mock.Mock()
    owner, name = path.split('.')
    return getattr(getattr(m, owner), name)


@pytest.mark.parametrize('method,args,delegate', PLACEMENT + BAREMETAL)
@pytest.mark.parametrize('ctx', [NO_ROLE, READER], ids=['no-role', 'reader'])
def test_a_context_without_the_role_is_refused_and_nothing_is_written(
        manager, method, args, delegate, ctx):
    write = _delegate(manager, delegate)
    with pytest.raises((exception.Forbidden, exception.NotFound)) as err:
        _call(getattr(manager, method), ctx, *args)
    write.assert_not_called()
    if ctx is READER:       # it may see the owner's node and allocation, not change them
        assert isinstance(err.value, exception.Forbidden)


@pytest.mark.parametrize('method,args,delegate', PLACEMENT + BAREMETAL)
@pytest.mark.parametrize('ctx', [ADMIN, SERVICE], ids=['admin', 'service'])
def test_the_admin_and_service_contexts_pass(manager, method, args, delegate, ctx):
    """Each passes, except the two pairs the rules refuse: those are refused, unwritten.

    The service project's service role works on another project's nodes only
    with [DEFAULT] rbac_service_role_elevated_access (Ironic's option).
    """
    if ctx is SERVICE:
        manager.conf.set_override('rbac_service_role_elevated_access', True)
    refused = ((ctx is SERVICE and method == 'destroy_node')      # Ironic: system admin only
               or (ctx is ADMIN and method == 'reshape'))       # Placement: service only
    if ctx is ADMIN and (method, args, delegate) in PLACEMENT:
        ctx = PROJECT_ADMIN
    write = _delegate(manager, delegate)
    if refused:
        with pytest.raises(exception.Forbidden):
            _call(getattr(manager, method), ctx, *args)
        write.assert_not_called()
        return
    _call(getattr(manager, method), ctx, *args)
    write.assert_called_once()


def test_placement_refusal_has_placements_text(manager):
    with pytest.raises(exception.Forbidden) as err:
        _call(manager.delete_allocations, NO_ROLE, 't', 'c')
    assert err.value.message == ('Policy does not allow placement:allocations:delete '
                                 'to be performed.')


def test_baremetal_refusal_has_ironics_text(manager):
    with pytest.raises(exception.Forbidden) as err:
        _call(manager.update_allocation, READER, 'a1', {'name': 'x'})
    assert err.value.message == 'baremetal:allocation:update is disallowed by policy'


def test_the_owners_member_may_change_its_allocation(manager):
    _call(manager.update_allocation, OWNER_MEMBER, 'a1', {'name': 'x'})
    manager.node_writes.update_allocation.assert_called_once()


def test_another_projects_allocation_is_answered_as_missing(manager):
    with pytest.raises(exception.AllocationNotFound):
        _call(manager.update_allocation, OTHER_MEMBER, 'a1', {'name': 'x'})
    manager.node_writes.update_allocation.assert_not_called()


def test_another_projects_node_is_answered_as_missing(manager):
    with pytest.raises(exception.NodeNotFound):
        _call(manager.set_node_provision_state, OTHER_MEMBER, 'n1', 'deleted')
    manager.node_writes.set_provision_state.assert_not_called()


def test_a_token_without_scope_is_refused(manager):
    with pytest.raises(exception.Forbidden):
        _call(manager.update_allocation, _ctx(['admin', 'member'], project=None), 'a1', {})


def _forged_admin():
    forged = _ctx([], project='p1')
    forged.is_admin = True
    return forged


@pytest.mark.parametrize('method,args,delegate', PLACEMENT + BAREMETAL)
def test_an_is_admin_flag_is_no_bypass(manager, method, args, delegate):
    """``is_admin`` travels in the RPC context: no write of either API believes it.

    Mutation this catches (issue 39, gap 2): an ``if ctx.is_admin: return``
    bypass in the authorizer's rule check (``Authorizer._check``) -- before,
    only claim_resources was tried, so a bare-metal bypass passed every test.
    """
    write = _delegate(manager, delegate)
    with pytest.raises((exception.Forbidden, exception.NotFound)):
        _call(getattr(manager, method), _forged_admin(), *args)
    write.assert_not_called()


def test_several_consumers_need_the_manage_rule(manager, conf):
    manager.authz.placement.set_rules(
        authz.oslo_policy.Rules.from_dict({'placement:allocations:manage': '!'}),
        overwrite=False)
    manager.authz.placement.load_rules = lambda *a, **k: None    # keep the override
    two = [{'uuid': u, 'allocations': {}, 'project_id': 'p', 'user_id': 'u'} for u in 'cd']
    with pytest.raises(exception.Forbidden):
        _call(manager.claim_resources, PROJECT_ADMIN, 't', two)
    _call(manager.claim_resources, PROJECT_ADMIN, 't', two[:1])     # update passes for one
    manager.claims.claim_resources.assert_called_once()


def test_backfill_sets_the_owner_of_a_project_scoped_caller(manager):
    _call(manager.backfill_allocation, OWNER_MEMBER, {'uuid': A1}, 'n1')
    new = manager.node_writes.backfill.call_args[0][1]
    assert new.owner == 'p1'


def test_backfill_for_another_owner_needs_create_restricted(manager):
    with pytest.raises(exception.Forbidden) as err:
        _call(manager.backfill_allocation, OWNER_MEMBER, {'uuid': A1, 'owner': 'p2'}, 'n1')
    assert bm.ALLOCATION_CREATE_RESTRICTED in err.value.message
    manager.node_writes.backfill.assert_not_called()


def test_another_projects_row_is_answered_none_and_left_alone(manager):
    """A refused caller changes nothing and learns nothing of the row."""
    assert _call(manager.create_allocation, OTHER_MEMBER, 7, wait=1.0) is None
    manager.set_error.assert_not_called()
    manager.allocation_queue.run.assert_not_called()


def test_a_refused_cast_writes_and_queues_nothing(manager):
    with pytest.raises(exception.Forbidden):
        _call(manager.create_allocation, NO_ROLE, 7)
    assert _call(manager.create_allocation, OTHER_MEMBER, 7) is None
    manager.set_error.assert_not_called()
    manager.allocation_queue.submit.assert_not_called()


def test_create_allocations_answers_refused_rows_none(manager):
    assert _call(manager.create_allocations, OTHER_MEMBER, [7, 8], 1.0) == [None, None]
    manager.allocation_queue.run_many.assert_not_called()
    manager.set_error.assert_not_called()
    assert _call(manager.create_allocations, OWNER_MEMBER, [7, 8], 1.0) == [{'id': 7}, {'id': 8}]


def test_create_allocations_reads_no_row_for_a_caller_any_owner_will_do(manager,
                                                                        monkeypatch):
    def owners(ctx, ids):
        raise AssertionError('rows read for a caller whose rule does not look at them')
    monkeypatch.setattr(manager_mod.node_alloc, 'owners', owners)
    assert _call(manager.create_allocations, ADMIN, [7, 8], 1.0) == [{'id': 7}, {'id': 8}]
    manager.set_error.assert_not_called()


def test_create_allocations_refused_by_the_rule_is_forbidden(manager):
    with pytest.raises(exception.Forbidden):
        _call(manager.create_allocations, READER, [7, 8], 1.0)
    manager.set_error.assert_not_called()
    manager.allocation_queue.run_many.assert_not_called()


def test_node_patch_rules_follow_the_changed_fields():
    assert bm.update_rules({'instance_uuid': None}) == [
        bm.NODE_UPDATE_FIELDS['instance_uuid']]
    assert bm.update_rules({'instance_uuid': None, 'maintenance': True}) == [
        bm.NODE_UPDATE, bm.NODE_UPDATE_FIELDS['instance_uuid']]


def test_the_context_carries_the_project_name_over_rpc():
    """Ironic's service_role matches the service project by name."""
    sent = SERVICE.to_dict()
    assert berth_context.RequestContext.from_dict(sent).project_name == 'service'


@pytest.mark.parametrize('api', ['placement', 'baremetal'])
def test_the_rest_path_answers_a_conductors_refusal_with_403(api):
    """A Forbidden coming back over RPC is a 403 in both APIs, never a 500."""
    import importlib
    fault = importlib.import_module('api.%s.fault' % api)
    err = fault.from_domain(exception.Forbidden(rule='baremetal:node:delete'))
    assert err.status == 403
    assert err.detail == 'baremetal:node:delete is disallowed by policy'


def test_the_owners_project_admin_deletes_its_node_as_over_rest(manager):
    """destroy_node takes the API's self_owned_node rule ([api]
    project_admin_can_manage_own_nodes, default on): a project admin deletes
    its project's node held by an allocation; off, only ``node:delete``."""
    owner_admin = _ctx(['admin', 'member', 'reader'], project='p1')
    _call(manager.destroy_node, owner_admin, 'n1')
    manager.node_writes.destroy_node.assert_called_once()
    with pytest.raises(exception.NodeNotFound):
        _call(manager.destroy_node, _ctx(['admin', 'member', 'reader'], project='p2'), 'n1')
    with pytest.raises(exception.Forbidden):
        _call(manager.destroy_node, OWNER_MEMBER, 'n1')
    manager.conf.set_override('project_admin_can_manage_own_nodes', False, group='api')
    with pytest.raises(exception.Forbidden) as err:
        _call(manager.destroy_node, owner_admin, 'n1')
    assert err.value.message == 'baremetal:node:delete is disallowed by policy'
    manager.node_writes.destroy_node.assert_called_once()
