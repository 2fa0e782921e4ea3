"""The conductor RPC API version: the only copy, imported by client and endpoint.

History (add a line for every change; bump the minor version for a new method
or a new optional argument, the major version for anything incompatible):

* 1.0 - ``ping``: which conductor answered and the members it sees.
* 1.1 - ``create_allocation`` (cast) and ``destroy_allocation`` (call): node
  allocations.
* 1.2 - ``claim_resources``, ``delete_allocations`` and ``reshape`` (calls):
  Placement allocation writes, routed by the root of the first provider.
* 1.3 - ``schedule_and_claim`` (call): search, weigh and claim in one call,
  routed by the first consumer uuid.
* 1.4 - ``create_allocation`` takes ``wait``: given, it is a call that answers
  the allocation's outcome once it is done (or None after ``wait`` seconds).
* 1.5 - ``create_allocations`` (call): several allocation ids in one message
  (concurrent API requests for the same conductor), a result per id, in order.
* 1.6 - ``backfill_allocation``, ``update_allocation``, ``update_node``,
  ``set_node_provision_state`` and ``destroy_node`` (calls): the allocation
  writes that were done in the API process (a backfill, an allocation PATCH,
  the node writes that delete an allocation) run
  on the allocation's conductor.  A client capped below 1.6 refuses them
  with 503 and changes nothing (it never does a conductor's write itself);
  finish the upgrade and lift the cap.
* 1.7 - ``update_compute_node`` (call): a compute service reports its
  capacity (nova's resource tracker path), routed to the owner of the
  compute node's provider tree; the conductor creates the node (row,
  provider and inventories in one transaction) or saves what changed.  A
  client capped below 1.7 refuses it with 503 and writes nothing.  1.7 is
  also the upgrade gate of the compute-node write path: only when every
  conductor in the ring publishes 1.7 or later do creates make providers and
  reads migrate legacy rows (conductor/rpcapi/gate.py).
* 1.8 - every call but ``ping`` and ``create_allocation(s)`` takes
  ``call_id`` (a uuid, once per logical call): a client resends a call not
  answered within ``[conductor] rpc_attempt_timeout`` with the same id, and
  the conductor runs it once and answers a replay with the first attempt's
  outcome (conductor/manager/replay.py).  A client capped below 1.8, or
  calling a conductor that publishes an older version, sends no id and
  never replays.
* 1.9 - ``claim_resources_many`` (call, with ``call_id``): the concurrent
  claims of one caller for one conductor in one message, a rule check and an
  answer per claim (None, or its error serialised as oslo.messaging
  serialises a call's), written in one transaction.  A client capped below
  1.9, or calling a conductor that refuses it, sends ``claim_resources``
  per claim as before (conductor/rpcapi/claim_batch.py).
* 1.10 - every message's context carries ``berth_deadline`` (Unix seconds,
  covered by the signature): when its caller stops waiting (the client's RPC
  timeout for the logical call, replays included).  A conductor drops a
  message whose deadline, plus ``[rpc] deadline_grace``, has passed, at
  dispatch and again before a claim or node-allocation write commits, and
  raises ``RequestExpired`` (a ServiceUnavailable) having written nothing
  (common/deadline.py).  No argument changed: a conductor older than 1.10
  ignores the field, so a client sends it whatever its cap; a message without
  it (an older client) never expires.
* 1.11 - every reply of a message that verified is signed (the reply field
  ``berth_reply``: HMAC with the key that verified the request, over its
  nonce, the conductor's name, the message id and the reply;
  common/rpc_reply_sign.py), and a message stamped before the conductor
  started is refused.  No argument changed: an older client ignores the
  field.  A client capped at 1.11 or later believes only signed replies; one
  capped below (during an upgrade, while some conductors are older and sign
  nothing) believes what comes, as before.
"""

RPC_API_VERSION = '1.11'

# every conductor signs its replies: a client capped at it believes only signed ones
REPLY_SIGNING = '1.11'


def allows(cap: str, version: str) -> bool:
    """Whether version cap ``cap`` allows sending ``version`` (same major, minor at least)."""
    have, want = (tuple(int(p) for p in v.split('.')) for v in (cap, version))
    return have[0] == want[0] and have >= want


# the version each method (or argument) came in (the history above); the
# client names these, never a literal
PING = '1.0'
NODE_ALLOCATIONS = '1.1'            # create_allocation (cast), destroy_allocation
PLACEMENT_WRITES = '1.2'            # claim_resources, delete_allocations, reshape
SCHEDULE_AND_CLAIM = '1.3'
ALLOCATION_WAIT = '1.4'             # create_allocation(wait=...)
ALLOCATION_BATCH = '1.5'            # create_allocations
NODE_WRITES = '1.6'                 # backfill and the node writes ending an allocation

# claims coalesced per conductor: ``claim_resources_many``
CLAIM_BATCH = '1.9'

# the version that carries ``call_id``: write calls may be replayed
REPLAY = '1.8'

# the lowest version every conductor must publish before the compute-node
# write path of seed 000 (providers on create, migrate on read) is on
COMPUTE_NODE_WRITES = '1.7'

# the methods of the API (doc/source/rpc.md's table): the conductor dispatches these
# and nothing else (common.rpc_door); every other name is NoSuchMethod
METHODS = frozenset({
    'ping', 'create_allocation', 'create_allocations', 'destroy_allocation',
    'claim_resources', 'claim_resources_many', 'delete_allocations', 'reshape',
    'schedule_and_claim', 'backfill_allocation', 'update_allocation', 'update_node',
    'set_node_provision_state', 'destroy_node', 'update_compute_node',
})
