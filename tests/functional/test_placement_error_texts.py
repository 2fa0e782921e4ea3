"""Upstream Placement's error wording and four small wire behaviours.

One case per row of shared/reference/placement-error-texts.md (upstream
Placement 16.0.0, the request of its functional suite that met the text):
the status, the upstream text as a substring of ``errors[0].detail`` (berth
may say more after it) and, where the row pins one, the error code.  Then
the behaviours: a repeated ``limit`` / ``group_policy`` takes the first
value, errors are HTML or plain text when the client does not accept JSON,
``provider_summaries[].traits`` in trait id order, and in-use classes named in
Placement's class id order (the rows ``fail to delete all inventory``).

Rows share one berth; each builds its own providers and names, so they are
independent of each other and of their order.
"""

import re
import uuid as uuidlib

import pytest

from tests import fixtures

AC = '/allocation_candidates'
RPS = '/resource_providers'
IN_TRAITS = "The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only supported since microversion 1.39."
FORM_FORBIDDEN = ("Invalid query string parameters: Expected 'required' parameter value of "
                  "the form: HW_CPU_X86_VMX,!CUSTOM_MAGIC.")
FORM_PLAIN = ("Invalid query string parameters: Expected 'required' parameter value of "
              "the form: HW_CPU_X86_VMX,CUSTOM_MAGIC.")
NEG_AGG = 'Forbidden member_of parameters are not supported in the specified microversion'
BAD_TRAIT = ('The trait is invalid. A valid trait must be no longer than 255 characters, '
             'start with the prefix "CUSTOM_" and use following characters: '
             '"A"-"Z", "0"-"9" and "_"')
SUFFIX_REGEX = '^member_of([a-zA-Z0-9_-]{1,64})?$'
THREE = 'resources=VCPU:1,MEMORY_MB:1024,DISK_GB:100'
BAD_VALUE = 'placement.query.bad_value'
INUSE = 'placement.inventory.inuse'


def _new():
    return str(uuidlib.uuid4())


@pytest.fixture(scope='module')
def client(tmp_path_factory):
    conf = fixtures.make_conf(tmp_path_factory.mktemp('error-texts'))
    fixtures.fresh_database(tmp_path_factory.getbasetemp(), conf, scope='module')
    stack = fixtures.start_embedded(conf)
    c = fixtures.PlacementClient(stack.placement_url, version='latest')
    yield c
    c.close()
    stack.stop()


# -- state the rows need ------------------------------------------------------------

def _provider(c, inventories=(), parent=None, name=None):
    """A provider; ``inventories`` ((class, total), ...) POSTed one by one, in order."""
    uuid = _new()
    body = {'name': name or 'rp-' + uuid, 'uuid': uuid}
    if parent:
        body['parent_provider_uuid'] = parent
    resp = c.post(RPS, version='1.20', json=body)
    assert resp.status_code == 200, resp.text
    for rc, total in inventories:
        resp = c.post('%s/%s/inventories' % (RPS, uuid), json={
            'resource_class': rc, 'total': total})
        assert resp.status_code == 201, resp.text
    return uuid


def _generation(c, rp):
    return c.get('%s/%s' % (RPS, rp)).json()['generation']


def _put_alloc(c, consumer, rp, resources, generation=None):
    resp = c.put('/allocations/%s' % consumer, version='1.28', json={
        'allocations': {rp: {'resources': resources}}, 'project_id': 'p', 'user_id': 'u',
        'consumer_generation': generation})
    assert resp.status_code == 204, resp.text


def _custom_class(c):
    name = 'CUSTOM_' + uuidlib.uuid4().hex.upper()
    assert c.put('/resource_classes/%s' % name, version='1.7').status_code == 201
    return name


def setup_none(c):
    return {}


def setup_rp(c):
    """A provider with VCPU, MEMORY_MB, DISK_GB and IPV4_ADDRESS."""
    rp = _provider(c, [('VCPU', 8), ('MEMORY_MB', 4096), ('DISK_GB', 1000),
                       ('IPV4_ADDRESS', 253)])
    return {'rp': rp, 'gen': _generation(c, rp)}


def setup_bare(c):
    rp = _provider(c)
    return {'rp': rp, 'gen': _generation(c, rp)}


def setup_tree(c):
    parent = _provider(c)
    return {'parent': parent, 'child': _provider(c, parent=parent), 'other': _provider(c)}


