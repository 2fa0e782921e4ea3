"""A per-process index of every provider, refreshed in each search's snapshot.

Reading every provider's inventories, usage, traits and aggregates costs
more than searching them.  The index keeps the loader's Provider objects and
brings them up to date at the start of each unlimited search, inside the
search's own read transaction (one snapshot):

* one scan of (id, uuid, generation, parent, root, created_at, updated_at)
  of every provider (every generation bump sets updated_at), and one of the
  summed usage per (provider, class): usage is not covered by generations
  (deleting a consumer's allocations, or moving them, does not bump the
  providers they leave);
* providers that are new, or whose row changed, are re-read with set-based
  statements by id (inventory, trait and aggregate writes bump the
  generation); a provider whose usage alone changed gets new inventory tuples.

Resource class and trait ids name the same thing for as long as a provider
refers to them (they cannot be deleted while in use); a provider re-created
under an old id (SQLite re-uses the highest rowid), even with its old uuid,
differs in created_at.  When the database's change token (SQLite's
data_version or PostgreSQL's snapshot, see db/change.py) is known to name
the search's snapshot and equals the token of the last refresh, even the
scans are skipped (limited searches use the index only then).  Provider
objects are never changed once published: a refresh builds new ones and
publishes a new immutable :class:`State`.
"""

from collections.abc import Iterable, Iterator
import contextlib
import logging
import threading
import time
from typing import Any

import sqlalchemy as sa

from common import heap
from db import models
from objects.candidates import anchor_memo, inventory_reader, loader, lone, per_database
from objects.candidates import features as features_mod
from objects.candidates import shapes as shapes_mod

LOG = logging.getLogger('berth.' + __name__)

_RP = models.ResourceProvider.__table__
_INV = models.Inventory.__table__
_ALLOC = models.Allocation.__table__
_RPT = models.ResourceProviderTrait.__table__
_TRAIT = models.Trait.__table__
_RPA = models.ResourceProviderAggregate.__table__

# the timestamps only compared: as the driver gives them (no datetime parsing)
_SCAN = sa.select(_RP.c.id, _RP.c.uuid, _RP.c.generation, _RP.c.parent_provider_id,
                  _RP.c.root_provider_id, sa.type_coerce(_RP.c.created_at, sa.String),
                  sa.type_coerce(_RP.c.updated_at, sa.String))
# a scan row's columns by name: rows stay the driver's plain tuples (kept on
# every Provider and compared whole), as a NamedTuple made per row costs ten
# times a tuple's making on each refresh's scan (100,000 rows: 60 ms, not 6)
ID, UUID, GENERATION, PARENT_ID, ROOT_ID, CREATED_AT, UPDATED_AT = range(7)
_USAGE = (sa.select(_ALLOC.c.resource_provider_id, _ALLOC.c.resource_class_id,
                    sa.func.sum(_ALLOC.c.used))
          .group_by(_ALLOC.c.resource_provider_id, _ALLOC.c.resource_class_id))
SETTLE_AFTER = 1000           # providers: a first load this large freezes the heap

_IDS: sa.BindParameter[list[int]] = sa.bindparam('ids', expanding=True)
_INVENTORIES = (sa.select(_INV.c.resource_provider_id, _INV.c.resource_class_id,
                          _INV.c.total, _INV.c.reserved, _INV.c.min_unit,
                          _INV.c.max_unit, _INV.c.step_size, _INV.c.allocation_ratio)
                .where(_INV.c.resource_provider_id.in_(_IDS)))
_TRAITS = (sa.select(_RPT.c.resource_provider_id, _RPT.c.trait_id, _TRAIT.c.name)
           .select_from(_RPT.join(_TRAIT, _TRAIT.c.id == _RPT.c.trait_id))
           .where(_RPT.c.resource_provider_id.in_(_IDS)))
