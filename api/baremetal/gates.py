"""Ironic's microversion gates on what a client sends about nodes.

A node field (response.NODE_FIELD_VERSIONS) newer than the request's version
is hidden from answers and refused in what the client sends: in a create
body or a JSON patch, in ``fields`` and as ``sort_key`` (406, as Ironic's
``reject_fields_in_newer_versions`` and ``check_allowed_fields``); the
list filters have their own first versions; a node named by its name needs
1.5 (before, a name finds no node).
"""

from oslo_utils import strutils, uuidutils

from api.baremetal import fault, response
from common import exception

NOT_ACCEPTABLE = 'Request not acceptable.'
_MINIMAL = ('Request not acceptable. The minimal required API version should '
            'be %s')
FIELDS = '1.8'          # ?fields=
DETAIL = '1.43'         # ?detail= on GET /v1/nodes
NAMES = '1.5'           # nodes named by name
TRAITS = '1.37'         # /v1/nodes/{node}/traits
INSTANCE_NAME = '1.104'  # ?instance_name= (its own 406 text)
# GET /v1/nodes filters: (first version, whether the 406 names the version)
_FILTERS = {'provision_state': ('1.9', False), 'driver': ('1.16', True),
            'resource_class': ('1.21', True), 'conductor_group': ('1.46', True),
            'owner': ('1.50', True), 'lessee': ('1.65', True),
            'shard': ('1.82', True), 'sharded': ('1.82', True),
            'include_children': ('1.83', True), 'parent_node': ('1.83', True)}


def _hidden(req, field):
    since = response.NODE_FIELD_VERSIONS.get(field)
    return since is not None and not req.version.matches(since)


def check_create(req, body):
    """406 when a create body sets a field newer than the request's version."""
    for field in response.NODE_FIELD_VERSIONS:
        empty = '' if field == 'conductor_group' else None
        if _hidden(req, field) and body.get(field, empty) != empty:
            raise fault.NotAcceptable(NOT_ACCEPTABLE)


def check_patch(req, patch):
    """406 when a JSON patch adds or replaces a field newer than the version.

    Only the field itself counts (``/name``, not ``/extra/name``); removing
    it is allowed, as in Ironic.
    """
    for op in patch if isinstance(patch, list) else ():
        if not isinstance(op, dict) or op.get('op') == 'remove':
            continue
        path = op.get('path')
        if isinstance(path, str) and path.startswith('/') and _hidden(req, path[1:]):
            raise fault.NotAcceptable(NOT_ACCEPTABLE)


def check_fields(req):
    """406 for ``?fields`` before 1.8 or naming a field newer than the version."""
    value = req.GET.get('fields')
    if value is None:
        return
    if not req.version.matches(FIELDS):
        raise fault.NotAcceptable(NOT_ACCEPTABLE)
    if any(_hidden(req, f.strip()) for f in value.split(',')):
        raise fault.NotAcceptable(NOT_ACCEPTABLE)


def check_list(req):
    """The gates of GET /v1/nodes: fields, sort_key, detail and the filters."""
    check_fields(req)
    if _hidden(req, req.GET.get('sort_key', '')):
        raise fault.NotAcceptable(NOT_ACCEPTABLE)
    if 'detail' in req.GET and not req.version.matches(DETAIL):
        value = req.GET['detail']
        try:
            value = strutils.bool_from_string(value, strict=True)
        except ValueError:
            pass
        raise fault.BadRequest('Invalid query parameter ?detail=%s received.'
                               % (value,))
    for name, (since, named) in _FILTERS.items():
        if name in req.GET and not req.version.matches(since):
            raise fault.NotAcceptable(_MINIMAL % since if named else NOT_ACCEPTABLE)
    if 'instance_name' in req.GET and not req.version.matches(INSTANCE_NAME):
        raise fault.NotAcceptable('instance_name is not acceptable in this API version')


def check_node_ident(req, ident):
    """A node named by its name before 1.5 is not found (Ironic's Juno answer)."""
    if not req.version.matches(NAMES) and not uuidutils.is_uuid_like(ident):
        raise exception.NodeNotFound(node=ident)
