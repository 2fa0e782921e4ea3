"""The conductor registry: one row per conductor that ever registered (Ironic's table).

A conductor registers at start (the row is created, or an older one of the
same hostname taken over, ``online`` true), heartbeats into ``updated_at``
every ``[conductor] heartbeat_interval`` and turns ``online`` off on a clean
stop.  A conductor is *alive* while it is online and its last heartbeat is
younger than ``[conductor] heartbeat_timeout``; a dead one (killed, hung,
cut off from the database, stopped) keeps its row, so operators see it,
until :func:`forget` removes it, which refuses a live one.

Times are UTC from the clock of the process that writes or reads them, as
Ironic's: the hosts' clocks must agree (NTP) to well within the timeout.
"""

from __future__ import annotations

import dataclasses
import datetime

import sqlalchemy as sa

from common import exception
from db import api as db_api
from db import models
from objects.baremetal import node as node_obj

_COND = models.Conductor.__table__
_ALLOC = models.NodeAllocation.__table__

# the hardware types a conductor registers, the one list of the driver names
# berth accepts for a node and /v1/drivers lists (api/baremetal/schemas/node.py
# reads it): every node runs as Ironic's fake-hardware; berth drives no hardware
DRIVERS = ('fake-hardware',)
SORT_KEYS = ('id', 'hostname', 'conductor_group', 'created_at', 'updated_at')


class ConductorNotFound(exception.NotFound):
    msg_fmt = "Conductor %(conductor)s could not be found."


class ConductorAlive(exception.Conflict):
    msg_fmt = ("Conductor %(conductor)s is alive (its last heartbeat is "
               "%(age).0fs old, the timeout %(timeout)ss): stop it before "
               "forgetting it.")


def now() -> datetime.datetime:
    """UTC now, naive (as every DateTime column of berth)."""
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)


@dataclasses.dataclass
class Conductor:
    id: int
    hostname: str
    conductor_group: str
    drivers: list
    online: bool
    created_at: datetime.datetime
    updated_at: datetime.datetime

    def heartbeat_age(self, at: datetime.datetime | None = None) -> float:
        """Seconds since the last heartbeat (0 for one stamped in our future)."""
        return max(0.0, ((at or now()) - self.updated_at).total_seconds())

    def alive(self, timeout: float, at: datetime.datetime | None = None) -> bool:
        """Online, and heartbeating within ``timeout`` seconds (Ironic's ``alive``)."""
        return bool(self.online) and self.heartbeat_age(at) <= timeout


def _from_row(row) -> Conductor:
    return Conductor(id=row.id, hostname=row.hostname,
                     conductor_group=row.conductor_group or '',
                     drivers=list(row.drivers or ()), online=bool(row.online),
                     created_at=row.created_at, updated_at=row.updated_at)


def _get_in_txn(ctx, hostname) -> Conductor:
    row = ctx.session.execute(sa.select(_COND).where(_COND.c.hostname == hostname)).first()
    if row is None:
        raise ConductorNotFound(conductor=hostname)
    return _from_row(row)


@db_api.writer
def register(ctx, hostname: str, conductor_group: str = '',
             drivers=DRIVERS) -> Conductor:
    """Register ``hostname`` online with a fresh heartbeat; its row if it had one.

    A row left by an earlier process of the same hostname (stopped, killed,
    or forgotten meanwhile) is taken over: ``created_at`` keeps the first
    registration, the rest is this process's.
    """
    group, stamp = (conductor_group or '').lower(), now()
    # drivers: a JSON array of names (the column is JSON; Ironic's a list too)
    done = ctx.session.execute(
        sa.update(_COND).where(_COND.c.hostname == hostname).values(
            conductor_group=group, drivers=list(drivers), online=True, updated_at=stamp))
    if done.rowcount == 0:
        ctx.session.execute(sa.insert(_COND).values(
            hostname=hostname, conductor_group=group, drivers=list(drivers), online=True,
            created_at=stamp, updated_at=stamp))
    return _get_in_txn(ctx, hostname)


@db_api.writer
def heartbeat(ctx, hostname: str) -> bool:
    """Stamp ``hostname``'s heartbeat (and ``online``); False when it has no row."""
    done = ctx.session.execute(sa.update(_COND).where(_COND.c.hostname == hostname)
                               .values(updated_at=now(), online=True))
    return done.rowcount > 0


@db_api.writer
def unregister(ctx, hostname: str) -> bool:
    """Mark ``hostname`` offline (a clean stop); its row stays.  False: no row."""
    done = ctx.session.execute(sa.update(_COND).where(_COND.c.hostname == hostname)
                               .values(online=False))
    return done.rowcount > 0


@db_api.reader
def get(ctx, hostname: str) -> Conductor:
    """The registered conductor ``hostname``; ConductorNotFound if none."""
    return _get_in_txn(ctx, hostname)


@db_api.reader
def list_conductors(ctx, limit: int | None = None, marker: str | None = None,
                    sort_key: str = 'id', sort_dir: str = 'asc') -> list[Conductor]:
    """Every registered conductor, alive or dead, one page after ``marker`` (a hostname).

    An unknown marker is ConductorNotFound (Ironic answers 404 for it).
    """
    if marker is not None:
        _get_in_txn(ctx, marker)
    q = node_obj.paginate(sa.select(_COND), _COND, limit, marker, sort_key, sort_dir,
                          lambda m: _get_in_txn(ctx, m), ConductorNotFound)
    return [_from_row(r) for r in ctx.session.execute(q)]


@db_api.writer
def forget(ctx, hostname: str, timeout: float) -> Conductor:
    """Delete the row of ``hostname``, dead or stopped; ConductorAlive if it is alive.

    The delete itself re-checks that the row is dead, so a conductor whose
    heartbeat arrives meanwhile is never forgotten.
    """
    found = _get_in_txn(ctx, hostname)
    stamp = now()
    if found.alive(timeout, stamp):
        raise ConductorAlive(conductor=hostname, age=found.heartbeat_age(stamp),
                             timeout=timeout)
    cutoff = stamp - datetime.timedelta(seconds=timeout)
    done = ctx.session.execute(sa.delete(_COND).where(
        _COND.c.hostname == hostname,
        sa.or_(_COND.c.online.is_(False), _COND.c.updated_at < cutoff)))
    if done.rowcount == 0:
        raise ConductorAlive(conductor=hostname, age=0.0, timeout=timeout)
    return found


@db_api.lagging_reader
def allocation_affinities(ctx, allocation_uuids) -> dict[str, str | None]:
    """``{allocation uuid: conductor_affinity}`` of the given node allocations."""
    uuids = sorted(set(allocation_uuids))
    if not uuids:
        return {}
    rows = ctx.session.execute(sa.select(_ALLOC.c.uuid, _ALLOC.c.conductor_affinity)
                               .where(_ALLOC.c.uuid.in_(uuids)))
    return {uuid: affinity for uuid, affinity in rows}
