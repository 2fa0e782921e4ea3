"""bench/report.py's sizing paragraphs: what the write path's rows mean for a deployment.

Computed from the rows of the claims and node-allocation sections, never
typed in: cores kept busy (rate × CPU per request), the rate one core
carries, CPU per process kind and claim batch sizes when a run recorded
them, and why more conductors granted fewer claims/s on this host when
they did.  Optional keys (``p99_ms``, ``load``, ``cpu_ms_per_claim_<kind>``,
anything naming a batch) are used when present, skipped when not.
"""


def _results(collected, name):
    out: list[dict] = []
    for r in (collected.get(name) or {}).get('runs', []):
        res = r.get('result')
        out.extend(item for item in (res if isinstance(res, list) else [res])
                   if isinstance(item, dict))
    return out


def _cores(rate, cpu_ms):
    if not rate or not cpu_ms:
        return None
    return rate * cpu_ms / 1000.0


def _kinds(res, prefix):
    return {k[len(prefix):]: v for k, v in sorted(res.items())
            if k.startswith(prefix) and isinstance(v, (int, float))}


def _batches(res):
    return {k: v for k, v in sorted(res.items()) if 'batch' in k}


def claims_lines(collected, cpus):
    """The claims sections' paragraph (placed after the conductors table)."""
    rows = sorted((r for r in _results(collected, 'claims_conductors')
                   if r.get('conductors') is not None), key=lambda r: r['conductors'])
    if not rows:
        return []
    lines = ['**What this means for sizing** (computed from the rows above):']
    for r in rows:
        cpu = r.get('server_cpu_ms_per_claim')
        busy = _cores(r.get('claims_per_s'), cpu)
        extra = ''
        kinds = _kinds(r, 'cpu_ms_per_claim_')
        if kinds:
            extra += '; CPU ms per claim by process kind: %s' % ', '.join(
                '%s %s' % kv for kv in kinds.items())
        if _batches(r):
            extra += '; batches: %s' % ', '.join('%s %s' % kv for kv in _batches(r).items())
        lines.append('- %s conductor%s: %s claims/s granted at %s ms of service CPU per '
                     'claim = %s of the host\'s %s cores busy (one busy core grants ~%s '
                     'claims/s); p50 %s ms; load average %s%s.' % (
                         r['conductors'], '' if r['conductors'] == 1 else 's',
                         r.get('claims_per_s'), cpu, _fmt(busy), cpus,
                         _fmt(1000.0 / cpu if cpu else None, 0), r.get('p50_ms'),
                         r.get('load_average_1m', '?'), extra))
    first, last = rows[0], rows[-1]
    if len(rows) > 1 and (last.get('claims_per_s') or 0) < (first.get('claims_per_s') or 0):
        lines += ['', why_fewer(first, last, cpus)]
    elif len(rows) > 1:
        lines += ['', 'In this run %s conductors did not grant fewer claims/s than %s (%s '
                  'against %s; %s against %s cores busy): an earlier drop with more '
                  'conductors is not reproduced by these rows, so it is not explained '
                  'from them.' % (last['conductors'], first['conductors'],
                                  last.get('claims_per_s'), first.get('claims_per_s'),
                                  _fmt(_cores(last.get('claims_per_s'),
                                              last.get('server_cpu_ms_per_claim'))),
                                  _fmt(_cores(first.get('claims_per_s'),
                                              first.get('server_cpu_ms_per_claim'))))]
    if not any(_batches(r) for r in rows):
        lines += ['', 'Claim batch sizes are not in these runs\' results (bench.claims does '
                  'not record them yet); when a run records keys naming a batch they are '
                  'listed above.']
    return lines + ['']


def why_fewer(first, last, cpus):
    """Why ``last`` (more conductors) granted fewer claims/s than ``first``: the numbers."""
    c1, c2 = first.get('server_cpu_ms_per_claim'), last.get('server_cpu_ms_per_claim')
    b1 = _cores(first.get('claims_per_s'), c1)
    b2 = _cores(last.get('claims_per_s'), c2)
    head = ('**Why %s conductors granted fewer claims/s than %s here** (%s against %s): ' % (
        last['conductors'], first['conductors'], last.get('claims_per_s'),
        first.get('claims_per_s')))
    if not (c1 and c2 and b1 and b2):
        return head + 'these runs did not record the CPU per claim, so this is not explained.'
    if c2 > c1 * 1.1:
        return head + ('each claim cost more service CPU (%s against %s ms: more '
                       'processes or threads waking, polling and passing messages per '
                       'claim) on a host whose %s cores were already shared, so the same '
                       'CPU bought fewer claims.' % (c2, c1, cpus))
    return head + (
        'not more work per claim — the service\'s CPU per claim was %s against %s ms — but '
        'less of it done per second: the service kept %s cores busy instead of %s, and a '
        'claim\'s p50 rose from %s to %s ms.  The claims waited instead of running.  In '
        'this embedded deployment the conductors are threads of the one `berth serve` '
        'process (one interpreter lock) writing one SQLite file (one writer at a time); '
        'with the load average at %s on %s cores the service also waited for a core.  '
        'More conductors add queues that take turns for the same lock and the same '
        'cores, each writing its own batches (how large is not in these results).' % (
            c2, c1, _fmt(b2), _fmt(b1), first.get('p50_ms'), last.get('p50_ms'),
            last.get('load_average_1m', '?'), cpus))