def setup_in_use(c):
    """VCPU's inventory record is made before DISK_GB's; both are allocated."""
    rp = _provider(c, [('VCPU', 8), ('DISK_GB', 100)])
    _put_alloc(c, _new(), rp, {'VCPU': 1, 'DISK_GB': 10})
    return {'rp': rp, 'gen': _generation(c, rp)}


def setup_consumer_at_3(c):
    rp = _provider(c, [('VCPU', 8)])
    consumer = _new()
    gen = None
    for amount in (1, 2, 3):
        _put_alloc(c, consumer, rp, {'VCPU': amount}, gen)
        gen = c.get('/allocations/%s' % consumer, version='1.28').json()['consumer_generation']
    assert gen == 3
    return {'rp': rp, 'consumer': consumer}


def setup_class_with_inventory(c):
    rc = _custom_class(c)
    _provider(c, [(rc, 10)])
    return {'rc': rc}


def setup_class_with_allocations(c):
    rc = _custom_class(c)
    rp = _provider(c, [(rc, 10)])
    _put_alloc(c, _new(), rp, {rc: 1})
    return {'rc': rc}


def setup_two_classes(c):
    return {'rc': _custom_class(c), 'rc2': _custom_class(c)}


def setup_trait_rp(c):
    assert c.put('/traits/CUSTOM_TRAIT_1').status_code in (201, 204)
    rp = _provider(c)
    return {'rp': rp, 'stale': _generation(c, rp) + 5}


def setup_reshape(c):
    rp = _provider(c, [('VCPU', 8), ('DISK_GB', 100)])
    gen = _generation(c, rp)
    return {'rp': rp, 'gen': gen, 'stale': gen - 1}


SETUPS = {f.__name__[len('setup_'):]: f for f in (
    setup_none, setup_rp, setup_bare, setup_tree, setup_in_use, setup_consumer_at_3,
    setup_class_with_inventory, setup_class_with_allocations, setup_two_classes,
    setup_trait_rp, setup_reshape)}


def row(name, setup, method, path, version, status, expect, body=None, code=None,
        headers=None):
    """One table row: ``expect`` is one substring or a tuple of them ({names} filled)."""
    return pytest.param(setup, method, path, version, body, headers, status,
                        (expect,) if isinstance(expect, str) else expect, code, id=name)


def _alloc_18(**extra):
    body = {'allocations': [{'resource_provider': {'uuid': '{rp}'},
                             'resources': {'DISK_GB': 10}}]}
    body.update(extra)
    return body


def _inventory(**values):
    return dict({'resource_class': 'DISK_GB', 'total': 2048, 'reserved': 512,
                 'min_unit': 10, 'max_unit': 1024, 'step_size': 10,
                 'allocation_ratio': 1.0}, **values)


