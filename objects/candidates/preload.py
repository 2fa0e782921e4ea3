"""Load the candidate index before the first request (berth-api's master process).

The index of a database is built by the first unlimited search
(objects/candidates/index.py).  berth-api builds it once in the master,
before it forks the workers, so that they share its pages copy-on-write
instead of each reading every provider again.

A change token names one process's view (SQLite's is per connection), so a
worker's first search would refresh the inherited index: one scan of every
provider and its usage, which writes the reference count of every provider
object and so copies most of the index's pages into the worker (at 100,000
computes ~50 MB a worker).  :func:`handshake` avoids it: the worker reads
its own first token, then the master (holding the token it built the index
under) checks that nothing was committed since; only then does the worker
name the inherited index current for its token.  Any doubt (a commit, no
token, no answer in time) leaves the index as it was: refreshed by the next
search, as before.
"""

import logging

from common import context
from objects.candidates import finder
from objects.candidates import index as index_mod
from objects.candidates import request as request_mod

LOG = logging.getLogger('berth.' + __name__)

# an unlimited search refreshes the whole index; an amount no provider has
# builds no answer (at 100,000 computes one of VCPU:1 is 100,000 candidates,
# whose freed memory the workers would then reuse, writing shared pages)
_REQUEST = request_mod.ResourceRequest(
    groups=[request_mod.RequestGroup(resources={'VCPU': 2 ** 31 - 1})])
# seconds either end waits for the other
HANDSHAKE_TIMEOUT = 30.0
_ASKED, _SAME, _CHANGED = b'?', b'=', b'!'


def load_index(db):
    """Build ``db``'s provider index now (one unlimited search, answer dropped)."""
    finder.get_candidates(context.admin_context(db), _REQUEST)


def handshake(db):
    """(parent(sock), child(sock)) for cli.api_workers.Master: hand the index on current."""
    index = index_mod.for_database(db)
    built_for = index.token()

    def parent(sock):
        sock.settimeout(HANDSHAKE_TIMEOUT)
        try:
            if sock.recv(1) != _ASKED:
                return
            same = built_for is not None and db.change_token() == built_for
            if not db.is_sqlite:
                # the server watcher's connection must not cross the next fork
                db.dispose()
            sock.sendall(_SAME if same else _CHANGED)
        except OSError as exc:
            LOG.warning('worker handshake failed (%s): its index refreshes first', exc)

    def child(sock):
        sock.settimeout(HANDSHAKE_TIMEOUT)
        try:
            mine = db.change_token()      # read before the master checks
            sock.sendall(_ASKED)
            if sock.recv(1) == _SAME:
                index.retoken(built_for, mine)
        except OSError as exc:
            LOG.warning('index handshake failed (%s): refreshed by the first search', exc)

    return parent, child
