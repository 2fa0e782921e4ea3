"""berth's version: what pbr wrote into the installed package's metadata.

pbr computes it from git when the package is built (a tag is the release,
later commits are ``<next>.devN``).  An installed copy (wheel or editable)
reads it back from its metadata; a source tree that was never installed
(``python -m cli.berth`` from a checkout) asks pbr to compute it from git.
"""

import functools
from importlib import metadata

DISTRIBUTION = 'berth'
UNKNOWN = '0.0.0+unknown'


@functools.cache
def version_string():
    """The version, e.g. ``0.1.1.dev207`` (``0.0.0+unknown`` if none can be found)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        pass
    try:
        from pbr import version as pbr_version
        return pbr_version.VersionInfo(DISTRIBUTION).version_string()
    except Exception:  # no pbr, no git, not a berth checkout
        return UNKNOWN
