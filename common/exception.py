"""Domain exceptions shared by the API, the conductors and the objects layer.

Every exception carries a ``msg_fmt`` filled from keyword arguments.  The API
maps these to HTTP errors in one place; the conductor declares them as
expected so that they cross RPC and are re-raised, typed, in the API process.
"""

from typing import Any


class BerthException(Exception):
    msg_fmt = "An unknown error occurred."

    def __init__(self, message: str | None = None, **kwargs: Any) -> None:
        self.kwargs = kwargs
        if message is None:
            try:
                message = self.msg_fmt % kwargs
            except (KeyError, TypeError):
                message = self.msg_fmt
        self.message = message
        super().__init__(message)


class NotFound(BerthException):
    msg_fmt = "Resource could not be found."


class Invalid(BerthException):
    msg_fmt = "Invalid input: %(reason)s"


class Conflict(BerthException):
    msg_fmt = "Conflict: %(reason)s"


class Forbidden(BerthException):
    """The caller's context does not pass a policy rule (403).

    Raised by a conductor checking the context of an RPC message with the
    REST API's rules; ``rule`` is the rule's name.
    """
    msg_fmt = "%(rule)s is disallowed by policy"


class ResourceProviderNotFound(NotFound):
    msg_fmt = "No resource provider with uuid %(uuid)s found."


class ResourceClassNotFound(NotFound):
    msg_fmt = "No such resource class %(name)s."


class TraitNotFound(NotFound):
    msg_fmt = "No such trait(s): %(names)s."


class InventoryNotFound(NotFound):
    msg_fmt = "No inventory of class %(resource_class)s for %(uuid)s"


class ConsumerNotFound(NotFound):
    msg_fmt = "No consumer with uuid %(uuid)s found."


class ResourceClassExists(Conflict):
    msg_fmt = "Resource class %(name)s already exists."


class ResourceClassInUse(Conflict):
    msg_fmt = "Unable to delete resource class %(name)s. Class is in use in inventory."


class ResourceClassCannotDeleteStandard(Invalid):
    msg_fmt = "Cannot delete standard resource class %(name)s."


class ResourceClassCannotUpdateStandard(Invalid):
    msg_fmt = "Cannot update standard resource class %(name)s."


class TraitExists(Conflict):
    msg_fmt = "The Trait %(name)s already exists."


class TraitInUse(Conflict):
    msg_fmt = "The trait %(name)s is in use by a resource provider."


class TraitCannotDeleteStandard(Invalid):
    msg_fmt = "Cannot delete standard trait %(name)s."


class DuplicateProvider(Conflict):
    msg_fmt = "Conflicting resource provider %(field)s already exists."


class ConcurrentUpdate(Conflict):
    """A provider or consumer generation did not match (client must re-read)."""
    msg_fmt = "%(what)s generation conflict: %(reason)s"


class ConsumerGenerationConflict(ConcurrentUpdate):
    """The client's consumer generation is stale: only a re-read helps, never a retry."""
    msg_fmt = "consumer generation conflict - %(reason)s"


class AllocationProviderNotFound(Invalid):
    msg_fmt = "Allocation for resource provider '%(uuid)s' that does not exist."


class AllocationClassNotFound(Invalid):
    msg_fmt = ("Unable to allocate inventory for consumer %(consumer)s: "
               "No such resource class %(name)s.")


class ReshapeProviderNotFound(Invalid):
    msg_fmt = "Resource provider %(uuid)s in inventories not found."


class ConsumerAllocationsNotFound(NotFound):
    msg_fmt = "No allocations for consumer '%(uuid)s'"


class ProviderTreeRefused(Invalid):
    """A provider's parent refused by the tree rules (Placement's ObjectActionError)."""
    msg_fmt = "Object action %(action)s failed because: %(reason)s"


class ProviderHasChildren(Conflict):
    msg_fmt = "Unable to delete parent resource provider %(uuid)s: It has child resource providers."


class ProviderInUse(Conflict):
    msg_fmt = "Unable to delete resource provider %(uuid)s: Resource provider has allocations."


class InventoryInUse(Conflict):
    msg_fmt = ("Inventory for '%(resource_classes)s' on resource provider "
               "'%(uuid)s' in use.")


class InvalidInventory(Invalid):
    msg_fmt = ("Invalid inventory for '%(resource_class)s' on resource provider "
               "'%(uuid)s'. %(reason)s")


class InvalidAllocation(Conflict):
    """A claim that breaks capacity or the unit rules of an inventory."""
    msg_fmt = "Unable to allocate inventory: %(reason)s"


class NoValidHost(Conflict):
    """No candidate can take a schedule-and-claim request (the reason says why)."""
    msg_fmt = "No valid host was found: %(reason)s"


class QuotaExceeded(BerthException):
    """A write would take a project or user over one of its limits."""
    msg_fmt = ("Quota exceeded for %(scope)s: %(what)s limit %(limit)d, "
               "usage would be %(usage)d.")


class InvalidQuota(Invalid):
    msg_fmt = "Invalid quota limit: %(reason)s"


class ServiceUnavailable(BerthException):
    """No conductor could take the work (none alive, broker down, timeout, pool full)."""
    msg_fmt = "Service unavailable: %(reason)s"


