"""Load the candidate index before the first request (berth-api's master process).

The index of a database is built by the first unlimited search
(objects/candidates/index.py).  berth-api builds it once in the master,
before it forks the workers, so that they share its pages copy-on-write
instead of each reading every provider again.
"""

from common import context
from objects.candidates import finder
from objects.candidates import request as request_mod

# any standard class will do: an unlimited search refreshes the whole index
_REQUEST = request_mod.ResourceRequest(
    groups=[request_mod.RequestGroup(resources={'VCPU': 1})])


def load_index(db):
    """Build ``db``'s provider index now (one unlimited search, answer dropped)."""
    finder.get_candidates(context.admin_context(db), _REQUEST)
