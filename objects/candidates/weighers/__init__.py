"""Candidate weighers for schedule-and-claim, found by name: one module per weigher.

A weigher module defines a :class:`objects.candidates.weighers.base.Weigher` subclass
and names it ``WEIGHER``; the module's name is the weigher's name (the
``weigher`` of a POST /claims body, ``[scheduler] default_weigher``).
"""

import importlib
import pkgutil

from common import exception

_NOT_WEIGHERS = {'base'}


def names():
    """The names of every available weigher, sorted."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__)
                  if m.name not in _NOT_WEIGHERS and not m.name.startswith('_'))


def get(name):
    """A new weigher of that name; raises Invalid for an unknown one."""
    if name not in names():
        raise exception.Invalid(
            reason='unknown weigher %r; available: %s' % (name, ', '.join(names())))
    return importlib.import_module('%s.%s' % (__name__, name)).WEIGHER()
