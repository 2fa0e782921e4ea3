"""What every legacy inventory rule shares: the row error, records, JSON blobs.

Kept apart so the rule modules (``inventory_rules``, ``numa_rules``) import
it without importing each other.
"""

from __future__ import annotations

import json
from typing import Any


class BadComputeNode(Exception):
    """A legacy row that cannot be migrated; skipped and reported by id."""

    def __init__(self, node_id, reason):
        self.node_id = node_id
        self.reason = reason
        super().__init__('compute node %s: %s' % (node_id, reason))


def record(total: int, max_unit: int | None = None, allocation_ratio: float = 1.0,
           reserved: int = 0) -> dict[str, int | float]:
    """An inventory record with Placement's defaults for the other fields."""
    return {'total': total, 'reserved': reserved, 'min_unit': 1,
            'max_unit': total if max_unit is None else max_unit, 'step_size': 1,
            'allocation_ratio': float(allocation_ratio)}


def load_json(node: Any, field: str) -> Any:
    """The decoded blob of ``field`` (None when empty); BadComputeNode when not JSON."""
    raw = getattr(node, field)
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise BadComputeNode(node.id, '%s is not valid JSON (%s)' % (field, exc))


def unwrap(obj: Any) -> Any:
    """The data of a serialised Nova object, or the value itself."""
    if isinstance(obj, dict) and 'nova_object.data' in obj:
        return obj['nova_object.data']
    return obj


def count(node: Any, value: Any, what: str) -> int:
    """``value`` as a count (int >= 0); BadComputeNode naming ``what`` otherwise."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise BadComputeNode(node.id, 'numa_topology %s %r is not a count' % (what, value))
    return value
