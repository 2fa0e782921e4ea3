"""Node fields with Ironic's rules: driver interfaces (and their reset), protected,
retired and fault, with their microversion gates, state rules and status codes."""

import pytest

from common import context as berth_context
from objects.baremetal import node as node_obj
from tests.functional import baremetal_helpers as h

IFACES = ('bios', 'boot', 'console', 'deploy', 'inspect', 'management', 'network',
          'power', 'raid', 'rescue', 'storage', 'vendor')
DEFAULTS = {'bios': 'fake', 'boot': 'fake', 'console': 'fake', 'deploy': 'fake',
            'inspect': 'fake', 'management': 'fake', 'network': 'noop',
            'power': 'fake', 'raid': 'fake', 'rescue': 'fake', 'storage': 'noop',
            'vendor': 'fake'}


def _patch(bm, ident, version=None, query='', **fields):
    ops = [{'op': 'remove', 'path': '/%s' % k} if v is h else
           {'op': 'add', 'path': '/%s' % k, 'value': v} for k, v in fields.items()]
    return bm.patch('/v1/nodes/%s%s' % (ident, query), json=ops, version=version)


def _node(bm, ident):
    return bm.get('/v1/nodes/%s' % ident).json()


# --- driver interfaces ------------------------------------------------------------

def test_create_stores_the_defaults_and_takes_enabled_ones(bm):
    node = h.make_node(bm, 'n', state='enroll')
    assert {k: node['%s_interface' % k] for k in IFACES} == DEFAULTS
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'name': 'm',
                                      'deploy_interface': 'fake',
                                      'network_interface': 'flat',
                                      'console_interface': 'no-console',
                                      'raid_interface': None})
    assert resp.status_code == 201, resp.text
    made = resp.json()
    assert made['network_interface'] == 'flat'
    assert made['console_interface'] == 'no-console' and made['raid_interface'] == 'fake'


def test_create_with_an_unknown_interface_is_400(bm):
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'boot_interface': 'pxe'})
    assert resp.status_code == 400
    assert h.fault(resp) == ("Could not find the following interface in the "
                             "'ironic.hardware.interfaces.boot' entrypoint: pxe. "
                             "Valid interfaces are ['fake'].")
    assert bm.get('/v1/nodes').json()['nodes'] == []


@pytest.mark.parametrize('field,too_old', [
    ('network_interface', '1.19'), ('boot_interface', '1.30'),
    ('vendor_interface', '1.30'), ('storage_interface', '1.32'),
    ('rescue_interface', '1.37'), ('bios_interface', '1.39'),
    ('retired', '1.60'), ('retired_reason', '1.60'),
])
def test_fields_newer_than_the_version_are_406_and_hidden(bm, field, too_old):
    value = True if field == 'retired' else 'fake' if field != 'network_interface' \
        else 'noop'
    if field == 'retired_reason':
        value = 'why'
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', field: value},
                   version=too_old)
    assert resp.status_code == 406, resp.text
    assert bm.get('/v1/nodes').json()['nodes'] == []
    node = h.make_node(bm, 'n', state='enroll')
    assert field not in bm.get('/v1/nodes/n', version=too_old).json()
    assert field in node
    assert _patch(bm, 'n', version=too_old, **{field: value}).status_code == 406
    assert _node(bm, 'n') == node


def test_patch_sets_removes_and_refuses_interfaces(bm):
    h.make_node(bm, 'n', state='manageable')
    resp = _patch(bm, 'n', console_interface='no-console', vendor_interface='no-vendor')
    assert resp.status_code == 200, resp.text
    assert resp.json()['console_interface'] == 'no-console'
    # removing goes back to the default
    resp = _patch(bm, 'n', console_interface=h)
    assert resp.json()['console_interface'] == 'fake'
    assert _node(bm, 'n')['vendor_interface'] == 'no-vendor'
    resp = _patch(bm, 'n', storage_interface='cinder')
    assert resp.status_code == 400
    assert _node(bm, 'n')['storage_interface'] == 'noop'


def test_interfaces_change_only_in_stable_states_or_maintenance(bm):
    node = h.make_node(bm, 'n', state='active')
    resp = _patch(bm, 'n', deploy_interface='fake', console_interface='no-console')
    assert resp.status_code == 409
    assert "can not have console_interface updated" in h.fault(resp)
    assert _node(bm, 'n')['console_interface'] == 'fake'
    assert bm.put('/v1/nodes/n/maintenance', json={}).status_code == 202
    resp = _patch(bm, 'n', console_interface='no-console')
    assert resp.status_code == 200 and resp.json()['console_interface'] == 'no-console'
    assert node['provision_state'] == 'active'


