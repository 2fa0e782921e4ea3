"""Policy rules of the Placement API, with Placement's names and defaults."""

import itertools

from api.placement.policies import base
from api.placement.policies import endpoints
from api.placement.policies import extensions


def list_rules():
    return list(itertools.chain(base.rules, endpoints.rules, extensions.rules))
