"""Writing a generated reference page (``make sample-config``).

berth's configuration reference (``doc/source/configuration.md``) is no
longer generated here: ``oslo_config.sphinxext``'s ``show-options`` renders
the ``oslo.config.opts`` namespace ``berth`` when the docs are built.  The
generators of other pages (api/placement/reference.py) write through
:func:`write`.
"""

import sys


def write(text, argv=None):
    """Write a generated reference to ``argv[0]``, or to stdout without arguments."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        sys.stdout.write(text)
        return 0
    with open(argv[0], 'w', encoding='utf-8') as handle:
        handle.write(text)
    return 0