_AGGREGATES = (sa.select(_RPA.c.resource_provider_id, _RPA.c.aggregate_id)
               .where(_RPA.c.resource_provider_id.in_(_IDS)))
# every row of those (a first load): whole-table reads
_INVENTORIES_ALL = sa.select(*_INVENTORIES.selected_columns)
# (no join to the names: each trait's name is read once, _TRAIT_NAMES, not once
# per provider that has it; a third less time in SQLite at 100,000 computes)
_TRAITS_ALL = sa.select(_RPT.c.resource_provider_id, _RPT.c.trait_id)
_TRAIT_NAMES = sa.select(_TRAIT.c.id, _TRAIT.c.name)
_AGGREGATES_ALL = sa.select(_RPA.c.resource_provider_id, _RPA.c.aggregate_id)
_INVENTORY_TOP = sa.select(sa.func.max(_INV.c.id))
# providers to re-read from which whole tables are read (when half of all or more)
WHOLE_READ_AFTER = 5000


# shared by every provider without traits or aggregates (never changed)
_NONE: dict = {}
_NO_AGGS: frozenset = frozenset()


class State:
    """One published, immutable view of every provider.

    ``providers`` {id: Provider}; ``trees`` {root id: [Provider] by id};
    ``roots`` their sorted ids; ``ordered`` every provider by id; ``token``
    the change token it is known to be
    current for, or None; ``features`` which trees hold which traits and
    classes (objects/candidates/features); ``usage`` {id: {class id: used}}
    as the refresh read it.  Each provider is one object (loader.Provider,
    its scan row on it), nothing else per provider.
    """

    def __init__(self, token, usage, providers, sharing_trait, features=None):
        self.token = token
        self.usage = usage
        self.providers = providers
        self.sharing_trait = sharing_trait
        # every provider by id (summary.Summaries: an unlimited answer's, in order)
        self.ordered = [providers[rp_id] for rp_id in sorted(providers)]
        self.trees: dict[int, list[loader.Provider]] = {}
        for p in self.ordered:
            self.trees.setdefault(p.root_id, []).append(p)
        self.roots = sorted(self.trees)
        self.nested = any(p.parent_id is not None for p in providers.values())
        self.sharing = {p.id: (p.root_id, p.aggs) for p in providers.values() if p.sharing}
        self._links = {}
        self._lock = threading.Lock()
        self.anchors = anchor_memo.AnchorMemo()
        self.features = features if features is not None else features_mod.Features()
        self._lone: list = []        # [lone.LoneGroups] once built (shared by retoken twins)

    def lone_groups(self):
        """The lone trees by inventory (objects/candidates/lone.py), built on first use."""
        if not self._lone:
            built = lone.LoneGroups(self.trees)
            with self._lock:
                if not self._lone:
                    self._lone.append(built)
        return self._lone[0]

    def retoken(self, token):
        """This same view, known to be current for ``token``."""
        if token == self.token:
            return self
        twin = object.__new__(State)
        twin.__dict__.update(self.__dict__)
        twin.token = token
        return twin

    def links_by_root(self, agg_ids):
        """{root id: the aggregates of ``agg_ids`` its tree's providers are in}."""
        key = frozenset(agg_ids)
        with self._lock:
            found = self._links.get(key)
        if found is None:
            found = {}
            for p in self.providers.values():
                if p.aggs & key:
                    found.setdefault(p.root_id, set()).update(p.aggs & key)
            with self._lock:
                self._links[key] = found
        return found


def _provider(row, base, traits, aggs, used, sharing_trait, shapes):
    """The Provider of scan ``row``, its base inventory, traits, aggregates and usage."""
    return loader.Provider(row[ID], row[UUID], row[PARENT_ID], row[ROOT_ID],
                           shapes.of(base, used), traits, aggs,
                           sharing_trait is not None and sharing_trait in traits, row)


