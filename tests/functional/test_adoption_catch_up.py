"""``import placement`` catch-ups read only what may have changed, and end where a full import does.

A catch-up (objects/adoption/catch_up.py) reads the inventories and trait
links of providers whose generation moved and the allocations of consumers
whose generation moved, plus whatever the source's row ids say was written
since the last run.  Each test changes the source, catches up, and then runs
a ``--full`` comparison, which must find nothing left to do.
"""

import json
import uuid

import pytest
import sqlalchemy as sa

from bench import adoption as bench_adoption
from cli import manage
from common import context as berth_context
from objects import database
from objects.adoption import placement_import, target
from objects.adoption import placement_schema as ps
from tests import fixtures
from tests.functional.test_adoption_import import Source


@pytest.fixture
def db(conf, tmp_path):
    fixtures.fresh_database(tmp_path, conf)
    database_ = database.open_database(conf)
    yield database_
    database_.dispose()


@pytest.fixture
def ctx(db):
    return berth_context.admin_context(db)


def _berth(db):
    with db.engine.connect() as conn:
        return target.read(conn)[0]


def _full_check(ctx, url):
    result = placement_import.run(ctx, url, full=True)
    assert result.mode == 'full'
    assert result.changed == 0, {t: c for t, c in result.changes.items() if any(c)}


def _as_placement_writes(path):
    """Writes as Placement's API makes them (generations move), of every kind."""
    engine = sa.create_engine('sqlite:///%s' % path)
    rp, inv, al, cons = (ps.resource_providers, ps.inventories, ps.allocations,
                         ps.consumers)
    with engine.begin() as conn:
        roots = conn.execute(sa.select(rp.c.id, rp.c.uuid).where(
            rp.c.parent_provider_id.is_(None)).order_by(rp.c.id)).all()
        (a, _), (b, _), (c, _) = roots[1], roots[2], roots[3]
        # a trait added, an aggregate link dropped (before 1.19: no generation move)
        conn.execute(ps.resource_provider_traits.insert().values(
            resource_provider_id=a, trait_id=3))
        conn.execute(rp.update().where(rp.c.id == a).values(generation=rp.c.generation + 1))
        conn.execute(ps.resource_provider_aggregates.delete().where(
            ps.resource_provider_aggregates.c.resource_provider_id == b))
        # a rename (no generation move); a child and its inventory gone
        conn.execute(rp.update().where(rp.c.id == c).values(name='renamed'))
        child = conn.execute(sa.select(rp.c.id).where(rp.c.parent_provider_id.isnot(None))
                             .order_by(rp.c.id)).first()[0]
        owners = conn.execute(sa.select(al.c.consumer_id).where(
            al.c.resource_provider_id == child)).scalars().all()
        conn.execute(al.delete().where(al.c.resource_provider_id == child))
        conn.execute(cons.update().where(cons.c.uuid.in_(owners))
                     .values(generation=cons.c.generation + 1))
        conn.execute(inv.delete().where(inv.c.resource_provider_id == child))
        conn.execute(rp.delete().where(rp.c.id == child))
        # an allocation moved and a consumer's project changed (its generation moves)
        first = conn.execute(sa.select(cons.c.uuid).order_by(cons.c.id)).scalars().first()
        conn.execute(al.update().where(al.c.consumer_id == first, al.c.resource_class_id == 0)
                     .values(used=7))
        conn.execute(cons.update().where(cons.c.uuid == first).values(
            project_id=3, generation=cons.c.generation + 1))
        # a new provider with inventory
        conn.execute(rp.insert().values(uuid=str(uuid.uuid4()), name='new-compute',
                                        generation=1))
        new_id = conn.execute(sa.select(sa.func.max(rp.c.id))).scalar()
        conn.execute(rp.update().where(rp.c.id == new_id).values(root_provider_id=new_id))
        conn.execute(inv.insert().values(resource_provider_id=new_id, resource_class_id=0,
                                         total=8, reserved=0, min_unit=1, max_unit=8,
                                         step_size=1, allocation_ratio=1.0))
    engine.dispose()


