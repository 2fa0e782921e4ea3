"""``berth-manage import placement`` on hand-made Placement databases: refusals, edge rows.

The source here is Placement's schema as objects/adoption/placement_schema.py
declares it (the integration tier checks that against a real Placement
16.0.0), filled with rows a real Placement cannot easily be made to hold:
NULL generations, inconsistent rows, older schema revisions.
"""

import datetime
import time
import uuid

import pytest
import sqlalchemy as sa

from cli import manage
from common import context as berth_context
from db import models
from objects import database
from objects.adoption import placement_import, target
from objects.adoption import placement_schema as ps
from objects.placement import resource_provider
from tests import fixtures


def _u():
    return str(uuid.uuid4())


class Source:
    """A Placement database in a SQLite file, written row by row."""

    def __init__(self, path, revision=ps.HEAD):
        self.url = 'sqlite:///%s' % path
        self.engine = sa.create_engine(self.url)
        self.revision = revision
        with self.engine.begin() as conn:
            ps.create_at(conn, revision)
            conn.execute(ps.resource_classes.insert(), [
                {'id': 0, 'name': 'VCPU'}, {'id': 1, 'name': 'MEMORY_MB'},
                {'id': 10000, 'name': 'CUSTOM_GOLD'}])
            conn.execute(ps.traits.insert(), [{'id': 1, 'name': 'HW_CPU_X86_AVX2'},
                                              {'id': 2, 'name': 'CUSTOM_RACK'}])
            conn.execute(ps.projects.insert(), [{'id': 1, 'external_id': 'proj'}])
            conn.execute(ps.users.insert(), [{'id': 1, 'external_id': 'user'}])
            if ps.has_consumer_types(revision):
                conn.execute(ps.consumer_types.insert(), [{'id': 1, 'name': 'INSTANCE'}])
        self.next_id = 1

    def sql(self, table, *rows):
        with self.engine.begin() as conn:
            conn.execute(table.insert(), list(rows))

    def provider(self, name, generation=0, parent=None, root=None, uuid_=None):
        rp_id = self.next_id
        self.next_id += 1
        self.sql(ps.resource_providers, {
            'id': rp_id, 'uuid': uuid_ or _u(), 'name': name, 'generation': generation,
            'parent_provider_id': parent, 'root_provider_id': root or rp_id})
        return rp_id

    def cloud(self):
        """Two roots, a child with a custom class, a consumer on both: provider ids."""
        cn = self.provider('cn1', generation=7)
        child = self.provider('cn1-gpu', generation=3, parent=cn, root=cn)
        old = self.provider('old', generation=None)
        self.sql(ps.inventories,
                 {'resource_provider_id': cn, 'resource_class_id': 0, 'total': 16,
                  'reserved': 2, 'min_unit': 1, 'max_unit': 8, 'step_size': 1,
                  'allocation_ratio': 4.0},
                 {'resource_provider_id': child, 'resource_class_id': 10000, 'total': 2,
                  'reserved': 0, 'min_unit': 1, 'max_unit': 1, 'step_size': 1,
                  'allocation_ratio': 1.0})
        self.sql(ps.placement_aggregates, {'id': 1, 'uuid': 'AB7E1F3C9D2B4E0A8C1D2E3F4A5B6C7D'})
        self.sql(ps.resource_provider_aggregates, {'resource_provider_id': cn,
                                                   'aggregate_id': 1})
        self.sql(ps.resource_provider_traits, {'resource_provider_id': child, 'trait_id': 2})
        consumer = {'id': 1, 'uuid': 'c0000000-0000-0000-0000-000000000001',
                    'project_id': 1, 'user_id': 1, 'generation': 5}
        if ps.has_consumer_types(self.revision):
            consumer['consumer_type_id'] = 1
        self.sql(ps.consumers, consumer)
        self.sql(ps.allocations,
                 {'resource_provider_id': cn, 'resource_class_id': 0, 'used': 2,
                  'consumer_id': consumer['uuid']},
                 {'resource_provider_id': child, 'resource_class_id': 10000, 'used': 1,
                  'consumer_id': consumer['uuid']})
        return cn, child, old


@pytest.fixture
def db(conf, tmp_path):
    fixtures.fresh_database(tmp_path, conf)
    database_ = database.open_database(conf)
    yield database_
    database_.dispose()


@pytest.fixture
def ctx(db):
    return berth_context.admin_context(db)


@pytest.fixture
def source(tmp_path):
    return Source(tmp_path / 'placement.sqlite')


def _berth(db):
    with db.engine.connect() as conn:
        st, _ = target.read(conn)
        runs = conn.execute(sa.select(sa.func.count()).select_from(
            models.PlacementImport.__table__)).scalar_one()
    return st, runs


