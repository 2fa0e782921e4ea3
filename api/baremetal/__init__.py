"""The bare-metal REST API: Ironic's /v1 nodes and allocations (microversions 1.1-1.60).

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
  the ``fake-hardware``/``manual-management``/``ipmi``/``redfish`` driver
  names are accepted and no driver is loaded;
* policies: nodes are admin-only; project members create, see and delete
  their own project's allocations (owner = their project), as in Ironic's
  secure-RBAC defaults, without the node owner/lessee rules.
"""