def test_reset_interfaces_gates(bm):
    h.make_node(bm, 'n', state='enroll')
    resp = _patch(bm, 'n', version='1.44', query='?reset_interfaces=true',
                  extra={'a': 1})
    assert resp.status_code == 406
    resp = _patch(bm, 'n', query='?reset_interfaces=true', extra={'a': 1})
    assert resp.status_code == 400
    assert h.fault(resp) == ("The reset_interfaces parameter can only be used when "
                             "changing the node's driver.")
    resp = _patch(bm, 'n', query='?reset_interfaces=maybe', driver='fake-hardware')
    assert resp.status_code == 400
    resp = bm.patch('/v1/nodes/n?reset_interfaces=true', json={'not': 'a list'})
    assert resp.status_code == 400
    assert _node(bm, 'n')['extra'] == {}


def test_a_driver_berth_does_not_offer_is_refused_on_patch(bm):
    h.make_node(bm, 'n', state='enroll')
    resp = _patch(bm, 'n', driver='ipmi')
    assert resp.status_code == 400
    assert h.fault(resp) == (
        'No valid host was found. Reason: No conductor service registered which '
        'supports driver ipmi for conductor group "". Ensure the driver is valid '
        'and enabled.')
    assert _node(bm, 'n')['driver'] == 'fake-hardware'


def test_reset_interfaces_moves_an_older_node_to_the_new_drivers_defaults(bm, berth):
    # a node an older release enrolled with another driver name, before the
    # interface columns existed (the objects layer: the API refuses ipmi now)
    ctx = berth_context.admin_context(berth.db)
    old = node_obj.create(ctx, {'driver': 'ipmi', 'name': 'old'})
    assert _node(bm, 'old')['boot_interface'] is None
    resp = _patch(bm, 'old', query='?reset_interfaces=false', driver='fake-hardware',
                  console_interface='no-console')
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body['driver'] == 'fake-hardware' and body['console_interface'] == 'no-console'
    stored = node_obj.get(ctx, old.uuid)
    assert stored.boot_interface is None         # not reset: shown as the default
    node_obj.update(ctx, old.uuid, {'driver': 'ipmi', 'console_interface': None})
    resp = _patch(bm, 'old', query='?reset_interfaces=true', driver='fake-hardware',
                  console_interface='no-console')
    assert resp.status_code == 200, resp.text
    stored = node_obj.get(ctx, old.uuid)
    assert {k: getattr(stored, '%s_interface' % k) for k in IFACES} == dict(
        DEFAULTS, console='no-console')


# --- protected ----------------------------------------------------------------------

def test_protect_only_active_and_then_no_undeploy_rebuild_or_delete(bm):
    h.make_node(bm, 'n', state='available')
    resp = _patch(bm, 'n', protected=True)
    assert resp.status_code == 409
    assert h.fault(resp).startswith('Node ') and "'active' or 'rescue'" in h.fault(resp)
    assert bm.put('/v1/nodes/n/states/provision',
                  json={'target': 'active'}).status_code == 202
    resp = _patch(bm, 'n', protected_reason='why')
    assert resp.status_code == 400
    assert h.fault(resp) == ('The protected_reason field can only be set when '
                             'protected is True')
    resp = _patch(bm, 'n', protected=True, protected_reason='reason!')
    assert resp.status_code == 200, resp.text
    assert resp.json()['protected'] is True
    assert resp.json()['protected_reason'] == 'reason!'
    for verb in ('deleted', 'undeploy', 'rebuild'):
        resp = bm.put('/v1/nodes/n/states/provision', json={'target': verb})
        assert resp.status_code == 403, verb
        assert 'is protected and cannot be undeployed, rebuilt or deleted' in h.fault(resp)
    assert _node(bm, 'n')['provision_state'] == 'active'
    assert bm.put('/v1/nodes/n/maintenance', json={}).status_code == 202
    assert bm.delete('/v1/nodes/n').status_code == 403
    assert _node(bm, 'n')['protected'] is True
    # unprotecting clears the reason, and the node can go
    resp = _patch(bm, 'n', protected=False)
    assert resp.json()['protected'] is False and resp.json()['protected_reason'] is None
    assert bm.put('/v1/nodes/n/states/provision',
                  json={'target': 'rebuild'}).status_code == 202
    assert bm.delete('/v1/nodes/n').status_code == 204


def test_protected_needs_1_48(bm):
    h.make_node(bm, 'n', state='active')
    assert _patch(bm, 'n', version='1.47', protected=True).status_code == 406
    assert 'protected' not in bm.get('/v1/nodes/n', version='1.47').json()
    assert _node(bm, 'n')['protected'] is False
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'protected': True})
    assert resp.status_code == 400         # not a create field, as in Ironic


