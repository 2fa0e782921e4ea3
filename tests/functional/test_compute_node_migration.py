"""Online data migration of legacy compute nodes, end to end over a real SQLite file."""

import threading

import pytest

from cli import manage
from objects.legacy import compute_node_migration, online_migrations
from tests import fixtures, nova_cell
from tests.functional import legacy_helpers


@pytest.fixture
def legacy(berth, conf):
    nova_cell.set_conf(conf)
    rows = nova_cell.make_rows(1000)
    legacy_helpers.insert_legacy_rows(berth.db, rows)
    return rows


def _bad_ids(rows):
    return sorted(r['id'] for r in rows if r['bad'])


@pytest.mark.slow
def test_1000_rows_interrupted_halfway_then_resumed(berth, conf, ctx, client, legacy):
    live = [r for r in legacy if not r['deleted']]
    code, (nodes, consumers) = online_migrations.run(ctx, conf, max_count=500)
    assert code == online_migrations.MORE
    assert (nodes.pending, nodes.found, nodes.complete) == (len(live), 500, False)
    assert nodes.batches == 500 // conf.compute_migration.batch_size
    assert consumers.found == 0 and not consumers.complete
    first_failed = {i for i, _ in nodes.failed}
    assert first_failed == {i for i in _bad_ids(legacy) if i <= 520}

    code, (nodes, consumers) = online_migrations.run(ctx, conf)
    assert code == online_migrations.FAILED_ROWS
    assert {i for i, _ in nodes.failed} == set(_bad_ids(legacy))
    assert nodes.done == len(live) - len(_bad_ids(legacy)) - (500 - len(first_failed))
    reasons = dict(nodes.failed)
    for row in legacy:
        if row['bad']:
            assert row['bad'] in reasons[row['id']]

    # nothing but the bad rows is left, and running again changes nothing
    assert compute_node_migration.count_pending(ctx, conf) == len(_bad_ids(legacy))
    code, (nodes, _) = online_migrations.run(ctx, conf)
    assert (code, nodes.done, nodes.found) == (online_migrations.FAILED_ROWS, 0,
                                               len(_bad_ids(legacy)))

    uuids = legacy_helpers.uuids_by_name(berth.db)
    assert all(uuids[r['hypervisor_hostname']] for r in legacy if r['expect'])
    assert legacy_helpers.check_over_api(client, legacy, uuids) == sum(
        1 for r in legacy if r['expect'])
    legacy_helpers.check_resource_queries(client, legacy)


def test_rows_without_uuid_get_one_once(berth, conf, ctx, client):
    rows = nova_cell.make_rows(30)
    legacy_helpers.insert_legacy_rows(berth.db, rows)
    online_migrations.run(ctx, conf)
    first = legacy_helpers.uuids_by_name(berth.db)
    online_migrations.run(ctx, conf)
    assert legacy_helpers.uuids_by_name(berth.db) == first
    no_uuid = [r['hypervisor_hostname'] for r in rows if r['uuid'] is None]
    assert no_uuid and all(first[n] for n in no_uuid)


def test_fixed_bad_row_migrates_on_the_next_run(berth, conf, ctx, client):
    rows = [r for r in nova_cell.make_rows(12) if r['id'] in (1, 10, 11)]
    legacy_helpers.insert_legacy_rows(berth.db, rows)
    code, (nodes, _) = online_migrations.run(ctx, conf)
    assert code == online_migrations.FAILED_ROWS
    assert sorted(i for i, _ in nodes.failed) == [10, 11]
    with berth.db.engine.begin() as conn:
        conn.exec_driver_sql('UPDATE compute_nodes SET vcpus = 4 WHERE id = 10')
        conn.exec_driver_sql('UPDATE compute_nodes SET cpu_allocation_ratio = NULL '
                             'WHERE id = 11')
    code, (nodes, _) = online_migrations.run(ctx, conf)
    assert (code, nodes.done, nodes.failed) == (online_migrations.DONE, 2, [])
    uuid = legacy_helpers.uuids_by_name(berth.db)[rows[1]['hypervisor_hostname']]
    inv = client.get('/resource_providers/%s/inventories/VCPU' % uuid).json()
    assert (inv['total'], inv['allocation_ratio']) == (4, rows[1][
        'cpu_allocation_ratio'] or 16.0)


