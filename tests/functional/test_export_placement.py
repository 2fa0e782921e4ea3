"""``berth-manage export placement`` into Placement's schema (built here, no Placement package).

The real Placement 16 on an export is tests/integration/test_placement_export.py;
these check the rows written and every refusal: one line, exit 2, nothing written.
"""

import os

import pytest
import requests
import sqlalchemy as sa

from cli import manage
from objects.adoption import placement_schema as ps
from tests import adoption_builder, fixtures


@pytest.fixture
def berth_cfg(berth, conf, tmp_path):
    path = tmp_path / 'berth.conf'
    path.write_text('[DEFAULT]\nstate_path = %s\n%s'
                    % (conf.state_path, fixtures.database_section(conf)))
    with requests.Session() as session:
        adoption_builder.build(adoption_builder.Api(session, berth.placement_url))
    return str(path)


def _target(tmp_path, revision=ps.HEAD):
    path = tmp_path / 'placement.sqlite'
    url = 'sqlite:///%s' % path
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        ps.create_at(conn, revision)
    return url, engine


def _export(capsys, cfg, url):
    code = manage.main(['--config-file', cfg, 'export', 'placement', '--connection', url])
    out = capsys.readouterr()
    return code, out.out, out.err


def _count(engine, table):
    with engine.connect() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(table)).scalar()


def test_export_keeps_uuids_generations_and_placement_ids(berth, berth_cfg, client,
                                                          tmp_path, capsys):
    url, engine = _target(tmp_path)
    code, out, err = _export(capsys, berth_cfg, url)
    assert (code, err) == (0, ''), out + err
    assert out.startswith('exported to %s in ' % url)
    rp, rc = ps.resource_providers, ps.resource_classes
    with engine.connect() as conn:
        ids = dict(conn.execute(sa.select(rc.c.name, rc.c.id)).all())
        assert (ids['VCPU'], ids['MEMORY_MB'], ids['DISK_GB']) == (0, 1, 2)
        assert sorted(i for n, i in ids.items() if n.startswith('CUSTOM_')) == [
            10000, 10001, 10002]
        rows = {r.uuid: r for r in conn.execute(sa.select(rp))}
        by_id = {r.id: r.uuid for r in rows.values()}
        for name in ('cn1', 'cn1-numa0', 'shared-disk', 'empty-provider'):
            got = client.get('/resource_providers/%s' % adoption_builder.uid(name)).json()
            row = rows[got['uuid']]
            assert (row.name, row.generation) == (got['name'], got['generation'])
            assert by_id[row.root_provider_id] == got['root_provider_uuid']
            assert by_id.get(row.parent_provider_id) == got['parent_provider_uuid']
        c = conn.execute(sa.select(ps.consumers).where(
            ps.consumers.c.uuid == adoption_builder.uid('vm1'))).one()
        assert c.generation == client.get('/allocations/%s' % adoption_builder.uid('vm1')
                                          ).json()['consumer_generation'] == 2
        ctype = conn.execute(sa.select(ps.consumer_types.c.name).where(
            ps.consumer_types.c.id == c.consumer_type_id)).scalar()
        assert ctype == 'INSTANCE'
        inv = conn.execute(sa.select(ps.inventories).where(
            ps.inventories.c.resource_class_id == ids['MEMORY_MB'])).first()
        assert (inv.min_unit, inv.step_size, inv.allocation_ratio) == (256, 256, 1.5)
        assert conn.execute(sa.select(ps.traits.c.id).where(
            ps.traits.c.name == 'CUSTOM_UNUSED')).scalar() is not None


def test_non_empty_target_is_refused(berth, berth_cfg, tmp_path, capsys):
    url, engine = _target(tmp_path)
    with engine.begin() as conn:
        conn.execute(ps.resource_providers.insert().values(id=1, uuid='x' * 36,
                                                           name='old', generation=3))
    code, out, err = _export(capsys, berth_cfg, url)
    assert (code, out) == (2, '')
    assert err == ('berth-manage: the target %s is not empty (1 row(s) in '
                   'resource_providers); export writes only into an empty Placement '
                   'database: create a new one and run placement-manage db sync on it\n'
                   % url)
    assert _count(engine, ps.traits) == 0 and _count(engine, ps.resource_classes) == 0


def test_unknown_revision_is_refused(berth, berth_cfg, tmp_path, capsys):
    url, engine = _target(tmp_path)
    with engine.begin() as conn:
        conn.execute(ps.alembic_version.update().values(version_num='fffffff00000'))
    code, out, err = _export(capsys, berth_cfg, url)
    assert (code, out) == (2, '')
    assert err.count('\n') == 1
    assert 'unknown Placement schema revision fffffff00000' in err
    assert _count(engine, ps.traits) == 0


def test_not_a_placement_database_is_refused(berth, berth_cfg, tmp_path, capsys):
    path = tmp_path / 'other.sqlite'
    sa.create_engine('sqlite:///%s' % path).connect().close()
    code, out, err = _export(capsys, berth_cfg, 'sqlite:///%s' % path)
    assert (code, out) == (2, '')
    assert err.count('\n') == 1 and 'no alembic_version table' in err


def test_missing_sqlite_file_is_refused_and_not_created(berth, berth_cfg, tmp_path,
                                                        capsys):
    path = tmp_path / 'nowhere.sqlite'
    code, out, err = _export(capsys, berth_cfg, 'sqlite:///%s' % path)
    assert (code, out) == (2, '')
    assert err.count('\n') == 1 and 'not an existing SQLite file' in err
    assert not os.path.exists(path)


def test_a_failed_write_leaves_the_target_as_it_was(berth, berth_cfg, tmp_path, capsys):
    url, engine = _target(tmp_path)
    with engine.begin() as conn:
        # allocations are written last: everything before them must roll back
        conn.execute(sa.text("CREATE TRIGGER refuse BEFORE INSERT ON allocations "
                             "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"))
    code, out, err = _export(capsys, berth_cfg, url)
    assert (code, out) == (2, '')
    assert err.count('\n') == 1 and 'nothing was written (refused by the test)' in err
    for table in (ps.resource_classes, ps.traits, ps.resource_providers, ps.consumers):
        assert _count(engine, table) == 0, table.name
