"""Policy rules of the bare-metal API, with Ironic's names and berth's defaults."""

from common.policies.baremetal import conductor, endpoints


def list_rules():
    """Entry point of ``oslo.policy.policies`` (namespace berth.baremetal)."""
    return list(endpoints.rules) + list(conductor.rules)
