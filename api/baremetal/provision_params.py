"""Ironic's parameters of PUT /v1/nodes/{node}/states/provision beyond ``target``.

berth's nodes have no ramdisk and run no steps (they move between states at
once), so these are accepted and validated as Ironic validates them, then
dropped:

* ``deploy_steps`` (1.69): a list of steps, each ``{interface, step, args,
  priority}`` with one of Ironic's deploy-step interfaces; only with the
  targets ``active`` and ``rebuild`` (Ironic's literal rule: not with the
  ``deploy`` alias); 406 below 1.69;
* ``disable_ramdisk`` (1.70): a boolean, Ironic takes it only with ``clean``
  (1.70), which berth does not offer, and ``service`` from 1.108: a 400 once
  it is a valid boolean, with ``service`` a 406 below 1.108 and taken from it;
* the ``deploy`` and ``undeploy`` verbs (1.73) are 406 below their version;
* ``runbook`` (1.92): berth keeps no runbooks (``/v1/runbooks`` is not
  served), so one named is Ironic's 404 ``Runbook <ident> could not be found.``;
  406 below 1.92;
* ``service_steps`` (1.87): only with the ``service`` verb (400), which needs
  1.87 (406) and them (400): a list of ``{interface, step[, args, order]}``
  with one of Ironic's cleaning interfaces (``Invalid service_steps: …``).
"""

import jsonschema
from oslo_utils import strutils

from api.baremetal import fault, validation
from api.baremetal import version as api_version
from api.common import errors as common_errors

NOT_ACCEPTABLE = 'Request not acceptable.'
# Ironic's interfaces that may carry deploy steps
DEPLOY_STEP_INTERFACES = ('vendor', 'power', 'management', 'firmware', 'deploy', 'bios',
                          'raid')
DEPLOY_STEPS_SCHEMA = {
    'type': 'array',
    'items': {
        'type': 'object',
        'properties': {
            'args': {'type': 'object'},
            'interface': {'type': 'string', 'enum': list(DEPLOY_STEP_INTERFACES)},
            'priority': {'anyOf': [{'type': 'integer', 'minimum': 0},
                                   {'type': 'string', 'minLength': 1,
                                    'pattern': '^[0-9]+$'}]},
            'step': {'type': 'string', 'minLength': 1},
        },
        'required': ['interface', 'step', 'args', 'priority'],
        'additionalProperties': False,
    },
}
# Ironic's interfaces that may carry clean and service steps
SERVICE_STEP_INTERFACES = ('vendor', 'power', 'management', 'firmware', 'deploy', 'bios',
                           'raid')
SERVICE_STEPS_SCHEMA = {
    'type': 'array',
    'items': {
        'type': 'object',
        'properties': {
            'interface': {'enum': list(SERVICE_STEP_INTERFACES)},
            'step': {'type': 'string', 'minLength': 1},
            'args': {'type': 'object'},
            'order': {'anyOf': [{'type': 'integer', 'minimum': 0},
                                {'type': 'string', 'minLength': 1,
                                 'pattern': '^[0-9]+$'}]},
            'execute_on_child_nodes': {'type': 'boolean'},
            'limit_child_node_execution': {'type': 'array'},
        },
        'required': ['interface', 'step'],
        'additionalProperties': False,
    },
}
PROVISION_SCHEMA = {'type': 'object', 'properties': {
    'target': {'type': 'string'},
    'deploy_steps': {'type': ['array', 'null']},
    'service_steps': {'type': ['array', 'null']},
    'disable_ramdisk': {'type': ['boolean', 'string', 'null']},
    'runbook': {'type': ['string', 'null']},
}, 'required': ['target']}
_VERB_VERSIONS = {'abort': api_version.ABORT, 'deploy': api_version.DEPLOY_VERBS,
                  'undeploy': api_version.DEPLOY_VERBS}
_STEP_TARGETS = ('active', 'rebuild')


def check_verb(req, target):
    """406 for a verb newer than the caller's version (Ironic's generic text)."""
    since = _VERB_VERSIONS.get(target)
    if since is not None and not req.version.matches(since):
        raise fault.NotAcceptable(NOT_ACCEPTABLE)


def _disable_ramdisk(req, target, value):
    if value is None:
        return
    if not isinstance(value, bool):
        try:
            strutils.bool_from_string(value, strict=True)
        except ValueError:
            raise fault.BadRequest('Invalid boolean value for disable_ramdisk: %s'
                                   % (value,))
    if target == 'service':     # Ironic takes it with servicing from 1.108
        if req.version.matches(api_version.SERVICE_DISABLE_RAMDISK):
            return              # validated, then dropped: berth boots no ramdisk
        raise fault.NotAcceptable('disable_ramdisk is not acceptable in this API '
                                  'version')
    # Ironic's rule: only with manual cleaning (not served here) or servicing
    raise fault.BadRequest('disable_ramdisk is supported only with manual cleaning '
                           'or servicing')


def _deploy_steps(req, target, steps):
    if not steps:
        return
    if not req.version.matches(api_version.DEPLOY_STEPS):
        raise fault.NotAcceptable('Request not acceptable. The minimal required API '
                                  'version should be %s' % api_version.DEPLOY_STEPS)
    if target not in _STEP_TARGETS:
        raise fault.BadRequest('"deploy_steps" is only valid when setting target '
                               'provision state to %s or %s' % _STEP_TARGETS)
    validation.check_schema(DEPLOY_STEPS_SCHEMA, steps, 'deploy_steps')


def _service_steps(req, target, steps):
    if steps and target != 'service':
        raise fault.BadRequest('"service_steps" is only valid when setting target '
                               'provision state to service')
    if target != 'service':
        return
    if not req.version.matches(api_version.SERVICE):
        raise fault.NotAcceptable(NOT_ACCEPTABLE)
    if not steps:
        raise fault.BadRequest('"service_steps" is required when setting target '
                               'provision state to service')
    errors = list(jsonschema.Draft4Validator(SERVICE_STEPS_SCHEMA).iter_errors(steps))
    if errors:
        error = jsonschema.exceptions.best_match(errors)
        raise fault.BadRequest('Invalid service_steps: %s' % common_errors.cut_repr(
            error.message, error.instance))


def _runbook(req, value):
    """``runbook`` (1.92, 406 below): berth keeps no runbooks, so every one is
    Ironic's RunbookNotFound (its lookup comes before the runbook's rules)."""
    if value is None:
        return
    if not req.version.matches(api_version.RUNBOOKS):
        raise fault.NotAcceptable(NOT_ACCEPTABLE)
    validation.check_ident(value)
    raise fault.NotFound('Runbook %s could not be found.' % value)


def check(req, data):
    """The checks of the body ``data`` (its ``target`` already known), in Ironic's order."""
    _runbook(req, data.get('runbook'))
    _disable_ramdisk(req, data['target'], data.get('disable_ramdisk'))
    _deploy_steps(req, data['target'], data.get('deploy_steps'))
    _service_steps(req, data['target'], data.get('service_steps'))
