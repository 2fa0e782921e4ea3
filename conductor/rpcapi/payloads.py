"""Typed payloads of the conductor RPC API, and their wire primitives.

Every value that crosses RPC has one class here with ``to_primitive()``
(what is sent: plain dicts, lists, strings and numbers) and
``from_primitive()`` (what is received).  The primitives are exactly the
dicts sent before these classes existed, key for key and in the same order,
so an old conductor understands a new API and the other way round (rolling
upgrades); tests/unit/conductor/test_payloads.py pins them.  Change a shape
only together with an RPC version bump (conductor/rpcapi/version.py).
"""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any

from common import (
    claim_contract,
    exception,
    inventory_contract,
    node_allocation_contract,
    node_update_contract,
)

# one consumer's claim: the contract in common/ (common.claim_contract; not
# objects/, so that another service's process importing only this published
# client never imports objects/), sent as its primitive; re-exported here as
# the claim_resources/reshape payload
ClaimConsumer = claim_contract.ClaimConsumer
# the node allocation writes (common.node_allocation_contract, in common/ for
# the same reason): backfill_allocation's values and answer, update_allocation's
NewAllocation = node_allocation_contract.NewAllocation
BackfillAnswer = node_allocation_contract.BackfillAnswer
AllocationUpdate = node_allocation_contract.AllocationUpdate
# update_node's values (common.node_update_contract)
NodeUpdate = node_update_contract.NodeUpdate


@dataclasses.dataclass(frozen=True)
class ReshapeBody:
    """A POST /reshaper body: new inventories and the consumers' new allocations.

    ``inventories`` is ``{rp uuid: ProviderInventories}`` (common.inventory_contract).
    """
    inventories: dict[str, inventory_contract.ProviderInventories]
    consumers: list[ClaimConsumer]

    @property
    def providers(self) -> set[str]:
        return set(self.inventories).union(*(c.providers for c in self.consumers))

    def to_primitive(self) -> dict[str, Any]:
        """The keyword arguments of the ``reshape`` RPC call (``tree`` apart)."""
        return {'inventories': inventory_contract.to_primitives(self.inventories),
                'consumers': [c.to_primitive() for c in self.consumers]}

    @classmethod
    def from_primitive(cls, data: dict[str, Any]) -> ReshapeBody:
        return cls(inventory_contract.from_primitives(data['inventories']),
                   [ClaimConsumer.from_primitive(c) for c in data['consumers']])


@dataclasses.dataclass(frozen=True)
class ScheduleConsumer:
    """Who a POST /claims consumer is; the conductor picks its allocations."""
    uuid: str
    project_id: str
    user_id: str
    consumer_type: str | None = None

    def to_primitive(self) -> dict[str, Any]:
        return {'uuid': self.uuid, 'project_id': self.project_id,
                'user_id': self.user_id, 'consumer_type': self.consumer_type}

    @classmethod
    def from_primitive(cls, data: dict[str, Any]) -> ScheduleConsumer:
        return cls(data['uuid'], data['project_id'], data['user_id'],
                   data.get('consumer_type'))


@dataclasses.dataclass(frozen=True)
class ScheduleRequest:
    """A schedule_and_claim call: search, weigh and claim for ``consumers``.

    ``request`` is a ResourceRequest in primitive form
    (objects.candidates.request.to_primitive); ``weigher`` a name or None
    (the conductor's default).
    """
    request: dict[str, Any]
    consumers: list[ScheduleConsumer]
    weigher: str | None = None
    distinct_roots: bool = False

    def to_primitive(self) -> dict[str, Any]:
        """The keyword arguments of the ``schedule_and_claim`` RPC call."""
        return {'request': self.request,
                'consumers': [c.to_primitive() for c in self.consumers],
                'weigher': self.weigher, 'distinct_roots': self.distinct_roots}

    @classmethod
    def from_primitive(cls, data: dict[str, Any]) -> ScheduleRequest:
        return cls(data['request'],
                   [ScheduleConsumer.from_primitive(c) for c in data['consumers']],
                   data.get('weigher'), data.get('distinct_roots', False))


@dataclasses.dataclass(frozen=True)
class ClaimedConsumer:
    """One consumer of a schedule_and_claim answer and what it now holds."""
    consumer_uuid: str
    allocations: dict[str, Any]

    def to_primitive(self) -> dict[str, Any]:
        return {'consumer_uuid': self.consumer_uuid, 'allocations': self.allocations}

    @classmethod
    def from_primitive(cls, data: dict[str, Any]) -> ClaimedConsumer:
        return cls(data['consumer_uuid'], data['allocations'])


def claimed_to_primitive(claimed: list[ClaimedConsumer]) -> list[dict[str, Any]]:
    """The answer of schedule_and_claim on the wire: one dict per consumer."""
    return [c.to_primitive() for c in claimed]


def claimed_from_primitive(data: list[dict[str, Any]]) -> list[ClaimedConsumer]:
    return [ClaimedConsumer.from_primitive(c) for c in data]


@dataclasses.dataclass(frozen=True)
class AllocationOutcome:
    """What a conductor wrote for a node allocation (the answer of a waiting call).

    ``updated_at`` is a naive UTC datetime; on the wire it is ISO 8601
    without an offset (``datetime.isoformat``), or None.
    """
    state: str
    node_uuid: str | None = None
    last_error: str | None = None
    updated_at: datetime.datetime | None = None

    @classmethod
    def of(cls, alloc: Any) -> AllocationOutcome:
        """The outcome an allocation row (objects.baremetal.allocation) shows."""
        return cls(alloc.state, alloc.node_uuid, alloc.last_error, alloc.updated_at)

    def to_primitive(self) -> dict[str, Any]:
        return {'state': self.state, 'node_uuid': self.node_uuid,
                'last_error': self.last_error,
                'updated_at': self.updated_at and self.updated_at.isoformat()}

    @classmethod
    def from_primitive(cls, data: dict[str, Any] | None) -> AllocationOutcome | None:
        """None stays None (the outcome was not known in time)."""
        if data is None:
            return None
        updated = data.get('updated_at')
        return cls(data['state'], data.get('node_uuid'), data.get('last_error'),
                   updated and datetime.datetime.fromisoformat(updated))


def check_report_shape(host: Any, capacity: Any) -> None:
    """Invalid before routing for what cannot be a report (the conductor checks the rest)."""
    if not isinstance(capacity, dict):
        raise exception.Invalid(reason='capacity must be an object')
    if not isinstance(host, str) or not host.strip() or len(host) > 255:
        raise exception.Invalid(reason='host must be a non-empty string of at most '
                                       '255 characters')
    for field in ('hypervisor_hostname', 'uuid'):
        value = capacity.get(field)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise exception.Invalid(reason='%s must be a non-empty string' % field)
