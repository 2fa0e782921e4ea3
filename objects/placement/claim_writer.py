"""The ways a claim is written, as one protocol: alone, checked then applied, or set-wise.

A claim is a ``requests`` list of :func:`objects.placement.allocation.replace`
(one common.claim_contract.ClaimConsumer per consumer).
A conductor's group commit (conductor/manager/claim_batch.py) writes claims
that wait together in one transaction and needs three ways to write one:
whole (:meth:`ClaimWriter.write`), as checks that write nothing followed by
the writes (:meth:`ClaimWriter.check`, :meth:`ClaimWriter.apply`: a refused
claim then needs no savepoint), and a whole batch of new consumers judged
and written with one statement per step (:meth:`ClaimWriter.check_many`,
:meth:`ClaimWriter.apply_many`, objects/placement/allocation_batch.py).
The split ways run no quota check, so :attr:`ClaimWriter.split` says
whether they may be used.  :class:`Writer` is that protocol over
allocation.py and allocation_batch.py, with the process's quota settings.
"""

from typing import Any, Protocol

from common import exception
from common.claim_contract import ClaimConsumer
from common.context import RequestContext
from db import api as db_api
from objects.placement import allocation as placement_alloc
from objects.placement import allocation_batch

# one claim: the ``requests`` of objects.placement.allocation.replace
Claim = list[ClaimConsumer]


class ClaimWriter(Protocol):
    """What the group commit writes claims with (all but ``write`` in the caller's writer)."""

    @property
    def split(self) -> bool:
        """Whether ``check``/``apply`` and ``check_many``/``apply_many`` may be used.

        When True every way, ``write`` included, must also run in a Core
        transaction (db.api.Database.core_writer: no ``ctx.session``), the
        kind the group commit then opens.
        """
        ...

    def write(self, ctx: RequestContext, claim: Claim) -> None:
        """Write one claim: its reads, checks (quota included) and writes."""
        ...

    def check(self, ctx: RequestContext, claim: Claim) -> Any:
        """Read and check one claim, writing nothing; its plan, or a domain exception."""
        ...

    def apply(self, ctx: RequestContext, plan: Any) -> None:
        """Write the plan ``check`` returned."""
        ...

    def check_many(self, ctx: RequestContext, claims: list[Claim]
                   ) -> tuple[Any, list[exception.BerthException | None]] | None:
        """Judge a batch at once: ``(plan, [error or None per claim])``, or None
        when it must be checked claim by claim."""
        ...

    def apply_many(self, ctx: RequestContext, plan: Any) -> None:
        """Write the claims ``check_many`` granted."""
        ...


# a claim without a quota check alone: its own Core transaction (no ORM Session),
# retried on deadlock when outermost, as allocation.replace's Session one
_replace_core = db_api.core_writer(placement_alloc.replace)


class Writer:
    """:class:`ClaimWriter` over objects.placement.allocation and allocation_batch.

    :param enforce_quota: check ``[quota]`` limits in the write (``split``
        is then False: the checks of the split ways have no quota check).
    :param quota_source: where limits come from (None: berth's table).
    """

    def __init__(self, enforce_quota: bool = False, quota_source: Any = None) -> None:
        self.enforce_quota = enforce_quota
        self.quota_source = quota_source

    @property
    def split(self) -> bool:
        return not self.enforce_quota

    def write(self, ctx: RequestContext, claim: Claim) -> None:
        if self.enforce_quota:
            placement_alloc.replace(ctx, claim, enforce_quota=True,
                                    quota_source=self.quota_source)
        else:
            _replace_core(ctx, claim)

    def check(self, ctx: RequestContext, claim: Claim) -> Any:
        return placement_alloc.check_replace(ctx, claim)

    def apply(self, ctx: RequestContext, plan: Any) -> None:
        placement_alloc.apply_replace(ctx, plan)

    def check_many(self, ctx: RequestContext, claims: list[Claim]
                   ) -> tuple[Any, list[exception.BerthException | None]] | None:
        return allocation_batch.check_many(ctx, claims)

    def apply_many(self, ctx: RequestContext, plan: Any) -> None:
        allocation_batch.apply_many(ctx, plan)
