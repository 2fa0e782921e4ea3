"""The throttled policy enforcer: file edits still take effect, looked for once a second."""

import os

from api.placement import policy as placement_policy
from common import policy as common_policy
from common.policies.placement import endpoints as rules

READER = {'roles': ['reader'], 'project_id': 'p', 'user_id': 'u'}
TARGET = {'project_id': 'p', 'user_id': 'u'}


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def _write(path, text, mtime):
    path.write_text(text)
    os.utime(path, (mtime, mtime))


def _enforcer(conf, clock, policy_file):
    enforcer = common_policy.Enforcer(conf, policy_file=str(policy_file), clock=clock)
    enforcer.register_defaults(placement_policy.policies.list_rules())
    enforcer.load_rules()
    return enforcer


def test_policy_file_edit_applies_after_the_recheck_interval(conf, tmp_path):
    policy_file = tmp_path / 'policy.yaml'
    _write(policy_file, '"%s": "role:reader"\n' % rules.RESOURCE_PROVIDERS_LIST, 1000)
    clock = Clock()
    enforcer = _enforcer(conf, clock, policy_file)
    assert enforcer.enforce(rules.RESOURCE_PROVIDERS_LIST, TARGET, READER)

    _write(policy_file, '"%s": "role:admin"\n' % rules.RESOURCE_PROVIDERS_LIST, 2000)
    clock.now += common_policy.RECHECK_SECONDS / 2
    # not looked at yet: the rules read last still hold
    assert enforcer.enforce(rules.RESOURCE_PROVIDERS_LIST, TARGET, READER)
    clock.now += common_policy.RECHECK_SECONDS
    assert not enforcer.enforce(rules.RESOURCE_PROVIDERS_LIST, TARGET, READER)


def test_policy_file_created_later_is_found(conf, tmp_path):
    policy_file = tmp_path / 'later.yaml'
    clock = Clock()
    enforcer = _enforcer(conf, clock, policy_file)
    # the default (admin or service) keeps a project reader out
    assert not enforcer.enforce(rules.RESOURCE_PROVIDERS_LIST, TARGET, READER)
    _write(policy_file, '"%s": "role:reader"\n' % rules.RESOURCE_PROVIDERS_LIST, 2000)
    clock.now += common_policy.RECHECK_SECONDS
    assert enforcer.enforce(rules.RESOURCE_PROVIDERS_LIST, TARGET, READER)


def test_force_reload_does_not_wait(conf, tmp_path):
    policy_file = tmp_path / 'policy.yaml'
    _write(policy_file, '"%s": "role:reader"\n' % rules.RESOURCE_PROVIDERS_LIST, 1000)
    enforcer = _enforcer(conf, Clock(), policy_file)
    _write(policy_file, '"%s": "role:admin"\n' % rules.RESOURCE_PROVIDERS_LIST, 2000)
    enforcer.load_rules(force_reload=True)
    assert not enforcer.enforce(rules.RESOURCE_PROVIDERS_LIST, TARGET, READER)


def test_remembered_passes_do_not_leak_to_other_callers_or_targets(conf, tmp_path):
    policy_file = tmp_path / 'policy.yaml'
    _write(policy_file, '"%s": "role:reader and project_id:%%(project_id)s"\n'
           % rules.RESOURCE_PROVIDERS_LIST, 1000)
    enforcer = _enforcer(conf, Clock(), policy_file)
    for _ in range(2):     # the second round is answered from memory
        assert enforcer.enforce(rules.RESOURCE_PROVIDERS_LIST, TARGET, READER)
        assert not enforcer.enforce(rules.RESOURCE_PROVIDERS_LIST, TARGET,
                                    dict(READER, roles=['member']))
        assert not enforcer.enforce(rules.RESOURCE_PROVIDERS_LIST,
                                    dict(TARGET, project_id='other'), READER)
    # a refusal always goes through oslo.policy, which raises when asked to
    for _ in range(2):
        try:
            enforcer.enforce(rules.RESOURCE_PROVIDERS_LIST, TARGET,
                             dict(READER, roles=[]), do_raise=True)
        except common_policy.oslo_policy.PolicyNotAuthorized:
            pass
        else:
            raise AssertionError('refusal did not raise')
    # values that cannot be remembered are checked every time
    assert enforcer.enforce(rules.RESOURCE_PROVIDERS_LIST,
                            dict(TARGET, extra=bytearray(b'x')), READER)
    assert common_policy._memo_key('r', {'x': bytearray(b'x')}, READER) is None
