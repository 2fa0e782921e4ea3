"""Online migration 2: allocations without a consumer record get one."""

import uuid as uuidlib

import sqlalchemy as sa

from db import models
from objects.legacy import incomplete_consumer, online_migrations

NIL = '00000000-0000-0000-0000-000000000000'


def _provider_with_vcpus(client):
    rp = client.post('/resource_providers', json={'name': 'cn1'}).json()
    resp = client.put('/resource_providers/%s/inventories' % rp['uuid'], json={
        'resource_provider_generation': rp['generation'],
        'inventories': {'VCPU': {'total': 64}}})
    assert resp.status_code == 200, resp.text
    return rp['uuid']


def _legacy_allocations(db, rp_uuid, consumers):
    """Allocation rows as written before consumer records existed."""
    with db.engine.begin() as conn:
        rp_id = conn.execute(sa.text('SELECT id FROM resource_providers WHERE uuid = :u'),
                             {'u': rp_uuid}).scalar()
        rc_id = conn.exec_driver_sql("SELECT id FROM resource_classes WHERE name = 'VCPU'"
                                     ).scalar()
        conn.execute(models.Allocation.__table__.insert(), [
            {'resource_provider_id': rp_id, 'resource_class_id': rc_id,
             'consumer_id': c, 'used': 1} for c in consumers])


def test_missing_consumers_are_created_with_the_defaults(berth, conf, ctx, client):
    rp_uuid = _provider_with_vcpus(client)
    complete = str(uuidlib.uuid4())
    assert client.put('/allocations/%s' % complete, json={
        'allocations': {rp_uuid: {'resources': {'VCPU': 2}}},
        'project_id': 'p1', 'user_id': 'u1', 'consumer_generation': None,
        'consumer_type': 'INSTANCE'},
    ).status_code == 204
    legacy = sorted(str(uuidlib.uuid4()) for _ in range(7))
    _legacy_allocations(berth.db, rp_uuid, legacy)
    assert incomplete_consumer.count_pending(ctx, conf) == 7

    conf.set_override('batch_size', 3, group='compute_migration')
    code, (_, consumers) = online_migrations.run(ctx, conf, max_count=4)
    assert code == online_migrations.MORE
    assert (consumers.found, consumers.done) == (4, 4)
    code, (_, consumers) = online_migrations.run(ctx, conf)
    assert code == online_migrations.DONE
    assert (consumers.pending, consumers.found, consumers.done) == (3, 3, 3)
    assert incomplete_consumer.count_pending(ctx, conf) == 0

    for uuid in legacy:
        body = client.get('/allocations/%s' % uuid).json()
        assert (body['project_id'], body['user_id']) == (NIL, NIL)
        assert body['allocations'][rp_uuid]['resources'] == {'VCPU': 1}
        assert body['consumer_generation'] == 1
    body = client.get('/allocations/%s' % complete).json()
    assert (body['project_id'], body['user_id']) == ('p1', 'u1')

    # and the next run has nothing to do
    code, (_, consumers) = online_migrations.run(ctx, conf)
    assert (code, consumers.found) == (online_migrations.DONE, 0)


def test_configured_project_and_user_are_used(berth, conf, ctx, client):
    rp_uuid = _provider_with_vcpus(client)
    conf.set_override('incomplete_consumer_project_id', 'legacy-project', group='placement')
    conf.set_override('incomplete_consumer_user_id', 'legacy-user', group='placement')
    consumer = str(uuidlib.uuid4())
    _legacy_allocations(berth.db, rp_uuid, [consumer])
    found, done, failed, marker = incomplete_consumer.migrate_batch(ctx, conf, 10)
    assert (found, done, failed, marker) == (1, 1, [], consumer)
    body = client.get('/allocations/%s' % consumer).json()
    assert (body['project_id'], body['user_id']) == ('legacy-project', 'legacy-user')
    usages = client.get('/usages?project_id=legacy-project', version='1.9').json()['usages']
    assert usages == {'VCPU': 1}