class StorageFull(BerthException):
    """The database's disk (or its size limit) is full: the write was rolled back (507).

    Raised by the database layer (db/storage.py) for SQLite's SQLITE_FULL,
    PostgreSQL's SQLSTATE 53100 and MySQL's table/disk full: an operator must
    free space; the same write succeeds once there is some.
    """
    msg_fmt = ("Insufficient storage: the database's disk is full; nothing was "
               "written. Retry once space has been freed")


class RequestExpired(ServiceUnavailable):
    """A conductor dropped a request whose caller's deadline had passed (nothing written)."""
    msg_fmt = ("Service unavailable: the request (%(method)s) reached its deadline "
               "before it was written; nothing was written")


class OutcomeUnknown(ServiceUnavailable):
    """A write call may have reached a conductor, then its answer could not come.

    Never answered for a call that was not sent; the write may have
    happened, and may still, until the request's deadline.  Retrying the same
    request is safe (a claim replaces the consumer's allocations; with a
    consumer generation the database refuses a second write).
    """
    msg_fmt = ("Service unavailable: the outcome is unknown: the request may have "
               "been written (%(reason)s). It may still be written until its "
               "deadline, never after. Retrying the same request is safe; read the "
               "resource to learn what happened.")


class QuotaLimitsUnavailable(ServiceUnavailable):
    """The quota limits could not be read (Keystone down, nothing cached young enough)."""
    msg_fmt = ("Quota limits of project %(project)s are unavailable: %(reason)s. "
               "The write was refused rather than let through unlimited; retry later.")


class QuotaLimitsReadOnly(Conflict):
    """PUT/DELETE /quotas while the limits come from Keystone."""
    msg_fmt = ("Quota limits come from Keystone unified limits ([quota] limits_source "
               "= keystone); set them in Keystone (openstack limit set / registered "
               "limit set), not in berth.")


class NoFreeWorker(ServiceUnavailable):
    msg_fmt = "Conductor %(host)s has no free worker for this request; retry later."


# --- Bare metal (Ironic-compatible messages) -------------------------------------------

class NodeNotFound(NotFound):
    msg_fmt = "Node %(node)s could not be found."


class NodeAlreadyExists(Conflict):
    msg_fmt = "A node with %(field)s %(value)s already exists."


class NodeLocked(Conflict):
    msg_fmt = ("Node %(node)s is locked by host %(host)s, please retry after "
               "the current operation is completed.")


class NodeAssociated(Conflict):
    msg_fmt = ("Node %(node)s is associated with instance %(instance)s.")


class InstanceAssociated(Conflict):
    msg_fmt = ("Instance %(instance_uuid)s is already associated with a node, "
               "it cannot be associated with this other node %(node)s")


class NodeInvalidState(Conflict):
    """Ironic's InvalidState: the node's state forbids the operation (409)."""
    msg_fmt = "%(reason)s"


class InvalidStateRequested(Invalid):
    msg_fmt = ('The requested action "%(action)s" can not be performed on node '
               '"%(node)s" while it is in state "%(state)s".')


class NodeProtected(Forbidden):
    msg_fmt = ("Node %(node)s is protected and cannot be undeployed, rebuilt or "
               "deleted")


class NodeIsRetired(Invalid):
    msg_fmt = ("The %(op)s operation can't be performed on node %(node)s because "
               "it is retired.")


class ChassisNotFound(NotFound):
    msg_fmt = "Chassis %(chassis)s could not be found."


class ChassisAlreadyExists(Conflict):
    msg_fmt = "A chassis with UUID %(uuid)s already exists."


class ChassisNotEmpty(Invalid):
    msg_fmt = ("Cannot complete the requested action because chassis %(chassis)s "
               "contains nodes.")


class NodeHistoryNotFound(NotFound):
    msg_fmt = "Node history record %(history)s could not be found."


class NodeInventoryNotFound(NotFound):
    msg_fmt = "Node inventory record for node %(node)s could not be found."


class AllocationNotFound(NotFound):
    msg_fmt = "Allocation %(allocation)s could not be found."


class AllocationDuplicateName(Conflict):
    msg_fmt = "An allocation with name %(name)s already exists."


class AllocationAlreadyExists(Conflict):
    msg_fmt = "An allocation with UUID %(uuid)s already exists."


class AllocationExtraOverProjectCap(Invalid):
    """The allocations of one owner would store more ``extra`` than allowed (400)."""
    msg_fmt = ("extra of the allocations of project %(owner)s would take %(usage)d "
               "bytes, more than the project's %(cap)d")


class AllocationFailed(BerthException):
    """A node allocation could not be fulfilled (stored as last_error, not raised to clients)."""
    msg_fmt = "Failed to process allocation %(uuid)s: %(error)s."


class ComputeNodeNotFound(NotFound):
    msg_fmt = "Compute node %(node)s could not be found."


class NotNovaCellDatabase(Invalid):
    """The source of ``berth-manage import compute-nodes`` is not a Nova cell database."""
    msg_fmt = "%(url)s is not a Nova cell database: %(reason)s"


class InvalidSourceURL(NotNovaCellDatabase):
    """``--from`` is no database URL SQLAlchemy can open (the URL is not echoed: secrets)."""
    msg_fmt = "--from is not a usable database URL: %(reason)s"