def test_name_clash_with_an_existing_provider_is_reported_not_half_done(
        berth, conf, ctx, client):
    rows = [r for r in nova_cell.make_rows(3)]
    legacy_helpers.insert_legacy_rows(berth.db, rows)
    clash = rows[1]['hypervisor_hostname']
    assert client.post('/resource_providers', json={'name': clash}).status_code == 200
    code, (nodes, _) = online_migrations.run(ctx, conf)
    assert code == online_migrations.FAILED_ROWS
    assert [i for i, _ in nodes.failed] == [2]
    assert 'already exists' in nodes.failed[0][1]
    # the clashing row got no uuid and no inventory anywhere
    names = {p['name'] for p in client.get('/resource_providers').json()[
        'resource_providers']}
    assert names == {r['hypervisor_hostname'] for r in rows}
    uuid_of_2 = legacy_helpers.uuids_by_name(berth.db)[clash]
    assert uuid_of_2 == rows[1]['uuid']   # unchanged, and not a provider


def _conf_file(tmp_path, conf):
    path = tmp_path / 'berth.conf'
    path.write_text('[DEFAULT]\nstate_path = %s\n[compute_migration]\n'
                    'shared_storage_hosts = %s\nshared_storage_aggregate = %s\n'
                    'batch_size = 10\n'
                    % (conf.state_path, nova_cell.SHARED_PATTERN,
                       nova_cell.SHARED_AGGREGATE) + fixtures.database_section(conf))
    return str(path)


def test_cli_batches_progress_summary_and_exit_codes(berth, conf, tmp_path, capsys):
    rows = nova_cell.make_rows(40)
    legacy_helpers.insert_legacy_rows(berth.db, rows)
    cfg = _conf_file(tmp_path, conf)
    argv = ['--config-file', cfg, 'db', 'online_data_migrations']

    assert manage.main(argv + ['--max-count', '20']) == 1
    out = capsys.readouterr().out
    assert 'compute nodes -> providers [' in out and '20/38' in out
    assert '| compute nodes -> providers        | 20          |' in out
    # skipped rows are counted by reason; the values only with --verbose
    assert '1 x vcpus is negative (row 10)' in out
    assert 'row 10 skipped' not in out and 'run again with --verbose' in out
    assert 'More rows remain' in out

    assert manage.main(argv + ['--verbose']) == 2
    out = capsys.readouterr().out
    assert 'row 35 skipped' in out and 'Fix the rows above' in out
    assert 'run again with --verbose' not in out
    assert manage.main(argv + ['--max-count', '0']) == 2
    assert '--max-count must be at least 1' in capsys.readouterr().err


def test_cli_all_done_exits_0(berth, conf, tmp_path, capsys):
    rows = [r for r in nova_cell.make_rows(9) if not r['bad']]
    legacy_helpers.insert_legacy_rows(berth.db, rows)
    argv = ['--config-file', _conf_file(tmp_path, conf), 'db', 'online_data_migrations']
    assert manage.main(argv) == 0
    assert 'All online data migrations are complete.' in capsys.readouterr().out
    assert manage.main(argv) == 0


def test_cli_refuses_an_unusable_configuration(berth, conf, tmp_path, capsys):
    path = tmp_path / 'bad.conf'
    path.write_text('[DEFAULT]\nstate_path = %s\n[compute_migration]\n'
                    'shared_storage_hosts = x*\n' % conf.state_path
                    + fixtures.database_section(conf))
    argv = ['--config-file', str(path), 'db', 'online_data_migrations']
    assert manage.main(argv) == 2
    assert 'shared_storage_aggregate' in capsys.readouterr().err


def test_two_concurrent_runs_migrate_every_row_once(berth, conf, ctx, client):
    nova_cell.set_conf(conf)
    rows = nova_cell.make_rows(150)
    legacy_helpers.insert_legacy_rows(berth.db, rows)
    conf.set_override('batch_size', 7, group='compute_migration')
    barrier = threading.Barrier(2)
    results = []

    def run():
        barrier.wait()
        results.append(online_migrations.run(
            ctx.__class__.from_dict(ctx.to_dict(), db=ctx.db), conf))

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    bad = set(_bad_ids(rows))
    good = [r for r in rows if r['expect']]
    for code, (nodes, _) in results:
        assert code == online_migrations.FAILED_ROWS
        assert {i for i, _ in nodes.failed} == bad
    assert sum(nodes.done for _, (nodes, _) in results) >= len(good)
    uuids = legacy_helpers.uuids_by_name(berth.db)
    assert legacy_helpers.check_over_api(client, rows, uuids) == len(good)
