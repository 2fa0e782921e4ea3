"""The REST API's policy, checked by a conductor on the context of each RPC message.

The published client (doc/source/rpc.md) lets another service on the bus call the
conductors directly, so the bus must not be a way around authorization:
every endpoint method that writes checks the rule its REST handler checks,
on the same target (common.policies.targets), with the roles of the context
that travelled with the message.  berth-api's own calls carry the user's
context, which passed the same rule in the API; the periodic tasks call the
allocator directly and never come through here.  There is no bypass for an
``is_admin`` flag: a remote caller could set it.

A refusal is :class:`common.exception.Forbidden` (typed over RPC, a 403 in
both APIs).  As in the REST API, a node or allocation the caller may not see
is answered as one that does not exist.
"""

import dataclasses

from oslo_policy import policy as oslo_policy

from common import exception
from common import policy as common_policy
from common.policies import baremetal as baremetal_policies
from common.policies import placement as placement_policies
from common.policies import targets
from common.policies.baremetal import endpoints as bm
from common.policies.placement import endpoints as pl
from common.policies.placement import extensions as pl_ext
from objects.baremetal import allocation as node_alloc
from objects.baremetal import node as node_obj

# Placement's refusal text (api.placement.policy), Ironic's is the exception's own
PLACEMENT_DENIED = 'Policy does not allow %s to be performed.'
# Ironic's answer to a parent_node that is not a node the caller may link to
PARENT_INVALID = "Unable to apply the requested parent_node '%s'. Requested value was invalid."
# create_allocation's ``scope`` when the caller did not ask create_scope
_ASK = object()