ROWS = [
    # -- GET /allocation_candidates ------------------------------------------------
    row('in-traits-before-1.39', 'none', 'GET',
        AC + '?required=in:CUSTOM_FOO,HW_CPU_X86_MMX&resources=VCPU:1', '1.38', 400, IN_TRAITS),
    row('in-traits-before-1.39-named-group', 'none', 'GET',
        AC + '?requiredX=in:CUSTOM_FOO,HW_CPU_X86_MMX&resourcesX=VCPU:1', '1.38', 400,
        IN_TRAITS),
    row('member_of-before-1.21', 'none', 'GET',
        AC + '?resources=VCPU:1&member_of=in:{agga},{aggb}', '1.18', 400,
        ('Invalid query string parameters', "'member_of' was unexpected")),
    row('multiple-member_of-without-in', 'none', 'GET',
        AC + '?' + THREE + '&member_of={agga},{aggb}', '1.24', 400,
        "Multiple values for 'member_of' must be prefixed with the 'in:' or '!in:' keyword "
        "using the valid microversion."),
    row('forbidden-agg-before-1.32', 'none', 'GET',
        AC + '?resources=VCPU:1&member_of=!{agga}', '1.31', 400, NEG_AGG),
    row('forbidden-agg-in-before-1.32', 'none', 'GET',
        AC + '?resources=VCPU:1&member_of=!in:{agga}', '1.31', 400, NEG_AGG),
    row('forbidden-agg-in-before-1.32-literal', 'none', 'GET',
        AC + '?resources=VCPU:1&member_of=!in:282d469e-29e2-4a8a-8f2e-31b3202b696a', '1.31',
        400, NEG_AGG),
    row('forbidden-agg-orphaned', 'none', 'GET', AC + '?member_of=!{agga}', '1.32', 400,
        'All member_of parameters must be associated with resources'),
    row('root_required-conflict', 'none', 'GET',
        AC + '?resources=VCPU:1&root_required=HW_CPU_X86_AVX2,HW_CPU_X86_SSE,!HW_CPU_X86_AVX2',
        '1.35', 400,
        'Conflicting required and forbidden traits found in root_required: HW_CPU_X86_AVX2',
        code=BAD_VALUE),
    row('limit-before-1.16', 'none', 'GET', AC + '?resources=VCPU:1&limit=5', '1.15', 400,
        ('Invalid query string parameters', "'limit' was unexpected")),
    row('required-before-1.17', 'none', 'GET', AC + '?' + THREE + '&required=HW_CPU_X86_SSE',
        '1.16', 400, ('Invalid query string parameters', "'required' was unexpected")),
    row('empty-required-1.22', 'none', 'GET', AC + '?' + THREE + '&required=', '1.22', 400,
        FORM_FORBIDDEN),
    row('forbidden-trait-before-1.22', 'none', 'GET',
        AC + '?' + THREE + '&required=!CUSTOM_MAGIC', '1.17', 400, FORM_PLAIN),
    row('in_tree-not-a-uuid', 'none', 'GET',
        AC + '?resources=VCPU:1,SRIOV_NET_VF:4&in_tree=life-is-beautiful', '1.31', 400,
        "Expected 'in_tree' parameter to be a format of uuid"),
    row('in_tree-granular-orphaned', 'tree', 'GET',
        AC + '?resources=VCPU:1&in_tree1={parent}', '1.31', 400,
        'All request groups must specify resources.'),
    row('resourceless-without-any-resources', 'none', 'GET',
        AC + '?member_of1={agga}&group_policy=none&member_of1={agga}&group_policy=none',
        '1.36', 400, 'There must be at least one resources or resources[$S] parameter.',
        code='placement.query.missing_value'),
    row('same_subtree-missing-underscores', 'none', 'GET',
        AC + '?resources_COMPUTE=VCPU:1&resources_ACCEL=FPGA:1&same_subtree=COMPUTE,_ACCEL'
        '&group_policy=none', '1.36', 400,
        'Real suffixes should be specified in `same_subtree`:', code=BAD_VALUE),
    row('same_subtree-empty-suffix', 'none', 'GET',
        AC + '?resources_COMPUTE=VCPU:1&resources_ACCEL=FPGA:1&same_subtree=_COMPUTE,,_ACCEL'
        '&group_policy=none', '1.36', 400,
        'Empty string (unsuffixed group) can not be specified in `same_subtree`',
        code=BAD_VALUE),
    row('numbered-resources-before-1.25', 'none', 'GET',
        AC + '?resources=MEMORY_MB:1024&resources1=VCPU:1', '1.24', 400,
        ('Invalid query string parameters', "'resources1' was unexpected")),
    row('numbered-required-before-1.25', 'none', 'GET',
        AC + '?resources=MEMORY_MB:1024&required2=HW_CPU_X86_AVX2', '1.24', 400,
        ('Invalid query string parameters', "'required2' was unexpected")),
    row('numbered-member_of-before-1.25', 'none', 'GET',
        AC + '?resources=MEMORY_MB:1024&member_of3={aggb}', '1.24', 400,
        ('Invalid query string parameters', "'member_of3' was unexpected")),
    row('group_policy-before-1.25', 'none', 'GET',
        AC + '?resources=VCPU:1&group_policy=isolate', '1.24', 400,
        ('Invalid query string parameters', "'group_policy' was unexpected")),
    row('bogus-suffix', 'none', 'GET', AC + '?resources1@=VCPU:1', '1.33', 400,
        ("'resources1@' does not match any of the regexes", SUFFIX_REGEX)),
    row('bogus-suffix-length', 'none', 'GET', AC + '?resources_%s=VCPU:1' % ('01234567' * 8),
        '1.33', 400,
        ("'resources_%s' does not match any of the regexes" % ('01234567' * 8), SUFFIX_REGEX)),
    row('orphaned-traits-keys', 'none', 'GET', AC + '?required=FOO&required1=BAR', '1.25',
        400, 'Found the following orphaned traits keys: required, required1'),
    row('orphaned-member_of-keys', 'none', 'GET',
        AC + '?member_of={agga}&member_of3={aggc}', '1.25', 400,
        'Found the following orphaned member_of keys: member_of, member_of3'),
    row('at-least-one-request-group', 'none', 'GET', AC + '?group_policy=isolate', '1.25', 400,
        'At least one request group (`resources` or `resources{$S}`) is required.'),

    # -- allocations ---------------------------------------------------------------
    row('put-allocation-no-project-or-user', 'rp', 'PUT', '/allocations/{new}', '1.8', 400,
        "Failed validating 'required' in schema", body=_alloc_18()),
    row('put-allocation-no-project', 'rp', 'PUT', '/allocations/{new}', '1.8', 400,
        "Failed validating 'required' in schema", body=_alloc_18(user_id='u')),
    row('put-allocation-no-user', 'rp', 'PUT', '/allocations/{new}', '1.8', 400,
        "Failed validating 'required' in schema", body=_alloc_18(project_id='p')),
    row('new-consumer-generation-not-null', 'rp', 'PUT', '/allocations/{new}', '1.28', 409,
        ('consumer generation conflict', 'expected null but got 5'),
        body={'allocations': {'{rp}': {'resources': {'DISK_GB': 10}}}, 'project_id': 'p',
              'user_id': 'u', 'consumer_generation': 5},
        code='placement.concurrent_update'),
    row('post-allocations-stale-consumer-generation', 'consumer_at_3', 'POST',
        '/allocations', '1.28', 409, 'consumer generation conflict - expected 3 but got 1',
        body={'{consumer}': {'allocations': {'{rp}': {'resources': {'VCPU': 1}}},
                             'consumer_generation': 1, 'project_id': 'p', 'user_id': 'u'}},
        code='placement.concurrent_update'),
    row('put-allocation-zero-usage', 'rp', 'PUT', '/allocations/{new}', '1.0', 400,
        ('JSON does not validate: 0 is less than the minimum of 1',
         "Failed validating 'minimum' in schema"),
        body={'allocations': [{'resource_provider': {'uuid': '{rp}'},
                               'resources': {'DISK_GB': 0}}]}),
    row('put-allocation-omitted-usage', 'rp', 'PUT', '/allocations/{new}', '1.0', 400,
        "Failed validating 'required' in schema",
        body={'allocations': [{'resource_provider': {'uuid': '{rp}'}}]}),
    row('put-allocation-bad-class', 'rp', 'PUT', '/allocations/{new}', '1.0', 400,
        ('Unable to allocate inventory for consumer', 'No such resource class COWS'),
        body={'allocations': [{'resource_provider': {'uuid': '{rp}'},
                               'resources': {'COWS': 12}}]}),

    # -- any route -----------------------------------------------------------------
    row('405-delete', 'none', 'DELETE', RPS, '1.0', 405,
        'The method DELETE is not allowed for this resource.'),
    row('405-options', 'none', 'OPTIONS', RPS, '1.0', 405,
        'The method OPTIONS is not allowed for this resource.'),

    # -- inventories ---------------------------------------------------------------
    row('post-inventory-reserved-over-total', 'bare', 'POST', RPS + '/{rp}/inventories',
        '1.0', 400, ('Unable to create inventory for resource provider {rp}',
                     'greater than or equal to total'),
        body={'resource_class': 'DISK_GB', 'total': 256, 'reserved': 512}),
    row('post-inventory-total-0', 'bare', 'POST', RPS + '/{rp}/inventories', '1.0', 400,
        ('JSON does not validate: 0 is less than the minimum of 1',
         "Failed validating 'minimum' in schema['properties']['total']"),
        body=_inventory(total=0)),
    row('post-inventory-min_unit-0', 'bare', 'POST', RPS + '/{rp}/inventories', '1.0', 400,
        "Failed validating 'minimum' in schema['properties']['min_unit']",
        body=_inventory(min_unit=0)),
    row('post-inventory-max_unit-0', 'bare', 'POST', RPS + '/{rp}/inventories', '1.0', 400,
        "Failed validating 'minimum' in schema['properties']['max_unit']",
        body=_inventory(max_unit=0)),
    row('post-inventory-step_size-0', 'bare', 'POST', RPS + '/{rp}/inventories', '1.0', 400,
        "Failed validating 'minimum' in schema['properties']['step_size']",
        body=_inventory(step_size=0)),
    row('put-inventory-class-not-in-inventory', 'bare', 'PUT',
        RPS + '/{rp}/inventories/MEMORY_MB', '1.0', 400,
        'No inventory record with resource class',
        body={'resource_provider_generation': '{gen}', 'total': 2048}),
    row('put-inventory-reserved-over-total', 'rp', 'PUT', RPS + '/{rp}/inventories/DISK_GB',
        '1.0', 400, 'Unable to update inventory for resource provider {rp}',
        body={'resource_provider_generation': '{gen}', 'total': 2048, 'reserved': 4096,
              'min_unit': 10, 'max_unit': 1024, 'step_size': 10, 'allocation_ratio': 1.0}),
    row('post-inventory-duplicate-class', 'rp', 'POST', RPS + '/{rp}/inventories', '1.0',
        409, 'Update conflict', body={'resource_class': 'DISK_GB', 'total': 2048}),
    row('delete-inventory-not-there', 'bare', 'DELETE',
        RPS + '/{rp}/inventories/IPV4_ADDRESS', '1.0', 404,
        'No inventory of class IPV4_ADDRESS found for delete'),
    row('put-inventories-reserved-over-total', 'rp', 'PUT', RPS + '/{rp}/inventories', '1.0',
        400, ('Unable to update inventory', 'greater than or equal to total'),
        body={'resource_provider_generation': '{gen}',
              'inventories': {'IPV4_ADDRESS': {'total': 253, 'reserved': 512}}}),
    row('put-inventories-zero-capacity-before-1.26', 'rp', 'PUT', RPS + '/{rp}/inventories',
        '1.25', 400, ('Unable to update inventory', 'greater than or equal to total'),
        body={'resource_provider_generation': '{gen}',
              'inventories': {'IPV4_ADDRESS': {'total': 253, 'reserved': 253}}}),
    row('put-inventories-reserved-over-total-1.26', 'rp', 'PUT', RPS + '/{rp}/inventories',
        '1.26', 400, ('Unable to update inventory', 'greater than total'),
        body={'resource_provider_generation': '{gen}',
              'inventories': {'IPV4_ADDRESS': {'total': 253, 'reserved': 512}}}),
    row('put-inventory-zero-capacity-before-1.26', 'rp', 'PUT',
        RPS + '/{rp}/inventories/IPV4_ADDRESS', '1.25', 400,
        ('Unable to update inventory', 'greater than or equal to total'),
        body={'resource_provider_generation': '{gen}', 'total': 253, 'reserved': 253}),
    row('delete-all-inventory-in-use', 'in_use', 'DELETE', RPS + '/{rp}/inventories', '1.5',
        409, "Inventory for 'VCPU, DISK_GB' on resource provider '{rp}' in use"),
    row('delete-all-inventory-in-use-1.23', 'in_use', 'DELETE', RPS + '/{rp}/inventories',
        '1.23', 409, "Inventory for 'VCPU, DISK_GB' on resource provider '{rp}' in use",
        code=INUSE),
    row('put-all-inventory-in-use', 'in_use', 'PUT', RPS + '/{rp}/inventories', '1.23', 409,
        "update conflict: Inventory for 'VCPU, DISK_GB' on resource provider '{rp}' in use",
        body={'resource_provider_generation': '{gen}', 'inventories': {}}, code=INUSE),
    row('delete-one-inventory-in-use', 'in_use', 'DELETE', RPS + '/{rp}/inventories/VCPU',
        '1.23', 409, "Unable to delete inventory of class VCPU: Inventory for 'VCPU' on "
                     "resource provider '{rp}' in use", code='placement.concurrent_update'),

    # -- reshaper ------------------------------------------------------------------
    row('reshape-class-in-use', 'in_use', 'POST', '/reshaper', '1.30', 409,
        "update conflict: Inventory for 'VCPU, DISK_GB' on resource provider '{rp}' in use",
        body={'inventories': {'{rp}': {'resource_provider_generation': '{gen}',
                                       'inventories': {}}},
              'allocations': {}}, headers={'X-Roles': 'service'}, code=INUSE),
    row('reshape-stale-provider-generation', 'reshape', 'POST', '/reshaper', '1.30', 409,
        ('resource provider generation conflict', 'actual: {gen}, given: {stale}'),
        body={'inventories': {'{rp}': {'resource_provider_generation': '{stale}',
                                       'inventories': {'VCPU': {'total': 1}}}},
              'allocations': {}}, headers={'X-Roles': 'service'}),

    # -- resource classes ----------------------------------------------------------
    row('delete-class-with-allocations', 'class_with_allocations', 'DELETE',
        '/resource_classes/{rc}', '1.11', 409,
        ('Error in delete resource class', 'Class is in use in inventory')),
    row('delete-class-with-inventory', 'class_with_inventory', 'DELETE',
        '/resource_classes/{rc}', '1.11', 409,
        ('Error in delete resource class', 'Class is in use in inventory')),
    row('put-class-not-custom', 'none', 'PUT', '/resource_classes/COW', '1.7', 400,
        "Failed validating 'pattern'"),
    row('put-class-standard', 'none', 'PUT', '/resource_classes/VCPU', '1.7', 400,
        "Failed validating 'pattern'"),
    row('put-class-too-long', 'none', 'PUT', '/resource_classes/CUSTOM_' + 'S' * 250, '1.7',
        400, "Failed validating 'maxLength'"),
    row('post-class-exists', 'two_classes', 'POST', '/resource_classes', '1.2', 409,
        'Conflicting resource class already exists', body={'name': '{rc}'}),
    row('rename-class-to-existing', 'two_classes', 'PUT', '/resource_classes/{rc2}', '1.6',
        409, ('Resource class already exists', '{rc}'), body={'name': '{rc}'}),

    # -- resource providers --------------------------------------------------------
    row('rp-in-traits-before-1.39', 'none', 'GET',
        RPS + '?required=in:CUSTOM_FOO,HW_CPU_X86_MMX', '1.38', 400, IN_TRAITS),
    row('rp-forbidden-agg-before-1.32', 'none', 'GET', RPS + '?member_of=!{agga}', '1.31', 400,
        NEG_AGG),
    row('rp-resources-negative-amount', 'none', 'GET', RPS + '?resources=VCPU:-2', '1.39', 400,
        ('Requested resource VCPU requires amount >= 1.', 'Got: -2.')),
    row('rp-resources-trailing-comma', 'none', 'GET', RPS + '?resources=DISK_GB:500,', '1.39',
        400, ('Badly formed resources parameter. Expected resources query string parameter '
              'in form:', 'Got: .')),
    row('rp-self-parent', 'none', 'POST', RPS, '1.39', 400,
        ('parent provider UUID cannot be same as UUID',
         'Unable to create resource provider "child-{new}", {new}: Object action create '
         'failed because: parent provider UUID cannot be same as UUID. Please set parent '
         'provider UUID to None if there is no parent.'),
        body={'name': 'child-{new}', 'uuid': '{new}', 'parent_provider_uuid': '{new}'}),
    row('rp-re-parent-before-1.37', 'tree', 'PUT', RPS + '/{child}', '1.36', 400,
        'Unable to save resource provider {child}: Object action update failed because: '
        're-parenting a provider is not currently allowed.',
        body={'name': 'child-{new}', 'parent_provider_uuid': '{other}'}),
    row('rp-parent-does-not-exist', 'tree', 'PUT', RPS + '/{child}', '1.39', 400,
        'parent provider UUID does not exist',
        body={'name': 'child-{new}', 'parent_provider_uuid': '{new}'}),
    row('rp-un-parent-before-1.37', 'tree', 'PUT', RPS + '/{child}', '1.36', 400,
        'un-parenting a provider is not currently allowed',
        body={'name': 'child-{new}', 'parent_provider_uuid': None}),
    row('rp-forbidden-trait-1.21', 'none', 'GET', RPS + '?required=!STORAGE_DISK_SSD', '1.21',
        400, FORM_PLAIN + ' Got: !STORAGE_DISK_SSD'),
    row('rp-required-blank', 'none', 'GET', RPS + '?required=', '1.39', 400, FORM_FORBIDDEN),
    row('rp-required-empty-trait', 'none', 'GET',
        RPS + '?required=STORAGE_DISK_SSD,,MISC_SHARES_VIA_AGGREGATE', '1.39', 400,
        FORM_FORBIDDEN),
    row('rp-delete-not-there', 'none', 'DELETE', RPS + '/{new}', '1.39', 404,
        'No resource provider with uuid {new} found for delete'),
    row('rp-parent-to-itself', 'tree', 'PUT', RPS + '/{parent}', '1.39', 400,
        'creating loop in the provider tree is not allowed.',
        body={'name': 'parent-{new}', 'parent_provider_uuid': '{parent}'}),
    row('rp-parent-to-its-child', 'tree', 'PUT', RPS + '/{parent}', '1.39', 400,
        'creating loop in the provider tree is not allowed.',
        body={'name': 'parent-{new}', 'parent_provider_uuid': '{child}'}),

    # -- traits --------------------------------------------------------------------
    row('trait-not-custom', 'none', 'PUT', '/traits/TRAIT_X', '1.6', 400, BAD_TRAIT),
    row('trait-bad-characters', 'none', 'PUT', '/traits/CUSTOM_ABC:1', '1.6', 400, BAD_TRAIT),
    row('trait-too-long', 'none', 'PUT', '/traits/CUSTOM_' + 'ABCDEFGHIJKLMNOPQRSTUVWXYZ' * 10,
        '1.6', 400, BAD_TRAIT),
    row('traits-associated-not-boolean', 'none', 'GET', '/traits?associated=xyz', '1.6', 400,
        'The query parameter "associated" only accepts "true" or "false"'),
    row('provider-aggregates-stale-generation', 'bare', 'PUT', RPS + '/{rp}/aggregates',
        '1.19', 409, "Resource provider's generation already changed. Please update the "
                     "generation and try again.",
        body={'aggregates': ['{agga}'], 'resource_provider_generation': 99999}),
    row('provider-aggregates-stale-generation-1.23', 'bare', 'PUT', RPS + '/{rp}/aggregates',
        '1.23', 409, "Resource provider's generation already changed. Please update the "
                     "generation and try again.",
        body={'aggregates': ['{agga}'], 'resource_provider_generation': 99999},
        code='placement.concurrent_update'),
    row('provider-traits-stale-generation', 'trait_rp', 'PUT', RPS + '/{rp}/traits', '1.23',
        409, "Resource provider's generation already changed. Please update the generation "
             "and try again.",
        body={'traits': ['CUSTOM_TRAIT_1'], 'resource_provider_generation': '{stale}'},
        code='placement.concurrent_update'),
]


