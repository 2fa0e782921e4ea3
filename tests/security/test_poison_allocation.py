"""A poison allocation (its query fails every time) ends in error, quietly."""

import logging

import sqlalchemy as sa

from conductor.manager import node_allocations
from objects.baremetal import allocation as node_alloc_obj
from objects.baremetal import node_choice
from tests.functional import baremetal_helpers

SECRET = 'PoisonS3cret-pw-2210'


def _poison(monkeypatch):
    """Every candidate query names a column that does not exist, with a secret."""
    fit = node_choice.fit_clauses

    def broken(alloc):
        return fit(alloc) + (sa.literal_column('no_such_column') == sa.bindparam(
            'pw', SECRET),)

    monkeypatch.setattr(node_choice, 'fit_clauses', broken)
    monkeypatch.setattr(node_choice, 'LIMITED', type(node_choice.LIMITED)())


def test_poison_allocation_ends_in_error_after_bounded_tries(bm, ctx, monkeypatch,
                                                             caplog):
    baremetal_helpers.make_node(bm, 'n1')
    _poison(monkeypatch)
    traits = ['CUSTOM_POISON_%02d_%s' % (i, 'X' * 200) for i in range(50)]
    row = node_alloc_obj.create_row(ctx, {'resource_class': 'gold', 'traits': traits,
                                 'conductor_affinity': 'w'})
    caplog.set_level(logging.DEBUG)
    allocator = node_allocations.NodeAllocator('w')
    for _ in range(node_allocations.MAX_FAILURES - 1):
        assert allocator.allocate(ctx, row.id) is None
        assert node_alloc_obj.get_by_id(ctx, row.id).state == 'allocating'
    allocator.allocate(ctx, row.id)
    after = node_alloc_obj.get_by_id(ctx, row.id)
    assert after.state == 'error'
    assert 'no_such_column' in after.last_error and '3 tries' in after.last_error
    assert len(after.last_error) < 400 and SECRET not in after.last_error
    log = '\n'.join(r.getMessage() + (r.exc_text or '') for r in caplog.records)
    assert 'no_such_column' in log
    assert SECRET not in caplog.text and 'CUSTOM_POISON' not in caplog.text
    assert len(caplog.text.encode()) < 10 * 1024, len(caplog.text)
    # a later try (a late sweep) writes nothing more
    allocator.allocate(ctx, row.id)
    assert node_alloc_obj.get_by_id(ctx, row.id).last_error == after.last_error


def test_short_error_cuts_long_texts():
    exc = ValueError('x' * 1000 + '\n[SQL: SELECT secret]')
    text = node_allocations.short_error(exc)
    assert text.startswith('ValueError: xxx') and text.endswith('...')
    assert len(text) < 300 and 'SELECT' not in text
    assert node_allocations.short_error(KeyError()) == 'KeyError'
