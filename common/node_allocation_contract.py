"""The node allocation contract: one typed value per write of /v1/allocations.

A new allocation (POST /v1/allocations, a backfill included) is one
:class:`NewAllocation`, built by the REST handler
(api/baremetal/handlers/allocation.py) from the validated body, and taken
as it is by the row writers (objects.baremetal.allocation.create,
allocation_inserts.create, backfill.backfill); a backfill crosses RPC as
its primitive (``backfill_allocation``'s ``values``).  A PATCH is one
:class:`AllocationUpdate` from the handler through ``update_allocation``,
the conductor's checks and notifications, to objects.baremetal.allocation.update.
A backfill's answer is one :class:`BackfillAnswer`.

Each is turned into plain JSON only at the wire (``to_primitive``), and the
conductor's endpoint, once conductor.manager.write_checks has bounded the
untrusted message, reads it again once (``from_primitive``).  The
primitives are the dicts sent before these classes existed, key for key
(tests/unit/test_node_allocation_wire.py pins their bytes); a new
allocation's keys go in one fixed order (that of :data:`NEW_FIELDS`; the
body's own order before, which a JSON object does not carry as meaning).
Change a shape only with an RPC version bump (conductor/rpcapi/version.py).

It lives in common/, not objects/: the published RPC client (conductor.rpcapi)
sends it, and another service's process imports that client and common only
(tests/integration/test_rpc_client_process.py).
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

from common import exception, field_checks

# the fields a new allocation may be given, in the order they are sent
NEW_FIELDS = ('name', 'resource_class', 'traits', 'candidate_nodes', 'extra', 'owner',
              'uuid')


@dataclasses.dataclass(frozen=True, slots=True)
class NewAllocation:
    """What a new node allocation is asked to be; None: not given.

    ``uuid`` None gets one when stored (a backfill: the node's instance uuid
    if it has one); ``resource_class`` None is only for a backfill (the
    node's); ``candidate_nodes`` are node uuids (the API resolves names).
    """
    name: str | None = None
    resource_class: str | None = None
    traits: list[str] | None = None
    candidate_nodes: list[str] | None = None
    extra: dict[str, Any] | None = None
    owner: str | None = None
    uuid: str | None = None

    def to_primitive(self) -> dict[str, Any]:
        """The given fields, as ``backfill_allocation`` sends its ``values``."""
        out: dict[str, Any] = {}
        for field in NEW_FIELDS:
            value = getattr(self, field)
            if value is not None:
                out[field] = value
        return out

    def columns(self) -> dict[str, Any]:
        """The given fields as the allocation row's columns (the same keys)."""
        return self.to_primitive()

    @classmethod
    def from_primitive(cls, data: dict[str, Any]) -> NewAllocation:
        """The allocation a message (or a validated body) asks for; Invalid when
        ``data`` is not an object of :data:`NEW_FIELDS`."""
        field_checks.only(data, NEW_FIELDS, 'a new allocation')
        return cls(**{k: v for k, v in data.items() if v is not None})


class Unchanged(enum.Enum):
    """The value of a field an update leaves as it is."""
    UNCHANGED = 'unchanged'


UNCHANGED = Unchanged.UNCHANGED


@dataclasses.dataclass(frozen=True, slots=True)
class AllocationUpdate:
    """A PATCH of an allocation: its new ``name`` (None: no name) and whole ``extra``.

    berth-api always sends both; a caller on the bus may send one
    (the other is then :data:`UNCHANGED`).
    """
    name: str | None | Unchanged = UNCHANGED
    extra: dict[str, Any] | None | Unchanged = UNCHANGED

    def to_primitive(self) -> dict[str, Any]:
        """``update_allocation``'s ``values``: the fields it changes."""
        out: dict[str, Any] = {}
        if self.name is not UNCHANGED:
            out['name'] = self.name
        if self.extra is not UNCHANGED:
            out['extra'] = self.extra
        return out

    def columns(self) -> dict[str, Any]:
        """The columns the update writes."""
        return self.to_primitive()

    @classmethod
    def from_primitive(cls, data: dict[str, Any]) -> AllocationUpdate:
        """The update a message carries (checked by write_checks.update_allocation)."""
        if not isinstance(data, dict) or set(data) - {'name', 'extra'}:
            raise exception.Invalid(reason='an allocation update is an object of '
                                           'name and extra')
        return cls(data.get('name', UNCHANGED), data.get('extra', UNCHANGED))


@dataclasses.dataclass(frozen=True, slots=True)
class BackfillAnswer:
    """What a backfill did: the allocation's ``uuid``, and why the node did not
    fit (``error``; the row is then stored ``error``), or None."""
    uuid: str | None
    error: str | None = None

    def to_primitive(self) -> dict[str, Any]:
        return {'uuid': self.uuid, 'error': self.error}

    @classmethod
    def from_primitive(cls, data: dict[str, Any]) -> BackfillAnswer:
        return cls(data['uuid'], data.get('error'))
