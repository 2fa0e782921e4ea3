"""The claim contract: one consumer's complete new set of Placement allocations.

One typed value carries a claim from the REST handler (PUT /allocations/{c},
POST /allocations, POST /reshaper, built in api/placement/consumers.py) or a
conductor's own writes (POST /claims, a node allocation's mirror) through
the conductor's RPC endpoint, its authorization, its group commit and
objects.placement.allocation.replace to the rows.  It is turned into plain
JSON only at the wire: the RPC client sends :meth:`ClaimConsumer.to_primitive`
(conductor.rpcapi.payloads re-exports this class as its payload), and the
conductor's endpoint, once conductor.manager.write_checks has bounded the
untrusted message, builds it again once with :meth:`ClaimConsumer.from_primitive`.
The primitive is the dict sent before this class existed, key for key and in
the same order (tests/unit/test_claim_wire.py pins its bytes): change it only
with an RPC version bump (conductor/rpcapi/version.py).

It lives in common/, not objects/: the published RPC client (conductor.rpcapi)
sends it, and another service's process imports that client and common only
(tests/integration/test_rpc_client_process.py).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from common import exception

# {resource class: amount}
Resources = dict[str, int]


@dataclasses.dataclass(frozen=True, slots=True)
class ClaimConsumer:
    """One consumer's claim.

    ``allocations`` is ``{provider uuid: {resource class: amount}}`` (empty
    clears the consumer: its allocations are removed, and the consumer);
    ``consumer_type`` None keeps the stored type (a new consumer gets none);
    ``check_generation`` says whether ``generation`` is compared
    (microversion 1.28+), ``generation`` None meaning "a new consumer".
    """
    uuid: str
    allocations: dict[str, Resources]
    project_id: str
    user_id: str
    consumer_type: str | None = None
    check_generation: bool = False
    generation: int | None = None

    @property
    def providers(self) -> set[str]:
        return set(self.allocations)

    def to_primitive(self) -> dict[str, Any]:
        """The claim on the wire (plain JSON; the same bytes as every release before)."""
        return {'uuid': self.uuid,
                'allocations': {rp: dict(res) for rp, res in self.allocations.items()},
                'project_id': self.project_id, 'user_id': self.user_id,
                'consumer_type': self.consumer_type,
                'check_generation': self.check_generation,
                'generation': self.generation}

    @classmethod
    def from_primitive(cls, data: dict[str, Any]) -> ClaimConsumer:
        """The claim a message carries; Invalid when it is not one.

        ``consumer_type``, ``check_generation`` and ``generation`` may be
        absent (an older sender); the other keys are required.
        """
        try:
            return cls(data['uuid'], data['allocations'], data['project_id'],
                       data['user_id'], data.get('consumer_type'),
                       data.get('check_generation', False), data.get('generation'))
        except (KeyError, TypeError, AttributeError) as exc:
            raise exception.Invalid(reason='a claim consumer must be an object with '
                                           'uuid, allocations, project_id and user_id '
                                           '(%s)' % type(exc).__name__) from None


def from_primitives(data: list[dict[str, Any]]) -> list[ClaimConsumer]:
    """The claims of a message's ``consumers`` list (see :meth:`ClaimConsumer.from_primitive`)."""
    return [ClaimConsumer.from_primitive(c) for c in data]