def rabbit_lines(collected, cpus):
    """RabbitMQ + PostgreSQL claims: what one claim costs over every process."""
    rows = [r for r in _results(collected, 'claims_rabbit') if r.get('total_cpu_ms_per_claim')]
    if not rows:
        return []
    total = sorted(r['total_cpu_ms_per_claim'] for r in rows)
    best = max(r.get('claims_per_s') or 0 for r in rows)
    spread = str(total[0]) if total[0] == total[-1] else '%s–%s' % (total[0], total[-1])
    return ['**What this means for sizing**: a claim costs %s ms of CPU over every '
            'process (API, conductors, RabbitMQ, PostgreSQL, etcd, the client), so %s cores '
            'cap such a deployment at ~%s claims/s if nothing else runs; these runs granted '
            'up to %s.  Plan a core per ~%s claims/s at peak, spread over the kinds in the '
            'proportions of the table.' % (
                spread, cpus, _fmt(cpus * 1000.0 / total[0], 0), best,
                _fmt(1000.0 / total[-1], 0)), '']


def nodes_lines(collected, name, cpus):
    """Node allocations: the rate per conductor count and, when recorded, CPU per request."""
    rows = [row for res in _results(collected, name) for row in res.get('scenarios', [])
            if row.get('requests') == row.get('nodes')]
    if not rows:
        return []
    rates = ', '.join('%s conductor%s %s/s' % (r.get('conductors'),
                                               '' if r.get('conductors') == 1 else 's',
                                               r.get('allocations_per_s')) for r in rows)
    text = ('**What this means for sizing**: %s.  ' % rates)
    cpu = [r['cpu_ms_per_request'] for r in rows if isinstance(r.get('cpu_ms_per_request'),
                                                                dict)]
    if cpu:
        totals = [sum(v for v in c.values() if isinstance(v, (int, float))) for c in cpu]
        text += ('CPU per allocation over every process: %s ms (%s; by conductors: %s), so '
                 '%s cores carry at most ~%s allocations/s.  ' % (
                     _fmt(min(totals)), ', '.join('%s %s' % kv for kv in cpu[0].items()),
                     ', '.join('%s: %s ms' % (r.get('conductors'), _fmt(t))
                               for r, t in zip(rows, totals)),
                     cpus, _fmt(cpus * 1000.0 / min(totals), 0)))
        if len(cpu) > 1 and totals[-1] > totals[0] * 1.1:
            text += grown(rows[0], rows[-1], cpu[0], cpu[-1], totals[0], totals[-1], cpus)
    top = max(rows, key=lambda r: r.get('allocations_per_s') or 0)
    text += ('The most allocations/s came with %s conductor%s: on this host of %s cores '
             'more conductors brought no more rate, so size conductors for availability '
             '(or for hosts with spare cores), not for rate.' % (
                 top.get('conductors'), '' if top.get('conductors') == 1 else 's', cpus))
    return [text, '']


def grown(first, last, cpu1, cpu2, total1, total2, cpus):
    """Why the rate fell with more conductors: the CPU per allocation that grew, by kind."""
    growth = sorted(((cpu2.get(k, 0) - v, k) for k, v in cpu1.items()
                     if isinstance(v, (int, float))), reverse=True)
    kinds = ', '.join('%s %s → %s ms' % (k, cpu1[k], cpu2.get(k)) for d, k in growth[:3] if d > 0)
    return ('Why fewer with more conductors, measured: the same allocations cost more CPU '
            'each, %s ms with %s conductor%s against %s ms with %s (%s), so the %s cores\' '
            'ceiling falls from ~%s to ~%s allocations/s; the rates fell with it (%s → %s).  ' % (
                _fmt(total2), last.get('conductors'),
                '' if last.get('conductors') == 1 else 's', _fmt(total1),
                first.get('conductors'), kinds or 'no single kind', cpus,
                _fmt(cpus * 1000.0 / total1, 0), _fmt(cpus * 1000.0 / total2, 0),
                first.get('allocations_per_s'), last.get('allocations_per_s')))


def _fmt(value, digits=2):
    if value is None:
        return '?'
    return ('%.' + str(digits) + 'f') % value


def sizing(name, collected, cpus=2):
    """The paragraph lines that end section ``name`` ([] for sections without one)."""
    if name == 'claims_conductors':
        return claims_lines(collected, cpus)
    if name == 'claims_rabbit':
        return rabbit_lines(collected, cpus)
    if name in ('node_allocations', 'node_allocations_real'):
        return nodes_lines(collected, name, cpus)
    return []
