"""bench/placeload.py: the region's topology, written chunk by chunk, is the whole topology."""

import uuid as uuidlib

import sqlalchemy as sa

from bench import placeload
from db import models
from objects import database


def _rows(db, table):
    with db.engine.connect() as conn:
        return conn.execute(sa.select(table)).all()


def test_chunks_write_every_compute_child_and_sharing_provider(tmp_path, monkeypatch):
    monkeypatch.setattr(placeload, 'CHUNK', 7)        # 25 computes: 4 chunks, the last short
    n = 25
    placeload.load_state(n, state=str(tmp_path), nested=True)
    db = database.open_database(placeload.conf_for(str(tmp_path)))
    try:
        rps = _rows(db, models.ResourceProvider.__table__)
        by_id = {r.id: r for r in rps}
        children = [r for r in rps if r.parent_provider_id is not None]
        assert len(rps) == n + placeload.N_SHARING + 3 * (n // 5)
        assert len(children) == 3 * (n // 5)
        assert len({r.uuid for r in rps}) == len(rps)
        for child in children:
            parent = by_id[child.parent_provider_id]
            assert parent.parent_provider_id is None
            assert child.root_provider_id == parent.id
            assert child.name.startswith(parent.name + '-')
        assert sorted(r.name for r in rps if r.name.startswith('shared-storage')) == [
            'shared-storage-0', 'shared-storage-1', 'shared-storage-2']
        # every compute's inventory: 2 or 3 classes on the compute or its NUMA children
        invs = _rows(db, models.Inventory.__table__)
        assert len(invs) == (2 * n - 2 * (n // 5)          # VCPU, MEMORY_MB on flat computes
                             + 5 * (n // 5)                # NUMA x2 (2 each) and NIC
                             + n - n // 10                 # DISK_GB but every 10th
                             + placeload.N_SHARING)
        assert len(_rows(db, models.ResourceProviderTrait.__table__)) == (
            sum(i % 3 + 1 for i in range(n)) + placeload.N_SHARING)
        assert len(_rows(db, models.ResourceProviderAggregate.__table__)) == (
            sum(i % 3 + 1 for i in range(n)) + n // 10 + placeload.N_SHARING)
    finally:
        db.dispose()


def test_uuids_are_random_version_4_and_ascend_in_the_order_drawn():
    draw = placeload.AscendingUuids()
    drawn = [draw() for _ in range(2000)]
    assert drawn == sorted(drawn)
    assert len(set(drawn)) == len(drawn)
    for text in drawn:
        value = uuidlib.UUID(text)
        assert str(value) == text
        assert value.version == 4
        assert value.variant == uuidlib.RFC_4122
    # the bits below the counter are drawn, not fixed
    assert len({text[14:] for text in drawn}) == len(drawn)
    # two loads start apart
    assert placeload.AscendingUuids()() != placeload.AscendingUuids()()


def test_computes_uuids_ascend_with_their_ids(tmp_path):
    placeload.load_state(30, state=str(tmp_path))
    db = database.open_database(placeload.conf_for(str(tmp_path)))
    try:
        rps = sorted(_rows(db, models.ResourceProvider.__table__), key=lambda r: r.id)
        uuids = [r.uuid for r in rps]
        assert uuids == sorted(uuids)
        assert all(uuidlib.UUID(u).version == 4 for u in uuids)
    finally:
        db.dispose()
