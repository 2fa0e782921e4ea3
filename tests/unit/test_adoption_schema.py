"""Placement's schema as berth declares it: revisions known, unknown ones refused."""

import pytest
import sqlalchemy as sa

from objects.adoption import placement_schema as ps


def _engine(revision=ps.HEAD):
    engine = sa.create_engine('sqlite://')
    with engine.begin() as conn:
        ps.create_at(conn, revision)
    return engine


def test_head_revision_has_consumer_types():
    engine = _engine()
    with engine.connect() as conn:
        assert ps.schema_revision(conn) == ps.HEAD == 'a082b8bb98d0'
        assert sa.inspect(conn).has_table('consumer_types')
    assert ps.consumer_types in ps.tables_for(ps.HEAD)
    assert ps.consumers.c.consumer_type_id in ps.consumer_columns(ps.HEAD)


@pytest.mark.parametrize('revision', ['b4ed3a175331', '611cd6dffd7b', 'b5c396305c25'])
def test_older_revisions_have_no_consumer_types(revision):
    engine = _engine(revision)
    with engine.connect() as conn:
        assert ps.schema_revision(conn) == revision
        insp = sa.inspect(conn)
        assert not insp.has_table('consumer_types')
        assert 'consumer_type_id' not in {c['name'] for c in insp.get_columns('consumers')}
    assert ps.consumer_types not in ps.tables_for(revision)
    assert ps.consumers.c.consumer_type_id not in ps.consumer_columns(revision)


def test_unknown_revision_is_refused_with_the_known_ones():
    engine = _engine()
    with engine.begin() as conn:
        conn.execute(ps.alembic_version.update().values(version_num='ffffffffffff'))
    with engine.connect() as conn, pytest.raises(ps.UnknownRevision) as exc:
        ps.schema_revision(conn)
    assert 'ffffffffffff' in str(exc.value) and ps.HEAD in str(exc.value)
    assert '\n' not in str(exc.value)


def test_not_a_placement_database():
    engine = sa.create_engine('sqlite://')
    with engine.connect() as conn, pytest.raises(ps.SchemaError, match='not a Placement'):
        ps.schema_revision(conn)


def test_empty_alembic_version():
    engine = _engine()
    with engine.begin() as conn:
        conn.execute(ps.alembic_version.delete())
    with engine.connect() as conn, pytest.raises(ps.SchemaError, match='empty'):
        ps.schema_revision(conn)


def test_every_table_has_timestamps():
    for table in ps.TABLES:
        assert {'created_at', 'updated_at'} <= set(table.c.keys()), table.name
