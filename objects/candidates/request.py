"""The parsed form of a resource request, shared by provider listing,
allocation candidates and schedule-and-claim.

``api.placement.query`` turns query strings (or a JSON body) into these; the
objects layer searches with them.  Names are already validated against the
database by the time a search runs (unknown class or trait is a 400 earlier).
"""

from __future__ import annotations

from collections.abc import Mapping
import dataclasses
from typing import Any


@dataclasses.dataclass
class RequestGroup:
    """One request group: unsuffixed (suffix '') or granular (suffix 'N' / '_NAME').

    * ``resources``: class name -> amount (each amount is served whole by one provider).
    * ``required``: a list of any-of sets, ANDed: ``[{A}, {B, C}]`` means A and (B or C).
    * ``forbidden``: trait names that must be absent.
    * ``member_of``: a list of any-of aggregate uuid sets, ANDed.
    * ``forbidden_aggs``: aggregate uuids that must not be associated.
    * ``in_tree``: a provider uuid whose tree the serving providers must be in.
    """
    suffix: str = ''
    resources: dict = dataclasses.field(default_factory=dict)
    required: list = dataclasses.field(default_factory=list)
    forbidden: set = dataclasses.field(default_factory=set)
    member_of: list = dataclasses.field(default_factory=list)
    forbidden_aggs: set = dataclasses.field(default_factory=set)
    in_tree: str | None = None

    @property
    def is_granular(self) -> bool:
        return self.suffix != ''

    @property
    def trait_names(self) -> set[str]:
        names = set(self.forbidden)
        for any_of in self.required:
            names |= set(any_of)
        return names


@dataclasses.dataclass
class ResourceRequest:
    """A whole request: its groups plus the request-wide constraints."""
    groups: list = dataclasses.field(default_factory=list)   # of RequestGroup
    group_policy: str | None = None          # 'none' | 'isolate' | None
    limit: int | None = None
    root_required: set = dataclasses.field(default_factory=set)
    root_forbidden: set = dataclasses.field(default_factory=set)
    same_subtree: list = dataclasses.field(default_factory=list)  # of lists of suffixes

    def group(self, suffix: str) -> RequestGroup | None:
        for g in self.groups:
            if g.suffix == suffix:
                return g
        return None


def to_primitive(request: ResourceRequest) -> dict[str, Any]:
    """A ResourceRequest as JSON-able dicts and lists (it crosses RPC this way)."""
    return {
        'groups': [{'suffix': g.suffix, 'resources': dict(g.resources),
                    'required': [sorted(s) for s in g.required],
                    'forbidden': sorted(g.forbidden),
                    'member_of': [sorted(s) for s in g.member_of],
                    'forbidden_aggs': sorted(g.forbidden_aggs),
                    'in_tree': g.in_tree} for g in request.groups],
        'group_policy': request.group_policy,
        'limit': request.limit,
        'root_required': sorted(request.root_required),
        'root_forbidden': sorted(request.root_forbidden),
        'same_subtree': [list(s) for s in request.same_subtree],
    }


def from_primitive(data: Mapping[str, Any]) -> ResourceRequest:
    """The ResourceRequest that :func:`to_primitive` flattened."""
    groups = [RequestGroup(suffix=g['suffix'], resources=dict(g['resources']),
                           required=[set(s) for s in g['required']],
                           forbidden=set(g['forbidden']),
                           member_of=[set(s) for s in g['member_of']],
                           forbidden_aggs=set(g['forbidden_aggs']),
                           in_tree=g['in_tree']) for g in data['groups']]
    return ResourceRequest(groups=groups, group_policy=data['group_policy'],
                           limit=data['limit'], root_required=set(data['root_required']),
                           root_forbidden=set(data['root_forbidden']),
                           same_subtree=[list(s) for s in data['same_subtree']])
