"""Unit tests of the bare-metal API's version negotiation and JSON-patch rules."""

import pytest

from api.baremetal import fault, validation, version


def test_negotiate():
    assert str(version.negotiate(None)) == '1.1'
    assert str(version.negotiate('latest')) == '1.115'
    assert str(version.negotiate(' 1.52 ')) == '1.52'
    for bad in ('1.0', '1.116', '2.1'):
        with pytest.raises(version.UnacceptableVersion):
            version.negotiate(bad)
    with pytest.raises(version.InvalidVersion):
        version.negotiate('x.y')


@pytest.mark.parametrize('value,ok', [
    ('CUSTOM_A_1', True), ('HW_CPU_X86_AVX2', True), ('FOO_BAR', False),
    ('custom_a', False), ('', False), ('CUSTOM_' + 'A' * 249, False)])
def test_trait_names(value, ok):
    assert validation.is_valid_trait(value) is ok


@pytest.mark.parametrize('value,ok', [
    ('node-1', True), ('a.b~c_d', True), ('aa:bb_cc', False), ('a b', False),
    ('x' * 255, True), ('x' * 256, False), ('', False)])
def test_logical_names(value, ok):
    assert validation.is_logical_name(value) is ok


def test_patch_only_allowed_paths():
    doc = {'name': 'a', 'extra': {'k': 1}}
    allowed = {'name': True, 'extra': 'sub'}
    assert validation.apply_patch(doc, [{'op': 'add', 'path': '/extra/j', 'value': 2}],
                                  allowed) == {'name': 'a', 'extra': {'k': 1, 'j': 2}}
    assert validation.apply_patch(doc, [{'op': 'remove', 'path': '/name'}],
                                  allowed) == {'extra': {'k': 1}}
    for patch in ([{'op': 'replace', 'path': '/extra', 'value': {}}],
                  [{'op': 'add', 'path': '/uuid', 'value': 'x'}],
                  [{'op': 'remove', 'path': '/extra/missing'}],
                  [{'op': 'copy', 'path': '/name', 'from': '/extra'}],
                  [{'op': 'add', 'path': '/name'}], []):
        with pytest.raises(fault.BadRequest):
            validation.apply_patch(doc, patch, allowed)
    assert doc == {'name': 'a', 'extra': {'k': 1}}


def test_the_enforcer_looks_for_policy_files_once_a_second(conf):
    """Not a file search per check (the POST /v1/allocations hot path)."""
    from api.baremetal import policy
    from common import policy as common_policy
    from common.policies.baremetal import endpoints as rules
    enforcer = policy.make_enforcer(conf)
    assert isinstance(enforcer, common_policy.Enforcer)
    assert rules.ALLOCATION_CREATE in enforcer.registered_rules