def test_protected_accepts_boolean_strings_and_refuses_others(bm):
    h.make_node(bm, 'n', state='active')
    assert _patch(bm, 'n', protected='true').json()['protected'] is True
    assert _patch(bm, 'n', protected='maybe').status_code == 400
    assert _node(bm, 'n')['protected'] is True


# --- retired ------------------------------------------------------------------------

def test_retire_rules_filter_and_provide_refused(bm):
    h.make_node(bm, 'avail', state='available')
    h.make_node(bm, 'man', state='manageable')
    resp = _patch(bm, 'avail', retired=True)
    assert resp.status_code == 409
    assert "can not have 'retired' set in provision state 'available'" in h.fault(resp)
    resp = _patch(bm, 'man', retired_reason='old')
    assert resp.status_code == 400
    resp = _patch(bm, 'man', retired=True, retired_reason='old')
    assert resp.status_code == 200, resp.text
    assert resp.json()['retired'] is True and resp.json()['retired_reason'] == 'old'
    names = lambda q: sorted(n['name'] for n in bm.get('/v1/nodes' + q).json()['nodes'])  # noqa: E731
    assert names('?retired=true') == ['man'] and names('?retired=false') == ['avail']
    assert bm.get('/v1/nodes?retired=maybe').status_code == 400
    resp = bm.put('/v1/nodes/man/states/provision', json={'target': 'provide'})
    assert resp.status_code == 400
    assert h.fault(resp) == ("The providing operation can't be performed on node %s "
                             "because it is retired." % _node(bm, 'man')['uuid'])
    assert _node(bm, 'man')['provision_state'] == 'manageable'
    resp = _patch(bm, 'man', retired=False)
    assert resp.json()['retired'] is False and resp.json()['retired_reason'] is None
    assert bm.put('/v1/nodes/man/states/provision',
                  json={'target': 'provide'}).status_code == 202


def test_retired_at_create(bm):
    resp = bm.post('/v1/nodes', json={'driver': 'fake-hardware', 'retired': True,
                                      'retired_reason': 'eol'})
    assert resp.status_code == 201, resp.text
    assert resp.json()['retired'] is True and resp.json()['retired_reason'] == 'eol'


# --- fault --------------------------------------------------------------------------

def test_fault_is_shown_filtered_and_read_only(bm):
    node = h.make_node(bm, 'n', state='enroll')
    assert node['fault'] is None
    assert 'fault' not in bm.get('/v1/nodes/n', version='1.41').json()
    assert bm.get('/v1/nodes?fault=power%20failure').json()['nodes'] == []
    resp = bm.get('/v1/nodes?fault=somefake')
    assert resp.status_code == 400
    assert h.fault(resp).startswith('Unrecognized fault "somefake" is specified')
    assert bm.get('/v1/nodes?fault=power%20failure', version='1.41').status_code == 406
    assert _patch(bm, 'n', fault='power failure').status_code == 400
    assert _node(bm, 'n')['fault'] is None


# --- maintenance by PATCH (as tempest sets it) ------------------------------------------

def test_maintenance_by_patch_and_leaving_clears_the_reason(bm):
    h.make_node(bm, 'n', state='active')
    assert bm.put('/v1/nodes/n/maintenance', json={'reason': 'why'}).status_code == 202
    resp = _patch(bm, 'n', maintenance=False)
    assert resp.status_code == 200, resp.text
    assert resp.json()['maintenance'] is False
    assert resp.json()['maintenance_reason'] is None
    resp = _patch(bm, 'n', maintenance='true', protected=True)
    assert resp.status_code == 200, resp.text
    assert resp.json()['maintenance'] is True and resp.json()['protected'] is True
    assert bm.delete('/v1/nodes/n').status_code == 403
    assert _patch(bm, 'n', maintenance='sometimes').status_code == 400
    assert _node(bm, 'n')['maintenance'] is True


def test_a_protected_allocated_node_is_refused_by_its_conductor_too(bm):
    """``deleted`` on a node an allocation holds is the conductor's write (RPC):
    the refusal crosses the bus as the same 403."""
    h.make_node(bm, 'n', state='available')
    alloc = h.allocate(bm, resource_class='gold')
    assert alloc['state'] == 'active' and alloc['node_uuid'] == _node(bm, 'n')['uuid']
    assert bm.put('/v1/nodes/n/states/provision',
                  json={'target': 'active'}).status_code == 202
    assert _patch(bm, 'n', protected=True).status_code == 200
    resp = bm.put('/v1/nodes/n/states/provision', json={'target': 'deleted'})
    assert resp.status_code == 403, resp.text
    assert 'is protected' in h.fault(resp)
    node = _node(bm, 'n')
    assert node['provision_state'] == 'active'
    assert node['allocation_uuid'] == alloc['uuid']
    assert bm.get('/v1/allocations/%s' % alloc['uuid']).status_code == 200
