"""GET /status (an HTML page for operators) and GET /status.json (its data); admin only.

berth extension, every microversion, read-only.  The page refreshes itself
from status.json; the data comes from objects.status (database) and the
conductor ring (conductor.rpcapi; the API reads the ring, never joins it).
"""

import dataclasses
import datetime
from typing import Any

import webob

from api.common.conductor import require_conductor
from api.placement import policy, response, router, status_page
from common import broker_probe
from common.policies.placement import extensions
from objects import status as status_obj
from objects.baremetal import fullness as node_fullness
from objects.placement import fullness

TOP_CONSUMERS = 5
# fullest providers shown per resource class
FULLEST_PROVIDERS = 5
# seconds the page waits for the database to answer SELECT 1
DATABASE_PROBE_SECONDS = 1.5


@router.endpoint()
def show_page(req):
    policy.authorize(req, extensions.STATUS_SHOW)
    resp = webob.Response(status=200, content_type='text/html', charset='utf-8')
    resp.text = status_page.PAGE
    resp.headers['cache-control'] = 'no-store'
    resp.headers['content-security-policy'] = status_page.CSP
    resp.headers['x-content-type-options'] = 'nosniff'
    return resp


@router.endpoint(json_reply=True)
def show_json(req):
    policy.authorize(req, extensions.STATUS_SHOW)
    ctx = req.context
    conductor = require_conductor(req)
    conductors = conductor.conductors(ctx)
    unreachable = conductor.unreachable(conductors)
    # asked of the broker itself: this process's RPC client notices an
    # outage only when it next sends (common/broker_probe.py)
    if 'broker' not in unreachable and broker_probe.for_conf(req.conf).reachable() is False:
        unreachable.insert(0, 'broker')
    database = status_obj.database_reachable(ctx.db, DATABASE_PROBE_SECONDS)
    if not database:
        unreachable.append('database')
    body = {
        'generated_at': datetime.datetime.now(datetime.UTC)
        .strftime('%Y-%m-%dT%H:%M:%SZ'),
        'refresh_seconds': status_page.REFRESH_SECONDS,
        'heartbeat_interval': req.conf.coordination.ring_refresh_interval,
        'conductors': conductors,
        # what this API process cannot reach now (broker, coordination, database)
        'unreachable': unreachable,
        'heartbeat_timeout': req.conf.conductor.heartbeat_timeout,
    }
    # the database's sections, empty while it cannot be reached: the page
    # still answers within its bound and names what is missing
    body.update(_database_sections(req) if database else {
        'registered_conductors': [], 'capacity': [], 'fullest_providers': [],
        'node_allocations': dataclasses.asdict(status_obj.NodeAllocationSummary({})),
        'baremetal_nodes': {}})
    resp = response.send_json(req, body, cache=False)
    resp.headers['cache-control'] = 'no-store'
    return resp


def _database_sections(req: webob.Request) -> dict[str, Any]:
    ctx = req.context
    return {
        # every conductor that registered, alive or dead (GET /v1/conductors)
        'registered_conductors': status_obj.conductor_registry(
            ctx, req.conf.conductor.heartbeat_timeout),
        'node_allocations': dataclasses.asdict(status_obj.node_allocation_summary(ctx)),
        'capacity': [dataclasses.asdict(c) for c in
                     status_obj.capacity_by_class(ctx, top=TOP_CONSUMERS)],
        'fullest_providers': [dict(dataclasses.asdict(f), free=f.free) for f in
                              fullness.fullest(ctx, FULLEST_PROVIDERS)],
        'baremetal_nodes': node_fullness.nodes_by_class(ctx),
    }
