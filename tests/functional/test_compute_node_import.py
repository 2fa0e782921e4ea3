"""``berth-manage import compute-nodes`` from a database shaped like a Nova cell DB."""

import hashlib
import os
import sqlite3
import threading

import pytest
import sqlalchemy as sa

from cli import manage, manage_migrations
from common import exception
from objects.legacy import compute_node_import
from tests import fixtures, nova_cell
from tests.functional import legacy_helpers


def _sqlite_source(tmp_path, rows):
    path = tmp_path / 'nova_cell1.sqlite'
    nova_cell.create('sqlite:///%s' % path, rows)
    return 'sqlite:///%s' % path, path


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Interrupt(Exception):
    """Stands in for Ctrl-C halfway through the import."""


def _import(ctx, conf, url, stop_after=None):
    source = compute_node_import.Source(url).check()
    calls = []

    def progress(done, total):
        calls.append((done, total))
        if stop_after is not None and done >= stop_after:
            raise Interrupt()

    try:
        return compute_node_import.run(ctx, conf, source, progress), calls
    finally:
        source.close()


def import_end_to_end(berth, conf, ctx, client, url):
    """1000 varied rows: interrupted halfway, resumed, checked over the API, re-run."""
    nova_cell.set_conf(conf)
    rows = nova_cell.make_rows(1000)
    with pytest.raises(Interrupt):
        _import(ctx, conf, url, stop_after=500)
    live = [r for r in rows if not r['deleted']]
    imported_first = len(legacy_helpers.uuids_by_name(berth.db))
    assert 0 < imported_first < len(live)

    totals, calls = _import(ctx, conf, url)
    good = [r for r in live if not r['bad']]
    assert totals.found == len(live) and calls[-1] == (len(live), len(live))
    assert totals.unchanged == imported_first
    assert totals.created == len(good) - imported_first
    assert sorted(i for i, _ in totals.failed) == sorted(r['id'] for r in rows if r['bad'])
    assert totals.batches == -(-len(live) // conf.compute_migration.batch_size)

    uuids = legacy_helpers.uuids_by_name(berth.db)
    assert len(uuids) == len(good)
    for row in good:
        if row['uuid']:
            assert uuids[row['hypervisor_hostname']] == row['uuid']
    assert legacy_helpers.check_over_api(client, rows, uuids) == len(good)
    legacy_helpers.check_resource_queries(client, rows)

    # again: nothing created, nothing changed, no duplicates
    totals, _ = _import(ctx, conf, url)
    assert (totals.created, totals.updated, totals.unchanged) == (0, 0, len(good))
    assert legacy_helpers.uuids_by_name(berth.db) == uuids
    return rows, uuids


@pytest.mark.slow
def test_sqlite_source_interrupted_resumed_and_rerun(berth, conf, ctx, client, tmp_path):
    url, path = _sqlite_source(tmp_path, nova_cell.make_rows(1000))
    before = _digest(path)
    import_end_to_end(berth, conf, ctx, client, url)
    assert _digest(path) == before   # read-only


def test_changed_source_rows_update_inventories(berth, conf, ctx, client, tmp_path):
    rows = [r for r in nova_cell.make_rows(8) if r['expect']]
    url, path = _sqlite_source(tmp_path, rows)
    _import(ctx, conf, url)
    no_uuid = next(r for r in rows if r['uuid'] is None)
    con = sqlite3.connect(str(path))
    con.execute('UPDATE compute_nodes SET vcpus = 48, cpu_allocation_ratio = 2.0 '
                'WHERE id = ?', (rows[1]['id'],))
    con.execute('UPDATE compute_nodes SET memory_mb = 1024 WHERE id = ?', (no_uuid['id'],))
    con.commit()
    con.close()
    totals, _ = _import(ctx, conf, url)
    assert (totals.created, totals.updated, totals.unchanged) == (0, 2, len(rows) - 2)
    uuids = legacy_helpers.uuids_by_name(berth.db)
    inv = client.get('/resource_providers/%s/inventories/VCPU'
                     % uuids[rows[1]['hypervisor_hostname']]).json()
    assert (inv['total'], inv['max_unit'], inv['allocation_ratio']) == (48, 48, 2.0)
    inv = client.get('/resource_providers/%s/inventories/MEMORY_MB'
                     % uuids[no_uuid['hypervisor_hostname']]).json()
    assert inv['total'] == 1024
    assert len(uuids) == len(rows)


def test_pci_pool_removed_at_the_source_removes_its_inventory(berth, conf, ctx, client,
                                                              tmp_path):
    rows = [r for r in nova_cell.make_rows(5) if r['id'] == 4]
    url, path = _sqlite_source(tmp_path, rows)
    _import(ctx, conf, url)
    uuid = rows[0]['uuid']
    assert 'SRIOV_NET_VF' in client.get(
        '/resource_providers/%s/inventories' % uuid).json()['inventories']
    con = sqlite3.connect(str(path))
    con.execute('UPDATE compute_nodes SET pci_stats = NULL')
    con.commit()
    con.close()
    totals, _ = _import(ctx, conf, url)
    assert totals.updated == 1
    assert 'SRIOV_NET_VF' not in client.get(
        '/resource_providers/%s/inventories' % uuid).json()['inventories']


def _cli(tmp_path, conf, url, *extra):
    cfg = tmp_path / 'berth.conf'
    cfg.write_text('[DEFAULT]\nstate_path = %s\n[compute_migration]\nbatch_size = 5\n'
                   % conf.state_path + fixtures.database_section(conf))
    return manage.main(['--config-file', str(cfg), 'import', 'compute-nodes',
                        '--from', url] + list(extra))


def test_cli_import_reports_progress_table_and_bad_rows(berth, conf, tmp_path, capsys):
    url, _ = _sqlite_source(tmp_path, nova_cell.make_rows(14))
    assert _cli(tmp_path, conf, url) == 2
    out = capsys.readouterr().out
    assert 'import compute nodes [' in out and '13/13' in out
    assert '| Found | Created | Updated | Unchanged | Skipped |' in out
    assert '1 x numa_topology is not valid JSON (nova compute node 12)' in out
    assert 'nova compute node 12 skipped' not in out


def test_cli_import_summarises_skipped_rows_by_reason(berth, conf, tmp_path, capsys):
    rows = nova_cell.make_rows(200)
    bad = [r for r in rows if r['bad'] and not r['deleted']]
    url, _ = _sqlite_source(tmp_path, rows)
    assert _cli(tmp_path, conf, url) == 2
    out = capsys.readouterr().out
    assert '%d compute node(s) were not imported:' % len(bad) in out
    summary = [line for line in out.splitlines() if ' x ' in line]
    # four kinds of bad row, one line each, whatever their values
    assert len(summary) == 4, out
    negative = [r['id'] for r in bad if r['bad'] == 'vcpus is negative']
    assert len(negative) > manage_migrations.SHOWN_IDS
    assert '%d x vcpus is negative (nova compute node %s and %d more)' % (
        len(negative), ', '.join(str(i) for i in negative[:manage_migrations.SHOWN_IDS]),
        len(negative) - manage_migrations.SHOWN_IDS) in out
    assert 'skipped:' not in out

    assert _cli(tmp_path, conf, url, '--verbose') == 2
    out = capsys.readouterr().out
    assert len([line for line in out.splitlines() if 'skipped:' in line]) == len(bad)
    assert 'nova compute node %d skipped: vcpus is negative (-4)' % negative[0] in out


@pytest.mark.parametrize('url,reason', [
    ('not a url', 'Could not parse SQLAlchemy URL'),
    ('postgresql+psycopg2://nova:s3cret@db:port/nova', 'the port is not a number'),
    ('nosuchdb://nova:s3cret@db/nova', 'unknown database dialect or driver (nosuchdb)'),
    ('mysql+nosuchdriver://nova:s3cret@db/nova', 'unknown database dialect or driver'),
])
def test_malformed_from_url_is_one_line_and_exit_2(berth, conf, tmp_path, capsys, url, reason):
    assert _cli(tmp_path, conf, url) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert err.startswith('berth-manage: --from is not a usable database URL: ')
    assert reason in err
    assert '\n' not in err and 'Traceback' not in captured.out + captured.err
    assert 's3cret' not in err


def test_cli_import_of_good_rows_exits_0(berth, conf, tmp_path, capsys):
    url, _ = _sqlite_source(tmp_path, [r for r in nova_cell.make_rows(9) if not r['bad']])
    assert _cli(tmp_path, conf, url) == 0
    assert _cli(tmp_path, conf, url) == 0
    assert '| 8     | 0       | 0       | 8         | 0       |' in capsys.readouterr().out


def test_not_a_nova_cell_database_exits_2(berth, conf, tmp_path, capsys):
    empty = tmp_path / 'empty.sqlite'
    sqlite3.connect(str(empty)).close()
    assert _cli(tmp_path, conf, 'sqlite:///%s' % empty) == 2
    err = capsys.readouterr().err
    assert 'is not a Nova cell database: missing table(s) compute_nodes, instances, ' \
           'services' in err

    # berth's own database has compute_nodes but is no Nova cell
    own = (conf.database.connection
           or 'sqlite:///%s' % os.path.join(conf.state_path, 'berth.sqlite'))
    assert _cli(tmp_path, conf, own) == 2
    assert 'missing table(s) instances, services' in capsys.readouterr().err

    missing = tmp_path / 'nope.sqlite'
    assert _cli(tmp_path, conf, 'sqlite:///%s' % missing) == 2
    assert 'no such SQLite file' in capsys.readouterr().err
    assert not missing.exists()


def test_compute_nodes_without_the_capacity_columns_is_refused(tmp_path):
    path = tmp_path / 'old.sqlite'
    engine = sa.create_engine('sqlite:///%s' % path)
    with engine.begin() as conn:
        for ddl in ('CREATE TABLE compute_nodes (id INTEGER, deleted INTEGER, vcpus INTEGER)',
                    'CREATE TABLE instances (id INTEGER)',
                    'CREATE TABLE services (id INTEGER)'):
            conn.exec_driver_sql(ddl)
    engine.dispose()
    with pytest.raises(exception.NotNovaCellDatabase, match='no column\\(s\\) uuid, host'):
        compute_node_import.Source('sqlite:///%s' % path).check()


def test_unreachable_server_is_a_clear_error():
    url = 'postgresql+psycopg2://nobody:secret@127.0.0.1:1/nova'
    with pytest.raises(exception.NotNovaCellDatabase) as exc:
        compute_node_import.Source(url).check()
    assert 'cannot be read' in str(exc.value) and 'secret' not in str(exc.value)


def test_two_concurrent_imports_never_duplicate(berth, conf, ctx, client, tmp_path):
    nova_cell.set_conf(conf)
    rows = nova_cell.make_rows(100)
    url, _ = _sqlite_source(tmp_path, rows)
    conf.set_override('batch_size', 9, group='compute_migration')
    barrier = threading.Barrier(2)
    totals = []

    def run():
        barrier.wait()
        totals.append(_import(ctx.__class__.from_dict(ctx.to_dict(), db=ctx.db),
                              conf, url)[0])

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    good = [r for r in rows if r['expect']]
    assert sum(t.created for t in totals) == len(good)
    with berth.db.engine.connect() as conn:
        assert conn.exec_driver_sql('SELECT COUNT(*) FROM compute_nodes').scalar() == len(good)
    uuids = legacy_helpers.uuids_by_name(berth.db)
    assert legacy_helpers.check_over_api(client, rows, uuids) == len(good)