def _base_of(p):
    """The base inventory (class id -> (min, max, step, capacity)) of indexed ``p``."""
    return {rc_id: (min_unit, max_unit, step, capacity)
            for rc_id, (min_unit, max_unit, step, _free, capacity, _used) in p.inv.items()}


def _read_bases(ctx: Any, rows: list[tuple], everyone: int,
                helper: Any = None) -> tuple[dict, dict, dict]:
    """({id: base inventory}, {id: traits}, {id: aggregates}) of the providers of ``rows``.

    ``everyone``: scan rows in all.  A base inventory maps class id -> (min,
    max, step, capacity).  A region's providers mostly repeat a few
    inventories, trait sets and aggregate sets: equal ones are one object,
    each trait name one string (never changed: Provider objects are
    immutable once published).  At 10,000 computes that is 17 % of the
    index's heap.  Providers without any are absent from a mapping.
    ``helper``: an inventory_reader.Helper reading the inventories meanwhile.
    """
    wanted = {row[ID] for row in rows}
    # names, trait sets, aggregate sets, inventories
    sets: tuple[dict, dict, dict, dict] = {}, {}, {}, {}
    found: tuple[dict, dict, dict] = {}, {}, {}
    if len(wanted) >= WHOLE_READ_AFTER and len(wanted) * 2 >= everyone:
        # (the first load) whole tables: 3 statements instead of 3 per CHUNK
        # providers, rows of the providers not asked for skipped
        trait_names = dict(_fetch(ctx, _TRAIT_NAMES))
        _fill(wanted, () if helper else _stream(ctx, _INVENTORIES_ALL),
              _stream(ctx, _TRAITS_ALL), _stream(ctx, _AGGREGATES_ALL), sets, found,
              trait_names)
        invs = helper.result(LOG) if helper else None
        if invs is not None:
            found[0].update(invs if len(invs.keys() - wanted) == 0 else
                            {rp_id: inv for rp_id, inv in invs.items() if rp_id in wanted})
        elif helper:
            _fill(wanted, _stream(ctx, _INVENTORIES_ALL), (), (), sets, found)
        return found
    for chunk in loader._chunks(sorted(wanted)):
        params = {'ids': chunk}
        _fill(wanted, ctx.session.execute(_INVENTORIES, params).all(),
              ctx.session.execute(_TRAITS, params).all(),
              ctx.session.execute(_AGGREGATES, params).all(), sets, found)
    return found


def _fill(wanted: set[int], inventories: Iterable[Any], traits_rows: Iterable[Any],
          agg_rows: Iterable[Any], sets: tuple[dict, dict, dict, dict],
          found: tuple[dict, dict, dict], trait_names: dict[int, str] | None = None) -> None:
    """Add the inventories, traits and aggregates of ``wanted`` ids to ``found``'s maps.

    ``traits_rows`` are (provider id, trait id, name), or (provider id,
    trait id) with ``trait_names`` {trait id: name}.
    """
    names, trait_sets, agg_sets, inv_sets = sets
    found_invs, found_traits, found_aggs = found
    invs: dict[int, Any] = {}
    for (rp_id, rc_id, total, reserved, min_unit, max_unit, step,
         ratio) in inventories:
        if rp_id in wanted:
            invs.setdefault(rp_id, []).append(
                (rc_id, (min_unit, max_unit, step, int((total - reserved) * ratio))))
    # equal inventories one dict (a dict per provider was ~200 bytes each)
    found_invs.update(_share(invs, inv_sets, tuple))
    del invs
    traits: dict[int, Any] = {}
    if trait_names is None:
        for rp_id, trait_id, name in traits_rows:
            if rp_id in wanted:
                traits.setdefault(rp_id, []).append((trait_id, names.setdefault(name, name)))
    else:
        get_name = trait_names.get
        for rp_id, trait_id in traits_rows:
            if rp_id in wanted:
                name = get_name(trait_id)
                if name is not None:        # (as the join: a row without its trait is none)
                    traits.setdefault(rp_id, []).append((trait_id, name))
    found_traits.update(_share(traits, trait_sets, frozenset))
    del traits
    aggs: dict[int, Any] = {}
    for rp_id, agg_id in agg_rows:
        if rp_id in wanted:
            aggs.setdefault(rp_id, set()).add(agg_id)
    for rp_id, members in aggs.items():
        frozen = frozenset(members)
        aggs[rp_id] = agg_sets.setdefault(frozen, frozen)
    found_aggs.update(aggs)


