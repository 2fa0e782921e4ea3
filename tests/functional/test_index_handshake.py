"""A forked worker takes the master's candidate index as current only when nothing changed.

objects/candidates/preload.handshake over a real fork (cli.api_workers.Master
makes the same socket pair): with no commit between the master's index load
and the worker's first token the worker's index is current for the worker's
own token (its first search reads no provider again); after a commit it is
not, and the first search refreshes it as before.
"""

import os
import socket

import pytest

from objects.candidates import index as index_mod
from objects.candidates import preload
from tests.functional import candidate_helpers as helpers


def _forked_worker_sees_current(db):
    """Run the handshake across a fork; True when the child's index is current for it."""
    parent, child = preload.handshake(db)
    ours, theirs = socket.socketpair()
    done_r, done_w = os.pipe()
    pid = os.fork()
    if pid == 0:                          # the worker: answer one byte, then leave
        status = 1
        try:
            ours.close()
            with theirs:
                child(theirs)
            index = index_mod.for_database(db)
            state = index._state
            current = index.if_current(db.change_token(), state.sharing_trait)
            os.write(done_w, b'1' if current is not None else b'0')
            status = 0
        finally:
            os._exit(status)
    theirs.close()
    os.close(done_w)
    with ours:
        parent(ours)
    with os.fdopen(done_r, 'rb') as f:
        answer = f.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    return answer == b'1'


@pytest.fixture
def loaded(berth, ctx):
    if not ctx.db.is_sqlite:
        pytest.skip('forks a process holding pooled server connections')
    for i in range(3):
        helpers.add_provider(ctx, 'cn%d' % i, inventory={'VCPU': 8})
    preload.load_index(ctx.db)
    assert index_mod.for_database(ctx.db).token() is not None
    return ctx


def test_a_worker_forked_with_nothing_committed_keeps_the_index_current(loaded):
    assert _forked_worker_sees_current(loaded.db)


def test_a_commit_after_the_load_makes_the_worker_refresh(loaded):
    helpers.add_provider(loaded, 'late', inventory={'VCPU': 8})
    assert not _forked_worker_sees_current(loaded.db)


def test_a_silent_or_gone_peer_leaves_the_index_to_refresh(loaded):
    """Either end whose peer leaves without a word returns (no exception, no answer)."""
    index = index_mod.for_database(loaded.db)
    before = index._state
    parent, child = preload.handshake(loaded.db)
    ours, theirs = socket.socketpair()
    theirs.close()
    with ours:
        child(ours)                     # the master is gone: nothing to send to
    assert index._state is before
    ours, theirs = socket.socketpair()
    theirs.close()
    with ours:
        parent(ours)                    # the worker died before asking
    ours, theirs = socket.socketpair()
    with ours, theirs:
        theirs.sendall(b'x')            # not a question: no answer is sent
        parent(ours)
        theirs.setblocking(False)
        with pytest.raises(BlockingIOError):
            theirs.recv(1)
