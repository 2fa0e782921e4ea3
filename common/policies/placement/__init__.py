"""Policy rules of the Placement API, with Placement's names and defaults."""

import itertools

from common.policies.placement import base, endpoints, extensions


def list_rules():
    return list(itertools.chain(base.rules, endpoints.rules, extensions.rules))
