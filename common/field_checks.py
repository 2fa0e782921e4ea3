"""The one check every write contract and the conductor's write checks share.

A message's keys are bounded before anything else reads it: an object whose
keys are all fields of the write, or exception.Invalid naming (at most five,
cut to 40 characters) what it may not set.  Used by the typed contracts in
common/ (their ``from_primitive``) and conductor.manager.write_checks.
"""

from typing import Any

from common import exception


def only(data: Any, allowed: Any, what: str) -> None:
    """Invalid unless ``data`` is a dict whose keys are all in ``allowed``."""
    if not isinstance(data, dict):
        raise exception.Invalid(reason='%s must be an object' % what)
    unknown = sorted(str(k) for k in data if k not in allowed)
    if unknown:
        raise exception.Invalid(reason='%s may not set %s'
                                       % (what, ', '.join(u[:40] for u in unknown[:5])))
