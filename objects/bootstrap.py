"""Work done once when a process starts against a migrated database."""

from __future__ import annotations

from common.context import RequestContext
from objects.placement import resource_class, trait


def sync_standards(ctx: RequestContext) -> int:
    """Make the standard resource classes and traits exist; return how many were added."""
    return resource_class.sync_standard(ctx) + trait.sync_standard(ctx)
