"""Node allocation races on PostgreSQL (READ COMMITTED, real row locks).

Found by the chaos suite (tests/chaos): a DELETE of an allocation that a
conductor was reserving a node for at that moment read the row (no node
yet), then deleted it after the reservation committed, leaving the node
pointing at a deleted allocation (held forever).  Runs on the session's
migrated PostgreSQL database (tests/integration/conftest.py).
"""

import threading
import time

import pytest
import sqlalchemy as sa

from common import context as berth_context
from common import exception
from db import api as db_api
from objects.baremetal import allocation as node_alloc_obj
from objects.baremetal import deallocation
from objects.baremetal import node as node_obj
from objects.baremetal import reservation as node_reservation
from tests.integration.conftest import MARKS

pytestmark = MARKS


@pytest.fixture
def pg(pg_synced):
    db = db_api.Database(pg_synced)
    admin = sa.create_engine(pg_synced)
    yield db, admin
    db.dispose()
    admin.dispose()


def _waiting_on_lock(admin):
    """Whether a statement on node_allocations waits for a row lock."""
    with admin.connect() as conn:
        return conn.execute(sa.text(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
            "AND query ILIKE :table"), {'table': '%node_allocations%'}).scalar() > 0


def test_delete_racing_the_reservation_leaves_no_dangling_node(pg):
    db, admin = pg
    ctx = berth_context.admin_context(db)
    node = node_obj.create(ctx, {'driver': 'fake-hardware', 'resource_class': 'race',
                                 'provision_state': node_obj.AVAILABLE,
                                 'power_state': node_obj.POWER_OFF})
    alloc = node_alloc_obj.create_row(ctx, {'resource_class': 'race', 'conductor_affinity': 'c0'})
    reserving, release = threading.Event(), threading.Event()
    outcome, errors = [], []

    class Claimant:
        def hold(self, *_):
            # the reservation's writes are done; its transaction stays open
            reserving.set()
            release.wait(30)

    def reserve():
        outcome.append(node_reservation.claim(berth_context.admin_context(db), alloc,
                                              node.id, 'c0', claimant=Claimant()))

    def delete():
        try:
            deallocation.destroy_allocation(berth_context.admin_context(db),
                                                alloc.uuid, 'c1')
        except Exception as exc:    # noqa: B902 - reported by the assertion below
            errors.append(exc)

    reserver = threading.Thread(target=reserve)
    reserver.start()
    assert reserving.wait(30)
    deleter = threading.Thread(target=delete)
    deleter.start()
    deadline = time.monotonic() + 30
    while not _waiting_on_lock(admin):     # the DELETE queues behind the reservation
        assert time.monotonic() < deadline and deleter.is_alive()
        time.sleep(0.05)
    release.set()
    reserver.join(30)
    deleter.join(30)
    assert outcome == [node_reservation.RESERVED] and errors == []
    after = node_obj.get_by_id(ctx, node.id)
    # the delete saw the committed reservation and released the node with it
    assert after.allocation_id is None and after.instance_uuid is None
    with pytest.raises(exception.AllocationNotFound):
        node_alloc_obj.get(ctx, alloc.uuid)
