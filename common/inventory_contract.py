"""The inventory contract: a provider's new inventories as one typed value.

POST /reshaper replaces some providers' inventories: the REST handler
(api/placement/handlers/reshaper.py) builds one :class:`ProviderInventories`
per provider, the RPC client sends them inside the reshape (conductor.rpcapi
.payloads.ReshapeBody) as their primitives, and the conductor reads them
again once (:func:`from_primitives`) and hands them to
objects.placement.reshaper, which turns each record into the Inventory it
writes (objects.placement.inventory.from_record: the defaults of the fields
not given).

The primitive is what the client wrote, key for key and in its order,
numbers as written (tests/unit/test_reshape_wire.py pins the bytes): the
value keeps which fields were given and in which order.  Change it only with
an RPC version bump (conductor/rpcapi/version.py).  It lives in common/ for
the reason common.claim_contract does: the published RPC client sends it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from common import exception

GENERATION = 'resource_provider_generation'


@dataclasses.dataclass(frozen=True, slots=True)
class InventoryRecord:
    """One resource class's inventory as given; a field not in ``given`` takes
    its default where it is written (objects.placement.inventory.DEFAULTS)."""
    given: tuple[str, ...] = ()
    total: int | None = None
    reserved: int | None = None
    min_unit: int | None = None
    max_unit: int | None = None
    step_size: int | None = None
    allocation_ratio: float | None = None

    def to_primitive(self) -> dict[str, Any]:
        """The record as the client wrote it: the given fields, in its order."""
        return {field: getattr(self, field) for field in self.given}

    @classmethod
    def from_primitive(cls, data: dict[str, Any]) -> InventoryRecord:
        if not isinstance(data, dict) or not set(data) <= RECORD_FIELDS:
            raise exception.Invalid(reason='an inventory record is an object of %s'
                                           % ', '.join(sorted(RECORD_FIELDS)))
        return cls(tuple(data), **data)


RECORD_FIELDS = frozenset(f.name for f in dataclasses.fields(InventoryRecord)) - {'given'}


@dataclasses.dataclass(frozen=True, slots=True)
class ProviderInventories:
    """A provider's complete new inventory (empty: none left), checked against
    its ``generation``.  ``generation_first``: the client's key order."""
    generation: int
    inventories: dict[str, InventoryRecord]
    generation_first: bool = True

    def to_primitive(self) -> dict[str, Any]:
        records = {rc: rec.to_primitive() for rc, rec in self.inventories.items()}
        if self.generation_first:
            return {GENERATION: self.generation, 'inventories': records}
        return {'inventories': records, GENERATION: self.generation}

    @classmethod
    def from_primitive(cls, data: dict[str, Any]) -> ProviderInventories:
        """The provider's inventories a message carries; Invalid when not that."""
        try:
            records = {rc: InventoryRecord.from_primitive(rec)
                       for rc, rec in data['inventories'].items()}
            generation = data[GENERATION]
            first = next(iter(data)) == GENERATION
        except (KeyError, TypeError, AttributeError):
            raise exception.Invalid(reason='a provider\'s inventories are an object of '
                                           '%s and inventories' % GENERATION) from None
        return cls(generation, records, first)


def from_primitives(data: dict[str, Any]) -> dict[str, ProviderInventories]:
    """``{provider uuid: ProviderInventories}`` of a reshape's ``inventories``."""
    if not isinstance(data, dict):
        raise exception.Invalid(reason='inventories must be an object')
    return {rp: ProviderInventories.from_primitive(entry) for rp, entry in data.items()}


def to_primitives(inventories: dict[str, ProviderInventories]) -> dict[str, Any]:
    return {rp: entry.to_primitive() for rp, entry in inventories.items()}