def _fill(value, names):
    """``value`` with {name} filled in strings (dict keys too); a whole "{x}" keeps x's type.

    Only known names are replaced: regexes ({1,64}) and Placement's {$S} stay.
    """
    if isinstance(value, dict):
        return {_fill(k, names): _fill(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, names) for v in value]
    if not isinstance(value, str):
        return value
    whole = re.fullmatch(r'\{(\w+)\}', value)
    if whole and whole.group(1) in names:
        return names[whole.group(1)]
    return re.sub(r'\{(\w+)\}', lambda m: str(names.get(m.group(1), m.group(0))), value)


@pytest.mark.parametrize('setup,method,path,version,body,headers,status,expect,code', ROWS)
def test_upstream_error_text(client, setup, method, path, version, body, headers, status,
                             expect, code):
    names = {'new': _new(), 'agga': _new(), 'aggb': _new(), 'aggc': _new()}
    names.update(SETUPS[setup](client))
    resp = client.request(method, _fill(path, names), version=version,
                          json=_fill(body, names), headers=headers)
    assert resp.status_code == status, resp.text
    assert resp.headers['content-type'].startswith('application/json')
    error = resp.json()['errors'][0]
    for text in expect:
        assert _fill(text, names) in error['detail']
    if code is not None:
        assert error['code'] == code
    if status == 405:
        assert set(resp.headers['allow'].split(', ')) == {'GET', 'POST'}


