"""Entry point for oslo-config-generator (namespace ``berth``)."""

from common import conf as berth_conf


def list_opts():
    """Return ``[(group, [opts])]`` for every berth option group."""
    result = []
    for module in berth_conf.MODULES:
        result.extend(module.list_opts())
    return result
