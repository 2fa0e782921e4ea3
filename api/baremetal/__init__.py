"""The bare-metal REST API: Ironic's /v1 nodes, chassis, drivers and allocations (1.1-1.65).

Enough of Ironic's node API for the allocation workflow and its clients
(``openstack baremetal node|allocation ...``, openstacksdk), and the whole
allocation API.  Where berth deliberately answers differently from Ironic:

* a failed backfill (``node`` on POST, 1.58) is a 400 with the reason, not a
  500; the ``error`` allocation row Ironic leaves behind is left too;
* allocation and node names that look like a UUID are refused (400): Ironic
  accepts them but can never find them by name;
* ``POST /v1/allocations`` never answers 500 when no conductor is reachable:
  it is a 503 and nothing is stored;
* provision verbs run at once on the fake hardware (``manage`` gives a known
  power state, ``active`` and ``deleted`` skip deploying and cleaning); only
  the ``fake-hardware`` hardware type is offered (/v1/drivers) and accepted,
  and no driver is loaded;
* chassis, protection, retirement and driver interfaces are data with
  Ironic's rules (node_fields.py); a chassis ``uuid`` cannot be patched;
* policies are Ironic's secure-RBAC defaults (common.policies.baremetal), with
  their owner/lessee rules: project readers see the nodes their project owns
  or leases (fields restricted as Ironic restricts them) and its allocations,
  members create and delete their project's allocations; anything else is
  answered as if it did not exist.  A domain-scoped or unscoped token is
  refused (403) whatever its roles; the ``noauth2`` caller is a system admin.
"""