# -- behaviours ------------------------------------------------------------------------

def _candidates(client, query, version):
    resp = client.get(AC + '?' + query, version=version)
    assert resp.status_code == 200, resp.text
    return resp.json()['allocation_requests']


def test_repeated_limit_takes_the_first(client):
    rc = _custom_class(client)
    for _ in range(3):
        _provider(client, [(rc, 4)])
    assert len(_candidates(client, 'resources=%s:1&limit=2&limit=1' % rc, '1.16')) == 2
    assert len(_candidates(client, 'resources=%s:1&limit=1&limit=2' % rc, '1.16')) == 1
    assert len(_candidates(client, 'resources=%s:1&limit=10&limit=1' % rc, '1.16')) == 3
    # every value must still be a limit
    resp = client.get(AC + '?resources=%s:1&limit=1&limit=cow' % rc, version='1.16')
    assert resp.status_code == 400, resp.text
    assert "'cow' does not match" in resp.json()['errors'][0]['detail']


def test_repeated_group_policy_takes_the_first(client):
    rc = _custom_class(client)
    _provider(client, [(rc, 4)])     # one provider: isolate finds nothing, none one
    query = 'resources1=%s:1&resources2=%s:1&group_policy=%%s&group_policy=%%s' % (rc, rc)
    assert _candidates(client, query % ('isolate', 'none'), '1.25') == []
    assert len(_candidates(client, query % ('none', 'isolate'), '1.25')) == 1
    resp = client.get(AC + '?' + query % ('none', 'bogus'), version='1.25')
    assert resp.status_code == 400, resp.text


