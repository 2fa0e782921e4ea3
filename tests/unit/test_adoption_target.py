"""The import's bulk inserts on SQLite: the driver's executemany, the same rows as SQLAlchemy's."""

import datetime

import sqlalchemy as sa

from db import models
from objects.adoption import state, target

_CONS = models.Consumer.__table__


def _engine():
    engine = sa.create_engine('sqlite://')
    models.Base.metadata.create_all(engine)
    return engine


def _consumer(uuid, stamp, ctype=None, generation=3):
    return {'uuid': uuid, 'created_at': stamp, 'project_id': 1, 'user_id': 1,
            'consumer_type_id': ctype, 'generation': generation}


def test_plain_insert_takes_the_driver_way_and_stores_what_sqlalchemy_stores():
    stamp = datetime.datetime(2026, 12, 7, 19, 0, 1, 250)
    whole = stamp.replace(microsecond=0)
    engine = _engine()
    with engine.begin() as conn:
        for t, col in ((models.Project.__table__, 'external_id'),
                       (models.User.__table__, 'external_id'),
                       (models.ConsumerType.__table__, 'name')):
            conn.execute(t.insert(), [{col: 'x', 'created_at': stamp}])
        fast = [_consumer('f1', stamp), _consumer('f2', whole, 1, 0), _consumer('f3', stamp)]
        assert target._many_sqlite(conn, _CONS.insert(), fast) is True
        conn.execute(_CONS.insert(), [dict(p, uuid='s' + p['uuid'][1:]) for p in fast])
        rows = conn.exec_driver_sql('SELECT uuid, created_at, project_id, user_id, '
                                    'consumer_type_id, generation FROM consumers '
                                    'ORDER BY uuid').fetchall()
        read = conn.execute(sa.select(_CONS.c.uuid, _CONS.c.created_at)
                            .order_by(_CONS.c.uuid)).all()
    by_uuid = {r[0]: r[1:] for r in rows}
    for n in '123':
        assert by_uuid['f' + n] == by_uuid['s' + n]      # the stored text too
    assert dict(read)['f1'] == stamp and dict(read)['f2'] == whole


def test_an_insert_with_defaults_to_fill_goes_through_sqlalchemy():
    engine = _engine()
    stamp = target.now()
    rp = models.ResourceProvider.__table__
    with engine.begin() as conn:
        # generation has a Python-side default: the driver's way would miss it
        assert target._many_sqlite(conn, rp.insert(), [{'uuid': 'a', 'name': 'a',
                                                          'created_at': stamp}]) is False
        assert conn.execute(sa.select(sa.func.count()).select_from(rp)).scalar_one() == 0
        target._many(conn, rp.insert(), [{'uuid': 'a', 'name': 'a', 'created_at': stamp}])
        assert conn.execute(sa.select(rp.c.uuid, rp.c.generation)).all() == [('a', 0)]


def test_diff_order_is_the_string_order_and_survives_keys_that_are_not_strings():
    keys = {('b', 'VCPU'), ('a', 'MEMORY_MB'), ('a', 'DISK_GB')}
    assert state._sorted(keys) == sorted(keys, key=state._order)
    mixed = {('a', None), ('a', 'X'), ('b', 'Y')}
    assert state._sorted(mixed) == sorted(mixed, key=state._order)


def test_an_update_takes_the_driver_way_unless_sqlalchemy_must_fill_a_value():
    engine = _engine()
    stamp = datetime.datetime(2026, 12, 7, 19, 0, 1, 250)
    later = stamp + datetime.timedelta(hours=1)
    rp = models.ResourceProvider.__table__
    with engine.begin() as conn:
        target._many(conn, rp.insert(), [{'uuid': u, 'name': u, 'generation': 1,
                                          'created_at': stamp} for u in 'abc'])
        ids = dict(conn.execute(sa.select(rp.c.uuid, rp.c.id)).all())
        # every bound value named by the rows: the driver's executemany
        stmt = rp.update().where(rp.c.id == sa.bindparam('_id')).values(
            name=sa.bindparam('name'), generation=sa.bindparam('generation'),
            updated_at=sa.bindparam('updated_at'))
        assert target._many_sqlite(conn, stmt, [
            {'_id': ids['a'], 'name': 'A', 'generation': 7, 'updated_at': later},
            {'_id': ids['b'], 'name': 'B', 'generation': 8, 'updated_at': later}]) is True
        # updated_at left to its Python-side onupdate, a value fixed in the
        # statement: SQLAlchemy's way, nothing written here
        for statement in (rp.update().where(rp.c.id == sa.bindparam('_id')).values(
                generation=sa.bindparam('generation')),
                rp.update().where(rp.c.id == sa.bindparam('_id')).values(updated_at=later)):
            assert target._many_sqlite(conn, statement, [{'_id': ids['c'],
                                                          'generation': 9}]) is False
        rows = conn.execute(sa.select(rp.c.uuid, rp.c.name, rp.c.generation,
                                      rp.c.updated_at).order_by(rp.c.uuid)).all()
    assert rows == [('a', 'A', 7, later), ('b', 'B', 8, later), ('c', 'c', 1, None)]
