"""Unit tests of Ironic's node field rules (api.baremetal.node_fields) and of the
one list of drivers berth accepts and describes."""

import types

import pytest
import webob

from api.baremetal import fault, node_fields
from api.baremetal import version as api_version
from api.baremetal.schemas import driver as driver_schema
from api.baremetal.schemas import node as node_schema
from common import exception


def _req(version='1.65', query=''):
    req = webob.Request.blank('/v1/nodes/n' + query)
    req.version = api_version.Version.parse(version)
    return req


def _node(state='active', **kw):
    values = dict(uuid='n1', driver='fake-hardware', provision_state=state,
                  maintenance=False, protected=False, retired=False, conductor_group='')
    values.update(kw)
    return types.SimpleNamespace(**values)


def test_one_list_of_drivers_and_their_interfaces():
    assert set(node_schema.DRIVERS) == set(driver_schema.HARDWARE_TYPES)
    for kinds in driver_schema.HARDWARE_TYPES.values():
        assert set(kinds) == set(driver_schema.INTERFACE_VERSIONS)
        for enabled, default in kinds.values():
            assert default in enabled
    assert set(node_schema.INTERFACE_FIELDS) == set(node_fields.INTERFACE_FIELDS)


@pytest.mark.parametrize('state,ok', [('active', True), ('rescue', True),
                                      ('available', False), ('manageable', False)])
def test_protect_only_active_or_rescue(state, ok):
    changed = {'protected': True}
    if ok:
        node_fields.on_update(_req(), _node(state), changed, False)
        assert changed['protected'] is True
    else:
        with pytest.raises(exception.NodeInvalidState, match="'active' or 'rescue'"):
            node_fields.on_update(_req(), _node(state), changed, False)


def test_unprotecting_clears_the_reason_and_a_reason_needs_protection():
    changed = {'protected': 'false'}
    node_fields.on_update(_req(), _node(protected=True), changed, False)
    assert changed == {'protected': False, 'protected_reason': None}
    with pytest.raises(fault.BadRequest, match='only be set when protected is True'):
        node_fields.on_update(_req(), _node(), {'protected_reason': 'x'}, False)
    changed = {'protected_reason': 'x'}
    node_fields.on_update(_req(), _node(protected=True), changed, False)
    assert changed == {'protected_reason': 'x'}


@pytest.mark.parametrize('state,ok', [('available', False), ('manageable', True),
                                      ('active', True), ('enroll', True)])
def test_retire_anywhere_but_available(state, ok):
    changed = {'retired': True, 'retired_reason': 'eol'}
    if ok:
        node_fields.on_update(_req(), _node(state), changed, False)
    else:
        with pytest.raises(exception.NodeInvalidState, match="provision state 'available'"):
            node_fields.on_update(_req(), _node(state), changed, False)


def test_interfaces_checked_defaulted_and_reset():
    changed = {'boot_interface': None, 'console_interface': 'no-console'}
    node_fields.on_update(_req(), _node('manageable'), changed, False)
    assert changed == {'boot_interface': 'fake', 'console_interface': 'no-console'}
    with pytest.raises(fault.BadRequest, match="Valid interfaces are \\['fake', 'noop'\\]"):
        node_fields.on_update(_req(), _node('manageable'), {'storage_interface': 'cinder'},
                              False)
    changed = {'driver': 'fake-hardware', 'raid_interface': 'no-raid'}
    node_fields.on_update(_req(), _node('enroll', driver='ipmi'), changed, True)
    assert changed == dict(driver_schema.default_interfaces('fake-hardware'),
                           driver='fake-hardware', raid_interface='no-raid')
    with pytest.raises(exception.NodeInvalidState, match='can not have boot_interface'):
        node_fields.on_update(_req(), _node('active'), {'boot_interface': 'fake'}, False)
    node_fields.on_update(_req(), _node('active', maintenance=True),
                          {'boot_interface': 'fake'}, False)


def test_create_fills_every_default_and_gates_by_version():
    values = {'driver': 'fake-hardware', 'network_interface': 'flat'}
    node_fields.on_create(_req(), values)
    assert values == dict(driver_schema.default_interfaces('fake-hardware'),
                          driver='fake-hardware', network_interface='flat')
    with pytest.raises(fault.NotAcceptable, match='needs API version 1.40'):
        node_fields.on_create(_req('1.39'), {'driver': 'fake-hardware',
                                             'bios_interface': 'fake'})


def test_fault_filter():
    assert node_fields.fault_filter(_req()) is None
    assert node_fields.fault_filter(_req(query='?fault=clean+failure')) == 'clean failure'
    with pytest.raises(fault.BadRequest, match='Unrecognized fault "x"'):
        node_fields.fault_filter(_req(query='?fault=x'))
    with pytest.raises(fault.NotAcceptable):
        node_fields.fault_filter(_req('1.41', query='?fault=clean+failure'))


def test_shown_interfaces_default_a_null_column():
    node = _node(**{f: None for f in node_fields.INTERFACE_FIELDS})
    assert node_fields.shown_interfaces(node) == driver_schema.default_interfaces(
        'fake-hardware')
    other = _node(driver='ipmi', **{f: None for f in node_fields.INTERFACE_FIELDS})
    assert set(node_fields.shown_interfaces(other).values()) == {None}