def _share(by_provider: dict[int, Any], shared: dict, key: Any) -> dict[int, dict]:
    """``by_provider`` with each provider's items made the one dict of their ``key`` in ``shared``.

    In place (the lists are freed as they are replaced), returned.
    """
    for rp_id, items in by_provider.items():
        k = key(items)
        found = shared.get(k)
        if found is None:
            found = shared[k] = dict(items)
        by_provider[rp_id] = found
    return by_provider


class ProviderIndex:
    """The providers of one Database, as of the newest refresh."""

    def __init__(self):
        self._state = None
        self.refreshes = self.reloaded = 0

    def if_current(self, token, sharing_trait):
        """The published State when ``token`` proves it current, else None (no I/O)."""
        old = self._state
        if (token is not None and old is not None and old.token == token
                and old.sharing_trait == sharing_trait):
            return old
        return None

    def size(self) -> int:
        """How many providers the published State holds (0: none published)."""
        state = self._state
        return len(state.providers) if state is not None else 0

    def token(self) -> Any:
        """The change token the published State is known current for, or None."""
        state = self._state
        return state.token if state is not None else None

    def retoken(self, old: Any, new: Any) -> bool:
        """Name the published State current for ``new`` when it is for ``old``.

        A forked worker's: the State the master built for its token ``old``
        is current for the worker's own ``new`` when the master has seen no
        commit between them (objects/candidates/preload.py).  True when done.
        """
        state = self._state
        if old is None or new is None or state is None or state.token != old:
            return False
        self._state = state.retoken(new)
        return True

    def current(self, ctx, token, sharing_trait):
        """The State of the caller's snapshot (``ctx.session``'s transaction).

        ``token`` is the change token known to name that snapshot, or None.
        """
        old = self._state
        state = self.if_current(token, sharing_trait)
        if state is not None:
            return state
        if old is None:
            LOG.info('candidate index: reading every provider (first load)')
            began = time.monotonic()
        with heap.collection_paused():
            # millions of new objects at 1,000,000 computes, all kept: the
            # collections they triggered walked the whole growing heap
            # (100,000 computes: 3.3 s with them, 1.4 s paused)
            state = self._refresh(ctx, old, token, sharing_trait)
        self._state = state
        if old is None:
            LOG.info('candidate index: %d providers loaded in %.1f s',
                     len(state.providers), time.monotonic() - began)
            if len(state.providers) >= SETTLE_AFTER:
                # the process's largest long-lived structure was just built:
                # frozen without a collection (see heap.settle)
                heap.settle(collect=False)
        elif state.providers is not old.providers and len(state.providers) >= SETTLE_AFTER:
            # a rebuild's new objects: out of every later collection's walk
            heap.freeze()
        return state

    def _refresh(self, ctx, old, token, sharing_trait):
        helper = None
        if old is None and token is not None and ctx.db.is_sqlite:
            # a first load's inventories: read by a helper process meanwhile
            helper = inventory_reader.start(ctx, token, _fetch(ctx, _INVENTORY_TOP)[0][0])
        try:
            return self._refresh_helped(ctx, old, token, sharing_trait, helper)
        finally:
            if helper is not None:
                helper.close()

    def _refresh_helped(self, ctx, old, token, sharing_trait, helper):
        self.refreshes += 1
        usage: dict[int, dict[int, int]] = {}
        for rp_id, rc_id, used in _fetch(ctx, _USAGE):
            usage.setdefault(rp_id, {})[rc_id] = int(used)
        same = old is not None and old.sharing_trait == sharing_trait
        old_providers = old.providers if old is not None else {}
        old_usage = old.usage if old is not None else {}
        providers, stale, rebuild = {}, [], []
        for row in _fetch(ctx, _SCAN):
            rp_id = row[ID]
            p = old_providers.get(rp_id)
            if p is None or p.row != row:
                stale.append(row)
            elif same and old_usage.get(rp_id) == usage.get(rp_id):
                providers[rp_id] = p
            else:
                rebuild.append(p)       # its row unchanged: its usage, or the sharing trait
        if same and not stale and not rebuild and len(providers) == len(old_providers):
            return old.retoken(token)
        shapes = shapes_mod.Shapes()
        for p in rebuild:
            providers[p.id] = _provider(p.row, _base_of(p), p.traits, p.aggs,
                                        usage.get(p.id), sharing_trait, shapes)
        if stale:
            self.reloaded += len(stale)
            invs, traits, aggs = _read_bases(ctx, stale, len(providers) + len(stale), helper)
            for row in stale:
                rp_id = row[ID]
                providers[rp_id] = _provider(row, invs.get(rp_id, _NONE),
                                             traits.get(rp_id, _NONE),
                                             aggs.get(rp_id, _NO_AGGS), usage.get(rp_id),
                                             sharing_trait, shapes)
            del invs, traits, aggs
        for rp_id, p in old_providers.items():
            if providers.get(rp_id) is not p:
                # a replaced provider's memo (what searches derived from it)
                # would keep it alive in a cycle, frozen (heap.freeze) for good
                p.memo.clear()
        state = State(token, usage, providers, sharing_trait)
        if old is not None:
            state.features = old.features.carried(state, _touched(old_providers, providers,
                                                                  stale))
        if same:
            state.anchors = old.anchors      # entries check their providers
        return state


