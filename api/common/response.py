"""Representation helpers both APIs' response bodies share."""


def iso(when):
    """A naive UTC datetime as ISO 8601 with ``+00:00`` (None stays None)."""
    return None if when is None else when.isoformat() + '+00:00'
