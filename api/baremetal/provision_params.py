"""Ironic's parameters of PUT /v1/nodes/{node}/states/provision beyond ``target``.

berth's nodes have no ramdisk and run no steps (they move between states at
once), so these are accepted and validated as Ironic validates them, then
dropped:

* ``deploy_steps`` (1.69): a list of steps, each ``{interface, step, args,
  priority}`` with one of Ironic's deploy-step interfaces; only with the
  targets ``active`` and ``rebuild`` (Ironic's literal rule: not with the
  ``deploy`` alias); 406 below 1.69;
* ``disable_ramdisk`` (1.70): a boolean, Ironic takes it only with ``clean``
  (1.70) and ``service`` (1.108), targets berth does not offer: always a 400
  once it is a valid boolean;
* the ``deploy`` and ``undeploy`` verbs (1.73) are 406 below their version.
"""

from oslo_utils import strutils

from api.baremetal import fault, validation
from api.baremetal import version as api_version

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
PROVISION_SCHEMA = {'type': 'object', 'properties': {
    'target': {'type': 'string'},
    'deploy_steps': {'type': ['array', 'null']},
    'disable_ramdisk': {'type': ['boolean', 'string', 'null']},
}, 'required': ['target']}
_VERB_VERSIONS = {'deploy': api_version.DEPLOY_VERBS,
                  'undeploy': api_version.DEPLOY_VERBS}
_STEP_TARGETS = ('active', 'rebuild')


def check_verb(req, target):
    """406 for a verb newer than the caller's version (Ironic's generic text)."""
    since = _VERB_VERSIONS.get(target)
    if since is not None and not req.version.matches(since):
        raise fault.NotAcceptable(NOT_ACCEPTABLE)


def _disable_ramdisk(req, value):
    if value is None:
        return
    if not isinstance(value, bool):
        try:
            strutils.bool_from_string(value, strict=True)
        except ValueError:
            raise fault.BadRequest('Invalid boolean value for disable_ramdisk: %s'
                                   % (value,))
    # Ironic's rule: only with manual cleaning or servicing, neither served here
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


def check(req, data):
    """The checks of the body ``data`` (its ``target`` already known), in Ironic's order."""
    _disable_ramdisk(req, data.get('disable_ramdisk'))
    _deploy_steps(req, data['target'], data.get('deploy_steps'))
