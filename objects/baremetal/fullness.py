"""Bare-metal nodes per resource class: free, allocated, unavailable.

Read-only, for ``/metrics`` (read at scrape time) and the status page; one
aggregate statement whatever the number of nodes.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from common.context import RequestContext
from db import api as db_api
from db import models

_NODE = models.Node.__table__

FREE, ALLOCATED, UNAVAILABLE = 'free', 'allocated', 'unavailable'
NODE_STATES = (FREE, ALLOCATED, UNAVAILABLE)


def _node_state() -> Any:
    allocated = sa.or_(_NODE.c.allocation_id.is_not(None),
                       _NODE.c.instance_uuid.is_not(None))
    free = sa.and_(_NODE.c.provision_state == 'available',
                   _NODE.c.maintenance == sa.false(),
                   _NODE.c.power_state.is_not(None))
    return sa.case((allocated, ALLOCATED), (free, FREE), else_=UNAVAILABLE)


@db_api.reader
def nodes_by_class(ctx: RequestContext) -> dict[str, dict[str, int]]:
    """{node resource class: {free, allocated, unavailable: count}} (every state present).

    allocated: the node holds an allocation or an instance; free: neither,
    and ``available``, out of maintenance, with a power state (what a new
    allocation may take); unavailable: the rest (cleaning, maintenance,
    enrolling ...).  Nodes without a resource class are left out.
    """
    state = _node_state().label('state')
    rows = ctx.session.execute(
        sa.select(_NODE.c.resource_class, state, sa.func.count())
        .where(_NODE.c.resource_class.is_not(None))
        .group_by(_NODE.c.resource_class, state))
    found: dict[str, dict[str, int]] = {}
    for rc, name, count in rows:
        found.setdefault(rc, dict.fromkeys(NODE_STATES, 0))[name] = int(count)
    return dict(sorted(found.items()))
