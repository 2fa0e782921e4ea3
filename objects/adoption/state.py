"""Placement data by natural keys (uuids and names), the same for a source and for berth.

Database ids are local to each database (class and trait ids differ
between Placement and berth, provider ids may), so both sides are read
into a :class:`State` keyed by what clients see: provider and consumer
uuids, class, trait and consumer-type names, Keystone project and user ids,
aggregate uuids as stored.  :func:`diff` compares two States table by table
into :class:`Change` sets; the import applies them (objects/adoption/target.py).
Pure data: no database here.
"""

from __future__ import annotations

import dataclasses
from typing import Any

# the tables of a State in the order the import reports them
TABLES = ('resource_classes', 'traits', 'projects', 'users', 'consumer_types',
          'resource_providers', 'inventories', 'placement_aggregates',
          'resource_provider_aggregates', 'resource_provider_traits', 'consumers',
          'allocations')
# the dict-valued tables (key -> row values); the others are sets of keys
VALUED = frozenset(('resource_providers', 'inventories', 'consumers', 'allocations'))

# inventories' value: (total, reserved, min_unit, max_unit, step_size, allocation_ratio)
INVENTORY_FIELDS = ('total', 'reserved', 'min_unit', 'max_unit', 'step_size',
                    'allocation_ratio')


@dataclasses.dataclass
class State:
    """Every Placement table by natural keys.

    * ``resource_providers``: uuid -> (name, generation, parent uuid or None, root uuid)
    * ``inventories``: (provider uuid, class name) -> INVENTORY_FIELDS values
    * ``resource_provider_aggregates``: {(provider uuid, aggregate uuid)}
    * ``resource_provider_traits``: {(provider uuid, trait name)}
    * ``consumers``: uuid -> (project external id, user external id,
      consumer type name or None, generation)
    * ``allocations``: (consumer uuid, provider uuid, class name) -> used
    * the others: sets of names / external ids / aggregate uuids
    """

    resource_classes: set = dataclasses.field(default_factory=set)
    traits: set = dataclasses.field(default_factory=set)
    projects: set = dataclasses.field(default_factory=set)
    users: set = dataclasses.field(default_factory=set)
    consumer_types: set = dataclasses.field(default_factory=set)
    resource_providers: dict = dataclasses.field(default_factory=dict)
    inventories: dict = dataclasses.field(default_factory=dict)
    placement_aggregates: set = dataclasses.field(default_factory=set)
    resource_provider_aggregates: set = dataclasses.field(default_factory=set)
    resource_provider_traits: set = dataclasses.field(default_factory=set)
    consumers: dict = dataclasses.field(default_factory=dict)
    allocations: dict = dataclasses.field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        return {t: len(getattr(self, t)) for t in TABLES}


@dataclasses.dataclass
class Change:
    """What one table needs: keys to insert, keys whose values differ, keys to delete."""

    inserted: Any
    updated: Any
    deleted: Any

    def __len__(self) -> int:
        return len(self.inserted) + len(self.updated) + len(self.deleted)


def diff(old: State, new: State) -> dict[str, Change]:
    """Per table, what turns ``old`` (berth's) into ``new`` (the source's).

    Keys are sorted lists, so the writes (and any error they meet) are the
    same from run to run.  Unchanged rows appear nowhere.
    """
    changes = {}
    for table in TABLES:
        before, after = getattr(old, table), getattr(new, table)
        if before == after:      # one comparison in C: most tables of a catch-up
            inserted, updated, deleted = [], [], []
        elif table in VALUED:
            new_keys = after.keys() - before.keys()
            inserted = _sorted(new_keys)
            deleted = _sorted(before.keys() - after.keys())
            # keys on both sides whose values differ (one lookup each, no set of pairs)
            was = before.get
            updated = _sorted([k for k, v in after.items()
                               if k not in new_keys and was(k) != v])
        else:
            inserted = _sorted(after - before)
            deleted = _sorted(before - after)
            updated = []
        changes[table] = Change(inserted, updated, deleted)
    return changes


def _sorted(keys: Any) -> list:
    """``keys`` in :func:`_order`'s order.

    Keys of strings (or tuples of strings) sort the same without the key
    function, which cost a third of a full import's diff (bench/adoption.py).
    """
    try:
        return sorted(keys)
    except TypeError:            # a key holding something not a string
        return sorted(keys, key=_order)


def _order(key: Any) -> Any:
    # keys are strings or tuples of strings
    return key if isinstance(key, str) else tuple(str(k) for k in key)


def touched_providers(changes: dict[str, Change]) -> set[str]:
    """Uuids of the surviving providers whose row, inventories, traits or aggregates change.

    Their ``updated_at`` is set by the import: berth's candidate index
    re-reads a provider whose scanned row (generation, timestamps) changed
    (objects/candidates/index.py).
    """
    uuids: set[str] = set()
    ch = changes['resource_providers']
    uuids.update(ch.inserted)
    uuids.update(ch.updated)
    for table in ('inventories', 'resource_provider_aggregates', 'resource_provider_traits'):
        c = changes[table]
        for key in (*c.inserted, *c.updated, *c.deleted):
            uuids.add(key[0])
    return uuids - set(ch.deleted)


def summary(changes: dict[str, Change]) -> dict[str, tuple[int, int, int]]:
    """table -> (inserted, updated, deleted)."""
    return {t: (len(c.inserted), len(c.updated), len(c.deleted)) for t, c in changes.items()}