def _touched(old_providers, providers, stale):
    """The roots, old and new, of the providers re-read (``stale``), new or gone."""
    touched = set()
    new = 0
    for row in stale:
        touched.add(row[ROOT_ID])
        old = old_providers.get(row[ID])
        if old is None:
            new += 1
        else:
            touched.add(old.root_id)
    if len(old_providers) + new != len(providers):        # some were deleted
        touched.update(p.root_id for rp_id, p in old_providers.items()
                       if rp_id not in providers)
    return touched


_SQL: dict[tuple[Any, str], str] = {}   # (statement, dialect) -> its SQL


@contextlib.contextmanager
def _cursor(ctx: Any, statement: Any) -> Iterator[Any]:
    """A driver cursor that has executed the parameterless ``statement``; closed after.

    In the caller's transaction (``ctx.session.connection()`` has begun it);
    the statement's SQL is compiled once per dialect.
    """
    conn = ctx.session.connection()
    key = (statement, conn.dialect.name)
    sql = _SQL.get(key)
    if sql is None:
        sql = _SQL[key] = str(statement.compile(dialect=conn.dialect))
    cursor = conn.connection.dbapi_connection.cursor()
    try:
        cursor.execute(sql)
        yield cursor
    finally:
        cursor.close()


def _stream(ctx: Any, statement: Any, rows: int = 10000) -> Iterator[Any]:
    """The rows of a parameterless ``statement``, fetched ``rows`` at a time (no list of all)."""
    with _cursor(ctx, statement) as cursor:
        while True:
            got = cursor.fetchmany(rows)
            if not got:
                return
            yield from got


def _fetch(ctx, statement):
    """All rows of a parameterless ``statement`` as plain tuples, straight from the driver."""
    with _cursor(ctx, statement) as cursor:
        return [tuple(row) for row in cursor.fetchall()]


# for_database(db): the process's ProviderIndex of ``db``
for_database = per_database.PerDatabase(ProviderIndex)