def test_a_catch_up_ends_where_a_full_import_does(ctx, db, tmp_path):
    path = tmp_path / 'placement.sqlite'
    bench_adoption.build_source(path, 40)
    url = 'sqlite:///%s' % path
    assert placement_import.run(ctx, url).mode == 'full'
    bench_adoption.change_one_percent(path)
    _as_placement_writes(path)
    result = placement_import.run(ctx, url)
    assert result.mode == 'catch-up'
    ch = result.changes
    # new; trait, rename (and the 1 %'s inventory, perhaps on one of those); the child
    assert ch['resource_providers'][::2] == (1, 1) and ch['resource_providers'][1] >= 2
    assert ch['resource_provider_traits'][0] == 1 and ch['resource_provider_aggregates'][2] == 1
    assert ch['consumers'][1] >= 1 and ch['allocations'][1] == 1
    assert ch['consumers'][0] == ch['consumers'][2] > 0    # the 1 %: deleted, made anew
    # the counts shown are the source's, whichever rows the catch-up read
    full = placement_import.run(ctx, url, full=True)
    assert full.changed == 0 and full.source_counts == result.source_counts


def test_rows_made_again_under_the_same_uuid_are_caught(ctx, db, tmp_path):
    """Same uuid, same generation, other rows: only the source's row ids tell."""
    source = Source(tmp_path / 'placement.sqlite')
    cn, _, old = source.cloud()
    placement_import.run(ctx, source.url)
    consumer = 'c0000000-0000-0000-0000-000000000001'
    with source.engine.begin() as conn:
        rp = ps.resource_providers
        old_uuid = conn.execute(sa.select(rp.c.uuid).where(rp.c.id == old)).scalar()
        conn.execute(rp.delete().where(rp.c.id == old))
        conn.execute(ps.allocations.delete())
        conn.execute(ps.consumers.delete())
    again = source.provider('old', generation=0, uuid_=old_uuid)
    source.sql(ps.inventories, {'resource_provider_id': again, 'resource_class_id': 0,
                                'total': 4, 'reserved': 0, 'min_unit': 1, 'max_unit': 4,
                                'step_size': 1, 'allocation_ratio': 1.0})
    source.sql(ps.consumers, {'id': 2, 'uuid': consumer, 'project_id': 1, 'user_id': 1,
                              'generation': 5, 'consumer_type_id': 1})
    source.sql(ps.allocations, {'resource_provider_id': cn, 'resource_class_id': 0,
                                'used': 3, 'consumer_id': consumer})
    result = placement_import.run(ctx, source.url)
    assert result.mode == 'catch-up'
    assert result.changes['inventories'] == (1, 0, 0)
    assert result.changes['allocations'] == (0, 1, 1)
    st = _berth(db)
    assert st.inventories[(old_uuid, 'VCPU')] == (4, 0, 1, 4, 1, 1.0)
    assert [v for k, v in st.allocations.items() if k[0] == consumer] == [3]
    _full_check(ctx, source.url)


def _cli(conf, tmp_path, capsys, *args):
    cfg = tmp_path / 'manage.conf'
    cfg.write_text('[DEFAULT]\nstate_path = %s\n%s' % (conf.state_path,
                                                       fixtures.database_section(conf)))
    code = manage.main(['--config-file', str(cfg), 'import', 'placement', *args])
    return code, capsys.readouterr().out


def test_a_hand_edit_that_moves_no_generation_takes_full(conf, db, tmp_path, capsys):
    source = Source(tmp_path / 'placement.sqlite')
    cn, _, _ = source.cloud()
    code, out = _cli(conf, tmp_path, capsys, '--connection', source.url)
    assert code == 0 and 'in ' in out and ', full (' in out
    with source.engine.begin() as conn:        # by hand: no generation moves, no new row
        conn.execute(ps.inventories.update().where(
            ps.inventories.c.resource_provider_id == cn).values(total=32))
    code, out = _cli(conf, tmp_path, capsys, '--connection', source.url)
    assert code == 0 and 'import placement: 0 change(s)' in out and ', catch-up (' in out
    code, out = _cli(conf, tmp_path, capsys, '--connection', source.url, '--full')
    assert code == 0 and 'import placement: 1 change(s)' in out and ', full (' in out
    # another source than the last run's is compared in full
    other = Source(tmp_path / 'other.sqlite')
    other.cloud()
    code, out = _cli(conf, tmp_path, capsys, '--connection', other.url)
    assert code == 0 and ', full (' in out


def test_the_benchmark_runs_small(capsys):
    assert bench_adoption.main(['--providers', '20', '--export']) == 0
    last = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    runs = last['runs']
    assert runs['catch-up']['mode'] == 'catch-up' and runs['catch-up']['changes'] > 0
    assert runs['full check']['mode'] == 'full' and runs['full check']['changes'] == 0
    assert runs['export']['per_table']['resource_providers'][0] == 24