@pytest.mark.parametrize('accept,media_type', [
    (None, 'application/json'),
    ('*/*', 'application/json'),
    ('application/json', 'application/json'),
    ('text/html', 'text/html'),
    # a browser: HTML is its first choice
    ('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'text/html'),
    ('text/html;q=0.5,application/json', 'application/json'),
    ('text/plain', 'text/plain'),
])
def test_error_media_type_follows_accept(client, accept, media_type):
    headers = {'accept': accept} if accept else {}
    resp = client.get('/%s' % _new(), headers=headers)
    assert resp.status_code == 404
    assert resp.headers['content-type'].split(';')[0] == media_type
    if media_type == 'application/json':
        assert resp.json()['errors'][0]['detail'] == 'The resource could not be found.'
    elif media_type == 'text/html':
        assert '<title>404 Not Found</title>' in resp.text
        assert 'The resource could not be found.' in resp.text
    else:
        assert resp.text.startswith('404 Not Found\n\nThe resource could not be found.')


def test_bad_version_error_as_html(client):
    resp = client.get('/', version='0.5', headers={'accept': 'text/html'})
    assert resp.status_code == 406
    assert resp.headers['content-type'].startswith('text/html')
    assert 'Unacceptable version header: 0.5' in resp.text
    assert 'x-openstack-request-id' in resp.headers
    resp = client.get('/', version='0.5')
    assert resp.status_code == 406
    assert resp.json()['errors'][0]['max_version']


def test_html_error_escapes_the_detail(client):
    resp = client.get('/traits/<b>', headers={'accept': 'text/html'})
    assert resp.status_code == 404
    assert '<b>' not in resp.text.split('<body>')[1]


def test_provider_summary_traits_in_trait_id_order(client):
    """As Placement's query returns them: standard traits, then custom ones as made.

    Upstream's gabbit (allocation-candidates-root-required.yaml) expects
    ``['HW_NUMA_ROOT', 'CUSTOM_FOO']``: neither the alphabet nor the request.
    """
    rc = _custom_class(client)
    later = 'CUSTOM_A' + uuidlib.uuid4().hex.upper()
    first = 'CUSTOM_Z' + uuidlib.uuid4().hex.upper()
    for trait in (first, later):          # made in this order: first has the smaller id
        assert client.put('/traits/%s' % trait).status_code == 201
    rp = _provider(client, [(rc, 4)])
    resp = client.put('%s/%s/traits' % (RPS, rp), json={
        'traits': [later, 'HW_NUMA_ROOT', first, 'COMPUTE_VOLUME_MULTI_ATTACH'],
        'resource_provider_generation': _generation(client, rp)})
    assert resp.status_code == 200, resp.text
    resp = client.get(AC + '?resources=%s:1' % rc, version='1.17')
    assert resp.status_code == 200, resp.text
    assert resp.json()['provider_summaries'][rp]['traits'] == [
        'COMPUTE_VOLUME_MULTI_ATTACH', 'HW_NUMA_ROOT', first, later]


def test_in_use_classes_in_class_id_order(client):
    """Placement's class ids: standard classes as os-resource-classes lists them, then custom.

    Neither creation order nor the alphabet: upstream's gabbit
    (with-allocations.yaml) makes DISK_GB's inventory before VCPU's and
    expects 'VCPU, DISK_GB'.
    """
    custom_z = 'CUSTOM_Z' + uuidlib.uuid4().hex.upper()
    custom_a = 'CUSTOM_A' + uuidlib.uuid4().hex.upper()
    for rc in (custom_z, custom_a):       # made in this order: custom_z has the smaller id
        assert client.put('/resource_classes/%s' % rc, version='1.7').status_code == 201
    rp = _provider(client, [(custom_a, 5), ('DISK_GB', 100), (custom_z, 5), ('VCPU', 8),
                            ('MEMORY_MB', 1024)])
    _put_alloc(client, _new(), rp, {'VCPU': 1, 'DISK_GB': 1, 'MEMORY_MB': 1,
                                    custom_a: 1, custom_z: 1})
    resp = client.delete('%s/%s/inventories' % (RPS, rp), version='1.23')
    assert resp.status_code == 409, resp.text
    assert ("Inventory for 'VCPU, MEMORY_MB, DISK_GB, %s, %s' on resource provider '%s' "
            "in use" % (custom_z, custom_a, rp)) in resp.json()['errors'][0]['detail']
