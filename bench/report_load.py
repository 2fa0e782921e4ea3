"""bench/report.py's words about load: what each table offered, and when its p99 is no tail.

Every table of the report names its offered load (clients, open or closed
loop, read/write mix, requests), read from the run's argv and, when a bench
records it, its result's optional ``load`` object.  A p99 over few requests
is no tail estimate: with the benches' nearest-rank percentile (the sorted
times' element at round(0.99 × (n − 1))) it is the slowest request for
n ≤ 51 and the second slowest up to n = 100; such cells get a mark and the
table a footnote.  The write path's sections end with what their numbers
mean for sizing, computed from the rows.
"""

P99_MARK = '†'


def p99_rank(n):
    """1 for the slowest request, 2 for the second slowest…: which one a p99 of n is."""
    if not n:
        return None
    return n - min(n - 1, int(round(0.99 * (n - 1))))


def p99_cell(value, requests):
    """``value`` with the mark when the p99 of ``requests`` is one of the slowest few."""
    if value is None or value == '':
        return 'not recorded'
    try:
        n = int(requests)
    except (TypeError, ValueError):
        return str(value)
    return '%s %s' % (value, P99_MARK) if n <= 100 else str(value)


def p99_footnote(counts):
    """The footnote for a table whose rows had these request counts ('' if none is small)."""
    small = sorted({int(n) for n in counts if isinstance(n, int) and n <= 100})
    if not small:
        return ''
    ranks = sorted({p99_rank(n) for n in small})
    what = ' or '.join({1: 'the slowest request', 2: 'the second slowest'}.get(r, 'rank %d' % r)
                       for r in ranks)
    return ('%s p99 over ≤ 100 requests (these rows: %s) is %s (nearest rank), '
            'not a tail estimate.' % (P99_MARK, ', '.join(str(n) for n in small), what))


def _flag(argv, name, default=None):
    argv = list(argv or ())
    if name in argv and argv.index(name) + 1 < len(argv):
        return argv[argv.index(name) + 1]
    return default


def _recorded(runs):
    """The ``load`` objects the runs' results carry (new benches record their load)."""
    found = []
    for r in runs:
        res = r.get('result')
        for item in res if isinstance(res, list) else [res]:
            if isinstance(item, dict) and isinstance(item.get('load'), dict):
                found.append(item['load'])
            for row in (item or {}).get('results', []) if isinstance(item, dict) else []:
                if isinstance(row, dict) and isinstance(row.get('load'), dict):
                    found.append(row['load'])
    return found


def _describe(load):
    parts = []
    for key in ('clients', 'workers', 'query_clients', 'claim_clients', 'loop', 'mix',
                'requests', 'rate_per_s'):
        if key in load:
            value = load[key]
            if isinstance(value, dict):
                value = ', '.join('%s %s' % (v, k) for k, v in sorted(value.items()))
            parts.append('%s: %s' % (key.replace('_', ' '), value))
    return '; '.join(parts)


def offered(name, runs):
    """One line naming the offered load of experiment ``name``'s tables."""
    recorded = _recorded(runs)
    argvs = [r.get('argv') or [] for r in runs] or [[]]
    text = OFFERED.get(name, lambda a: 'one client, closed loop')(argvs)
    line = '**Offered load**: %s.' % text
    if recorded:
        line += '  Recorded by the runs: %s.' % ' / '.join(
            sorted({_describe(load) for load in recorded}))
    return line


def _each(argvs, name, default):
    """The values of one flag over the runs, as words ('1, 5 or 10')."""
    values = []
    for argv in argvs:
        value = _flag(argv, name, default)
        if value not in values:
            values.append(value)
    return ' or '.join(str(v) for v in values)


def _claims(argvs):
    claims = _each(argvs, '--claims', '?')
    warm = min(50, int(claims)) if claims.isdigit() else 50
    return ('%s closed-loop clients (each sends its next claim when its last one was '
            'answered; the workers column when it varies), write only (PUT /allocations, '
            'a new consumer each); %s claims per row after %s warm-up claims' % (
                _each(argvs, '--workers', '10'), claims, warm))


def _nodes(argvs):
    return ('%s closed-loop clients, each a POST /v1/allocations then GETs until it is '
            'active (one write, then reads); the requests column is each row\'s count '
            '(one per node unless it says more)' % _each(argvs, '--clients', '16'))


OFFERED = {
    'candidates': lambda argvs: (
        'first table: one client, closed loop, read only, %s requests per row (after 3 '
        'untimed), *cold* rows with one untimed write before each; second table: %s '
        'closed-loop clients for %s s per row, read only' % (
            _each(argvs, '--repeat', '?'), _each(argvs, '--clients', '10'),
            _each(argvs, '--seconds', '?'))),
    'region': lambda argvs: ('one client, closed loop, read only (distinct queries), the '
                         'requests column is each row\'s count'),
    'mixed': lambda argvs: (
        'one query client and %s claim clients, both closed loop, at the same time '
        '(*mixed* rows; *distinct* rows: the query client alone, before the claims); '
        'the requests column is each row\'s count' % _each(argvs, '--workers', '4')),
    'claims_workers': _claims, 'claims_conductors': _claims, 'claims_rabbit': _claims,
    'node_allocations': _nodes, 'node_allocations_real': _nodes,
}