def _cli(conf, tmp_path, capsys, *args):
    cfg = tmp_path / 'manage.conf'
    cfg.write_text('[DEFAULT]\nstate_path = %s\n%s' % (conf.state_path,
                                                       fixtures.database_section(conf)))
    code = manage.main(['--config-file', str(cfg), 'import', 'placement', *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_import_keeps_uuids_generations_and_aggregates_as_stored(ctx, db, source):
    source.cloud()
    result = placement_import.run(ctx, source.url)
    st, runs = _berth(db)
    assert runs == 1 and result.null_generations == 1
    gens = {v[0]: v[1] for v in st.resource_providers.values()}
    assert gens == {'cn1': 7, 'cn1-gpu': 3, 'old': 0}
    (cn_uuid,) = [u for u, v in st.resource_providers.items() if v[0] == 'cn1']
    assert st.resource_providers[[u for u, v in st.resource_providers.items()
                                  if v[0] == 'cn1-gpu'][0]][2:] == (cn_uuid, cn_uuid)
    assert st.placement_aggregates == {'AB7E1F3C9D2B4E0A8C1D2E3F4A5B6C7D'}
    assert st.consumers == {'c0000000-0000-0000-0000-000000000001':
                            ('proj', 'user', 'INSTANCE', 5)}
    assert st.inventories[(cn_uuid, 'VCPU')] == (16, 2, 1, 8, 1, 4.0)
    rp = resource_provider.get_by_uuid(ctx, cn_uuid)
    assert rp.generation == 7


@pytest.mark.parametrize('revision', ['b4ed3a175331', 'b5c396305c25'])
def test_an_older_revision_without_consumer_types(ctx, db, tmp_path, revision):
    src = Source(tmp_path / 'old.sqlite', revision)
    src.cloud()
    result = placement_import.run(ctx, src.url)
    assert result.revision == revision
    st, _ = _berth(db)
    assert st.consumers == {'c0000000-0000-0000-0000-000000000001': ('proj', 'user', None, 5)}


def test_unknown_revision_is_refused_in_one_line(conf, db, source, tmp_path, capsys):
    source.cloud()
    with source.engine.begin() as conn:
        conn.execute(ps.alembic_version.update().values(version_num='0123456789ab'))
    code, out, err = _cli(conf, tmp_path, capsys, '--connection', source.url)
    assert code == 2 and out == ''
    assert err.count('\n') == 1 and 'unknown Placement schema revision 0123456789ab' in err
    assert 'nothing was written' in err
    st, runs = _berth(db)
    assert runs == 0 and not st.resource_providers


@pytest.mark.parametrize('url, message', [
    ('not a url', 'not a usable database URL'),
    ('nosuchdialect://h/db', 'unknown database dialect'),
    ('sqlite:////nonexistent/placement.sqlite', 'no such SQLite file'),
    ('postgresql+psycopg2://placement:secret@127.0.0.1:1/placement', 'cannot read'),
])
def test_unusable_sources_are_refused_in_one_line(conf, db, tmp_path, capsys, url, message):
    code, out, err = _cli(conf, tmp_path, capsys, '--connection', url)
    assert code == 2 and out == ''
    assert err.count('\n') == 1 and message in err, err
    assert 'secret' not in err


def test_not_a_placement_database(conf, db, tmp_path, capsys):
    other = tmp_path / 'other.sqlite'
    sa.create_engine('sqlite:///%s' % other).connect().close()
    code, _, err = _cli(conf, tmp_path, capsys, '--connection', 'sqlite:///%s' % other)
    assert code == 2 and 'not a Placement database' in err


def test_a_target_with_data_no_import_wrote_is_refused(conf, ctx, db, source, tmp_path,
                                                       capsys):
    source.cloud()
    mine = resource_provider.create(ctx, name='berth-only', uuid=_u())
    code, _, err = _cli(conf, tmp_path, capsys, '--connection', source.url)
    assert code == 2 and '--allow-existing' in err and err.count('\n') == 1
    st, runs = _berth(db)
    assert runs == 0 and set(st.resource_providers) == {mine.uuid}
    code, out, _ = _cli(conf, tmp_path, capsys, '--connection', source.url,
                        '--allow-existing')
    assert code == 0, out
    st, runs = _berth(db)
    assert runs == 1 and mine.uuid not in st.resource_providers
    assert len(st.resource_providers) == 3
    # an import wrote berth's data now: a catch-up needs no flag
    code, out, err = _cli(conf, tmp_path, capsys, '--connection', source.url)
    assert code == 0 and 'import placement: 0 change(s)' in out
    assert err == ''                          # no progress off a terminal ...
    code, out, err = _cli(conf, tmp_path, capsys, '--connection', source.url, '--progress')
    assert code == 0 and 'reading sqlite' in err and 'written: done' in err   # ... unless asked


def test_inconsistent_rows_are_listed_and_refused(conf, db, source, tmp_path, capsys):
    cn, _, _ = source.cloud()
    source.sql(ps.allocations, {'resource_provider_id': 999, 'resource_class_id': 0,
                                'used': 1, 'consumer_id': 'c0000000-0000-0000-0000-000000000001'})
    orphan = {'id': 2, 'uuid': 'c0000000-0000-0000-0000-000000000002', 'project_id': 42,
              'user_id': 1, 'generation': 0}
    source.sql(ps.consumers, orphan)
    source.sql(ps.allocations, {'resource_provider_id': cn, 'resource_class_id': 1,
                                'used': 512, 'consumer_id': orphan['uuid']})
    code, out, err = _cli(conf, tmp_path, capsys, '--connection', source.url)
    assert code == 2
    assert 'provider id 999 is missing' in err
    assert 'consumer c0000000-0000-0000-0000-000000000002: project id 42 is missing' in err
    assert '3 inconsistent row(s)' in err and '--skip-inconsistent' in err
    assert _berth(db)[1] == 0 and not _berth(db)[0].resource_providers
    code, out, err = _cli(conf, tmp_path, capsys, '--connection', source.url,
                          '--skip-inconsistent')
    assert code == 0
    assert out.count('skipped: ') == 3
    st, _ = _berth(db)
    assert set(st.consumers) == {'c0000000-0000-0000-0000-000000000001'}
    assert len(st.allocations) == 2


def test_an_error_while_writing_leaves_berth_as_it_was(ctx, db, source, monkeypatch):
    source.cloud()
    placement_import.run(ctx, source.url)
    before = _berth(db)
    source.provider('new-one', generation=2)

    def broken(*args):
        raise sa.exc.OperationalError('INSERT', {}, Exception('disk full'))

    monkeypatch.setattr(target, '_write_allocations', broken)
    with pytest.raises(sa.exc.OperationalError):
        placement_import.run(ctx, source.url)
    assert _berth(db) == before


def test_catch_up_swaps_names_reparents_and_deletes_trees(ctx, db, source):
    cn, child, old = source.cloud()
    source.provider('steady', generation=9)
    placement_import.run(ctx, source.url)
    with db.engine.connect() as conn:
        stamps = dict(conn.execute(sa.select(models.ResourceProvider.__table__.c.name,
                                             models.ResourceProvider.__table__.c.updated_at)).all())
    with source.engine.begin() as conn:
        rp = ps.resource_providers
        conn.execute(rp.update().where(rp.c.id == cn).values(name='tmp'))
        conn.execute(rp.update().where(rp.c.id == old).values(name='cn1', generation=4))
        conn.execute(rp.update().where(rp.c.id == cn).values(name='old'))
        conn.execute(ps.allocations.delete())
        conn.execute(ps.consumers.delete())
        conn.execute(ps.inventories.delete().where(ps.inventories.c.resource_provider_id
                                                   == child))
        conn.execute(ps.resource_provider_traits.delete())
        conn.execute(rp.delete().where(rp.c.id == child))
    time.sleep(1.1)                 # MySQL's DATETIME keeps whole seconds
    new_parent = source.provider('new-root', generation=1)
    source.provider('new-child', generation=1, parent=new_parent, root=new_parent)
    result = placement_import.run(ctx, source.url)
    assert result.changes['resource_providers'] == (2, 2, 1)
    assert result.changes['allocations'] == (0, 0, 2)
    st, runs = _berth(db)
    assert runs == 2
    names = {v[0]: (v[1], v[2]) for v in st.resource_providers.values()}
    assert names['cn1'][0] == 4 and names['old'][0] == 7
    assert 'cn1-gpu' not in names
    (root_uuid,) = [u for u, v in st.resource_providers.items() if v[0] == 'new-root']
    assert names['new-child'][1] == root_uuid
    assert not st.consumers and 'CUSTOM_GOLD' in st.resource_classes
    with db.engine.connect() as conn:
        after = dict(conn.execute(sa.select(models.ResourceProvider.__table__.c.name,
                                            models.ResourceProvider.__table__.c.updated_at)).all())
    # rows that changed carry the run's time; none other was written
    assert after['cn1'] != stamps['cn1'] and isinstance(after['cn1'], datetime.datetime)
    assert after['steady'] == stamps['steady']
