"""/v1/nodes/{node}/history (Ironic API 1.78): a node's events, oldest first.

Rule ``baremetal:node:history:get`` (Ironic's default: a system reader or a
reader of the owning project; a lessee sees the node but not its history,
403; another project's node is a 404).  The list shows ``uuid``,
``created_at``, ``severity`` and ``event`` (cut to 255 characters);
``?detail=true`` and one event add ``event_type``, ``conductor`` and
``user``, from 1.113 ``project`` and from 1.115 ``state``,
``target_provision_state`` and ``duration_seconds`` (stored since 1.78).
``limit``, ``marker`` (an event uuid), ``sort_dir``; the only ``sort_key`` is
``created_at``.  objects/baremetal/node_history.py says
which events are written.
"""

from typing import Any

from oslo_utils import uuidutils

from api.baremetal import fault, policy, query, response, router
from api.baremetal import version as api_version
from api.common import links as common_links
from api.common import response as common_response
from common.policies.baremetal import endpoints as rules
from objects.baremetal import node_history

LIST_PARAMS = ('detail', 'limit', 'marker', 'sort_key', 'sort_dir')
_STANDARD = ('uuid', 'created_at', 'severity', 'event')
_DETAIL = _STANDARD + ('event_type', 'conductor', 'user', 'project', 'state',
                       'target_provision_state', 'duration_seconds')
# detail fields shown from a version on (Ironic's 1.113 and 1.115)
_SINCE = {'project': api_version.HISTORY_PROJECT, 'state': api_version.HISTORY_FIELDS,
          'target_provision_state': api_version.HISTORY_FIELDS,
          'duration_seconds': api_version.HISTORY_FIELDS}
_CUT = 255


def _body(req, node, event, detail):
    names = [n for n in (_DETAIL if detail else _STANDARD)
             if n not in _SINCE or req.version.matches(_SINCE[n])]
    body = {name: getattr(event, name) for name in names}
    body['created_at'] = common_response.iso(event.created_at)
    if not detail and len(body['event']) > _CUT:
        body['event'] = body['event'][:_CUT - 4] + '...'
    body['links'] = [{'href': '%s/v1/nodes/%s/history/%s' % (
        common_links.base_url(req), node.uuid, event.uuid), 'rel': 'self'}]
    return body


@router.endpoint(api_version.NODE_HISTORY)
def list_history(req):
    node = policy.node_for(req, rules.NODE_HISTORY_GET)
    query.known_params(req, LIST_PARAMS)
    detail = bool(query.bool_param(req, 'detail'))
    limit, marker, _, sort_dir = query.pagination(req, ('id', 'created_at'))
    if marker is not None and not uuidutils.is_uuid_like(marker):
        raise fault.BadRequest('Expected a UUID but received %s.' % marker)
    events = node_history.list_for_node(req.context, node.id, limit, marker, sort_dir)
    body: dict[str, Any] = {'history': [_body(req, node, e, detail) for e in events]}
    if events and len(events) >= limit:
        body['next'] = '%s/v1/nodes/%s/history?limit=%d&marker=%s' % (
            common_links.base_url(req), node.uuid, limit, events[-1].uuid)
    return response.send_json(body)


@router.endpoint(api_version.NODE_HISTORY)
def get_history_event(req):
    node = policy.node_for(req, rules.NODE_HISTORY_GET)
    event = node_history.get(req.context, node.id, req.urlvars['event'])
    return response.send_json(_body(req, node, event, detail=True))
