"""Ironic's node shards (API 1.82): how many nodes each shard holds.

As Ironic's ``get_shard_list``: one entry per distinct ``shard`` value, the
nodes without a shard included under the name ``"None"``, the largest count
first (ties by name here, so the order is stable).  Not paginated: the list
is as long as the number of shards.
"""

from typing import Any

import sqlalchemy as sa

from db import api as db_api
from db import models

_NODE = models.Node.__table__


@db_api.reader
def list_shards(ctx: Any) -> list[dict[str, Any]]:
    count = sa.func.count(_NODE.c.id)
    rows = ctx.session.execute(
        sa.select(_NODE.c.shard, count).group_by(_NODE.c.shard)).all()
    shards = [{'name': str(shard), 'count': int(n)} for shard, n in rows]
    return sorted(shards, key=lambda s: (-s['count'], s['name']))