class Authorizer:
    """The two APIs' enforcers on this conductor's configuration ([oslo_policy])."""

    def __init__(self, conf):
        self.conf = conf
        self.placement = common_policy.make_enforcer(conf, placement_policies.list_rules())
        self.baremetal = common_policy.make_enforcer(conf, baremetal_policies.list_rules())

    # -- Placement ---------------------------------------------------------

    def _placement(self, ctx, *rules):
        """Forbidden unless ``ctx`` passes one of ``rules`` (the first is named)."""
        target = targets.placement(ctx)
        if not any(_passes(self.placement, rule, target, ctx) for rule in rules):
            raise exception.Forbidden(PLACEMENT_DENIED % rules[0], rule=rules[0])

    def claim_resources(self, ctx, consumers):
        """PUT /allocations/{c} checks ``update``, POST /allocations ``manage``."""
        if len(consumers) == 1:
            self._placement(ctx, pl.ALLOCATIONS_UPDATE, pl.ALLOCATIONS_MANAGE)
        else:
            self._placement(ctx, pl.ALLOCATIONS_MANAGE)

    def delete_allocations(self, ctx):
        self._placement(ctx, pl.ALLOCATIONS_DELETE)

    def reshape(self, ctx):
        self._placement(ctx, pl.RESHAPER_RESHAPE)

    def schedule_and_claim(self, ctx):
        self._placement(ctx, pl_ext.CLAIMS_CREATE)

    def update_compute_node(self, ctx):
        """A capacity report creates a provider and writes its inventories.

        The REST calls it stands for: POST /resource_providers and
        PUT /resource_providers/{uuid}/inventories; both rules must pass.
        """
        self._placement(ctx, pl.RESOURCE_PROVIDERS_CREATE)
        self._placement(ctx, pl.RESOURCE_PROVIDERS_INVENTORIES_UPDATE)

    # -- bare metal --------------------------------------------------------

    def _check(self, ctx, rule, extra=None):
        target = targets.baremetal(ctx, extra, targets.service_project(self.conf))
        return targets.has_scope(ctx) and _passes(self.baremetal, rule, target, ctx)

    @staticmethod
    def _require_scope(ctx, rule):
        """A token with neither system nor project scope is refused before any lookup."""
        if not targets.has_scope(ctx):
            raise exception.Forbidden(rule=rule)

    def _authorize(self, ctx, rule, extra=None):
        if not self._check(ctx, rule, extra):
            raise exception.Forbidden(rule=rule)

    def _node(self, ctx, ident, *rules):
        """The node ``ident`` if ``ctx`` may see it (else NodeNotFound), then
        every one of ``rules`` (Forbidden naming the first refused)."""
        self._require_scope(ctx, rules[0])
        node = node_obj.get(ctx, ident)
        target = targets.node(node)
        if not self._check(ctx, bm.NODE_GET, target):
            raise exception.NodeNotFound(node=ident)
        for rule in rules:
            self._authorize(ctx, rule, target)
        return node

    def _allocation(self, ctx, alloc, ident, rule):
        self._require_scope(ctx, rule)
        if not self._check(ctx, bm.ALLOCATION_GET, targets.allocation(alloc)):
            raise exception.AllocationNotFound(allocation=ident)
        self._authorize(ctx, rule, targets.allocation(alloc))

    def _project_scope(self, ctx):
        """The project a caller without ``create_restricted`` allocates for, else None."""
        if self._check(ctx, bm.ALLOCATION_CREATE_RESTRICTED):
            return None
        return ctx.project_id

    def create_scope(self, ctx):
        """``allocation:create`` (else Forbidden); then the one owner whose rows
        ``ctx`` may create, or None when any (``create_restricted``)."""
        self._authorize(ctx, bm.ALLOCATION_CREATE)
        return self._project_scope(ctx)

    def create_allocation(self, ctx, alloc, scope=_ASK):
        """``allocation:create``; another project's row needs ``create_restricted``.

        ``scope``: what :meth:`create_scope` answered for ``ctx``, when known.
        """
        if scope is _ASK:
            scope = self.create_scope(ctx)
        if scope is not None and alloc.owner != scope:
            raise exception.Forbidden(rule=bm.ALLOCATION_CREATE_RESTRICTED)

    def backfill(self, ctx, new, node):
        """As POST /v1/allocations with ``node``; answers ``new`` (a
        common.node_allocation_contract.NewAllocation) with the owner set."""
        self._authorize(ctx, bm.ALLOCATION_CREATE)
        scope = self._project_scope(ctx)
        if scope is not None:
            if new.owner not in (None, scope):
                raise exception.Forbidden(rule=bm.ALLOCATION_CREATE_RESTRICTED)
            new = dataclasses.replace(new, owner=scope)
        found = node_obj.get(ctx, node)
        if not self._check(ctx, bm.NODE_GET, targets.node(found)):
            raise exception.NodeNotFound(node=node)
        return new

    def destroy_allocation(self, ctx, uuid):
        self._allocation(ctx, node_alloc.get(ctx, uuid), uuid, bm.ALLOCATION_DELETE)

    def update_allocation(self, ctx, uuid):
        self._allocation(ctx, node_alloc.get(ctx, uuid), uuid, bm.ALLOCATION_UPDATE)

    def update_node(self, ctx, node, change):
        """PATCH /v1/nodes/{node} (a common.node_update_contract.NodeUpdate): each
        changed field's own rule, else ``node:update``.

        A ``parent_node`` being set must be a node ``ctx`` may see whose owner
        is the node's (api/baremetal/node_parent.py checks the same before it
        calls; a caller on the bus is not trusted to have), else Invalid with
        Ironic's one text, which tells nothing of other projects' nodes.
        """
        found = self._node(ctx, node, *bm.update_rules(change.changed))
        if 'parent_node' in change.changed and change.parent_node is not None:
            self._parent(ctx, found, change.parent_node)

    def _parent(self, ctx, node, ident):
        try:
            parent = node_obj.get(ctx, ident)
        except (exception.NotFound, exception.Invalid):
            parent = None
        if (parent is None or not self._check(ctx, bm.NODE_GET, targets.node(parent))
                or parent.owner != node.owner):
            raise exception.Invalid(PARENT_INVALID % ident)

    def set_node_provision_state(self, ctx, node):
        self._node(ctx, node, bm.NODE_PROVISION)

    def destroy_node(self, ctx, node):
        """DELETE /v1/nodes/{node}: ``node:delete``, else (with ``[api]
        project_admin_can_manage_own_nodes``, as the API) ``node:delete:self_owned_node``."""
        try:
            self._node(ctx, node, bm.NODE_DELETE)
        except exception.Forbidden:
            if not self.conf.api.project_admin_can_manage_own_nodes:
                raise
            self._node(ctx, node, bm.NODE_DELETE_SELF_OWNED)


def _passes(enforcer, rule, target, ctx):
    try:
        return enforcer.authorize(rule, target, ctx, do_raise=False) is True
    except oslo_policy.InvalidScope:
        return False
