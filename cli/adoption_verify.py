"""``berth-manage verify placement``: every read a client makes, asked of two endpoints.

An HTTP client only (no database): it reads the same things from a running
Placement and from berth, normalises what may legitimately differ in form
(the order of lists that are sets, links that name the host), and reports every
difference with its read and its place in the answer.  Generations are part of
the answers, so they are compared too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent import futures
import dataclasses
import json
import time
from typing import Any
import urllib.parse

import requests
import requests.adapters

# the newest microversion both sides are asked at (every field visible)
NEWEST = (1, 39)
# allocation-candidate queries at most, per kind of query
CANDIDATE_SAMPLE = 25
# tries again of a read whose connection failed
RETRIES = 3
# connections kept per endpoint (at least --workers)
MAX_POOL = 64


class VerifyError(Exception):
    """An endpoint that cannot be compared: one line saying what and what to do."""


def _version(text: str) -> tuple[int, int]:
    major, minor = text.split('.')
    return int(major), int(minor)


@dataclasses.dataclass
class Endpoint:
    """One Placement-speaking endpoint (Placement itself, or berth)."""

    label: str
    url: str
    token: str | None
    timeout: float = 60.0
    version: str = '1.0'

    def __post_init__(self) -> None:
        self.url = self.url.rstrip('/')
        self.session = requests.Session()
        # reads are idempotent: a connection the server dropped (a keep-alive
        # closed under load) is retried before the run gives up
        retry = requests.adapters.Retry(total=RETRIES, connect=RETRIES, read=RETRIES,
                                   status=0, backoff_factor=0.2,
                                   allowed_methods=frozenset(['GET']))
        adapter = requests.adapters.HTTPAdapter(max_retries=retry,
                                                pool_maxsize=MAX_POOL)
        self.session.mount('http://', adapter)
        self.session.mount('https://', adapter)

    def _send(self, path: str, version: str | None) -> requests.Response:
        headers = {'Accept': 'application/json'}
        if version:
            headers['OpenStack-API-Version'] = 'placement %s' % version
        if self.token:
            headers['X-Auth-Token'] = self.token
        try:
            return self.session.get(self.url + path, headers=headers, timeout=self.timeout)
        except (requests.exceptions.InvalidURL, requests.exceptions.InvalidSchema,
                requests.exceptions.MissingSchema):
            raise VerifyError('%s endpoint %r is not a URL; pass http(s)://host:port'
                              % (self.label, self.url)) from None
        except requests.exceptions.RequestException as exc:
            raise VerifyError('cannot reach %s at %s (%s); check the URL and that the '
                              'service runs' % (self.label, self.url,
                                                type(exc).__name__)) from None

    def max_version(self) -> tuple[int, int]:
        """The newest microversion the endpoint offers; refuses what is not Placement."""
        resp = self._send('/', None)
        try:
            doc = resp.json()
            return _version(doc['versions'][0]['max_version'])
        except (ValueError, KeyError, IndexError, TypeError):
            raise VerifyError('%s at %s is not a Placement endpoint (GET / answered %d '
                              'without a version document); pass the URL of the '
                              'placement API' % (self.label, self.url,
                                                 resp.status_code)) from None

    def check_credentials(self) -> None:
        resp = self._send('/resource_classes', self.version)
        if resp.status_code == 401:
            raise VerifyError('%s at %s refused the credentials (401); pass a valid token '
                              '(openstack token issue) with --token / --berth-token'
                              % (self.label, self.url))
        if resp.status_code == 403:
            raise VerifyError('%s at %s: the token may not read every provider (403); '
                              'use an admin token' % (self.label, self.url))

    def read(self, path: str) -> tuple[int, Any]:
        resp = self._send(path, self.version)
        if resp.status_code == 401:
            raise VerifyError('%s at %s refused the credentials (401) during the run; '
                              'the token may have expired: issue a new one'
                              % (self.label, self.url))
        try:
            body = resp.json()
        except ValueError:
            body = resp.text
        if resp.status_code >= 400 and isinstance(body, dict):
            # error texts and request ids differ by nature; the codes must not
            body = [e.get('code') for e in body.get('errors', ())]
        return resp.status_code, body


@dataclasses.dataclass
class Difference:
    path: str
    where: str
    placement: Any
    berth: Any

    def line(self) -> str:
        return '%s %s: placement=%s berth=%s' % (
            self.path, self.where or '/', _show(self.placement), _show(self.berth))


_MISSING = '<absent>'


def _show(value: Any) -> str:
    if value is _MISSING:
        return value
    return json.dumps(value, sort_keys=True)


def _canonical(value: Any) -> Any:
    """The answer with links dropped and set-like lists sorted."""
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items() if k != 'links'}
    if isinstance(value, list):
        items = [_canonical(v) for v in value]
        keyed = _keyed(items)
        if isinstance(keyed, dict) and len(keyed) == len(items):
            # providers and named things: keyed by uuid or name the order is
            # gone already, and sorting 100,000 of them by their JSON is slow
            return keyed
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
    return value


def _keyed(items: list) -> Any:
    """A list of providers or named things as a dict, so differences name the item."""
    if items and all(isinstance(i, dict) and ('uuid' in i or 'name' in i) for i in items):
        return {i.get('uuid') or i.get('name'): i for i in items}
    return items


def compare(path: str, placement: Any, berth: Any, where: str = '') -> list[Difference]:
    """Every place where the two canonical answers differ."""
    if placement == berth:
        # the usual case, decided in C; equal answers have no place that differs
        return []
    if isinstance(placement, list) and isinstance(berth, list):
        placement, berth = _keyed(placement), _keyed(berth)
    if isinstance(placement, dict) and isinstance(berth, dict):
        out = []
        for key in sorted(set(placement) | set(berth), key=str):
            out.extend(compare(path, placement.get(key, _MISSING),
                               berth.get(key, _MISSING), '%s/%s' % (where, key)))
        return out
    if placement == berth:
        return []
    return [Difference(path, where, placement, berth)]


def _candidates_canonical(body: Any) -> Any:
    """Allocation candidates as sets: requests compared whole, summaries by provider."""
    if not isinstance(body, dict) or 'allocation_requests' not in body:
        return _canonical(body)
    requests_ = sorted(json.dumps(_canonical(r), sort_keys=True)
                       for r in body['allocation_requests'])
    return {'allocation_requests': {r: True for r in requests_},
            'provider_summaries': _canonical(body.get('provider_summaries'))}


def _q(path: str, **params: Any) -> str:
    return path + '?' + urllib.parse.urlencode(params, doseq=True)


@dataclasses.dataclass
class Report:
    reads: int = 0
    differences: list[Difference] = dataclasses.field(default_factory=list)


class Verifier:
    """Plans the reads from what both sides answer, then compares each one."""

    def __init__(self, placement: Endpoint, berth: Endpoint, workers: int = 8,
                 emit: Callable[[Difference], None] | None = None,
                 microversion: str | None = None,
                 progress: Callable[[str], None] | None = None,
                 sample: int = 0) -> None:
        self.microversion = microversion
        self.sample = sample
        self.progress = progress
        self.placement = placement
        self.berth = berth
        self.workers = max(1, workers)
        self.emit = emit
        self.report = Report()

    def connect(self) -> str:
        """Agree on a microversion and check both sides' credentials; the version."""
        version = min(NEWEST, self.placement.max_version(), self.berth.max_version())
        if self.microversion:
            try:
                asked = _version(self.microversion)
            except ValueError:
                raise VerifyError('--microversion %r is not of the form 1.N'
                                  % self.microversion) from None
            if asked > version or asked < (1, 10):
                raise VerifyError('--microversion %s is outside what both sides offer '
                                  '(1.10 to %d.%d)' % ((self.microversion,) + version))
            version = asked
        text = '%d.%d' % version
        for end in (self.placement, self.berth):
            end.version = text
            end.check_credentials()
        return text

    def _both(self, label: str, paths: Iterable[str],
              canonical: Callable[[Any], Any] = _canonical) -> dict[str, tuple]:
        """Read every path from both sides (in parallel); both sides' answers."""
        paths = list(dict.fromkeys(paths))
        started = time.monotonic()
        found = len(self.report.differences)
        answers: dict[str, tuple] = {}
        # both sides' reads of one path are queued together, so both services
        # work at once (``workers`` reads in flight per side); the answers are
        # compared in the order of the paths, so the output does not depend
        # on which side answered first
        pool = futures.ThreadPoolExecutor(2 * self.workers)
        try:
            pending = [(pool.submit(self.placement.read, p), pool.submit(self.berth.read, p))
                       for p in paths]
            for path, (left, right) in zip(paths, pending):
                (ps, pb), (bs, bb) = left.result(), right.result()
                self.report.reads += 1
                diffs = compare(path, ps, bs, '(status)')
                if ps == bs:
                    diffs = compare(path, canonical(pb), canonical(bb))
                for d in diffs:
                    self.report.differences.append(d)
                    if self.emit:
                        self.emit(d)
                answers[path] = (ps, pb, bs, bb)
        finally:
            # a run that gives up (VerifyError) does not wait for the queued reads
            pool.shutdown(wait=True, cancel_futures=True)
        if self.progress:
            self.progress('%-22s %6d reads in %6.1f s, %d difference(s)' % (
                label, len(paths), time.monotonic() - started,
                len(self.report.differences) - found))
        return answers

    def run(self) -> Report:
        self.connect()
        top = self._both('lists', ['/resource_providers', '/resource_classes', '/traits',
                          '/traits?associated=true', '/traits?associated=false'])
        providers = _union_items(top['/resource_providers'], 'resource_providers')
        uuids = sorted(p['uuid'] for p in providers)
        if 0 < self.sample < len(uuids):
            # evenly spread over the uuids: the same providers on every run
            step = len(uuids) / self.sample
            uuids = [uuids[int(i * step)] for i in range(self.sample)]
        per_provider = []
        for u in uuids:
            base = '/resource_providers/%s' % u
            per_provider += [base, base + '/inventories', base + '/traits',
                             base + '/aggregates', base + '/usages',
                             base + '/allocations']
        got = self._both('providers', per_provider)
        traits, aggregates, consumers, inventories = set(), set(), set(), {}
        for u in uuids:
            base = '/resource_providers/%s' % u
            traits.update(_field(got[base + '/traits'], 'traits', []))
            aggregates.update(_field(got[base + '/aggregates'], 'aggregates', []))
            consumers.update(_field(got[base + '/allocations'], 'allocations', {}))
            inventories[u] = sorted(_field(got[base + '/inventories'], 'inventories', {}))
        chosen = set(uuids)
        roots = sorted({p.get('root_provider_uuid') or p['uuid'] for p in providers
                        if p['uuid'] in chosen})
        filtered = [_q('/resource_providers', in_tree=r) for r in roots]
        filtered += [_q('/resource_providers', member_of=a) for a in sorted(aggregates)]
        filtered += [_q('/resource_providers', member_of='in:' + a) for a in sorted(aggregates)]
        filtered += [_q('/resource_providers', required=t) for t in sorted(traits)]
        filtered += [_q('/resource_providers', required='!' + t) for t in sorted(traits)]
        classes = sorted({rc for rcs in inventories.values() for rc in rcs})
        filtered += [_q('/resource_providers', resources='%s:1' % rc) for rc in classes]
        self._both('provider filters', filtered)
        owners = self._both('consumers', ('/allocations/%s' % c for c in sorted(consumers)))
        typed = _version(self.placement.version) >= (1, 38)
        self._both('usages', _usage_reads(owners.values(), typed))
        self._both('allocation candidates',
                   _candidate_reads(owners.values(), inventories, sorted(traits)),
                   _candidates_canonical)
        return self.report


def _field(answer: tuple, name: str, default: Any) -> Any:
    """``name`` from both sides' bodies, merged, so a thing only one side has is read."""
    out = default.copy()
    for body in (answer[1], answer[3]):
        if isinstance(body, dict):
            value = body.get(name) or default
            if isinstance(out, dict):
                out.update(value)
            else:
                out = out + [v for v in value if v not in out]
    return out


def _union_items(answer: tuple, name: str) -> list[dict]:
    """The items of both sides' lists by uuid, Placement's first (linear: a
    union by whole items compared each with all before was quadratic, hours at
    120,000 providers)."""
    seen: dict[str, dict] = {}
    for body in (answer[1], answer[3]):
        if isinstance(body, dict):
            for item in body.get(name) or []:
                seen.setdefault(item['uuid'], item)
    return list(seen.values())


def _bodies(answers: Iterable[tuple]) -> Iterator[dict]:
    for _, pb, _, bb in answers:
        for body in (pb, bb):
            if isinstance(body, dict):
                yield body


def _usage_reads(owners: Iterable[tuple], typed: bool = True) -> list[str]:
    """``/usages`` per project (whole, and per consumer type when ``typed``) and per
    project and user (whole, and per consumer type that pair holds)."""
    projects: set[str] = set()
    pairs: dict[tuple[str, str], set[str]] = {}
    types = {'all', 'unknown'} if typed else set()
    for body in _bodies(owners):
        project, user, ctype = (body.get('project_id'), body.get('user_id'),
                                body.get('consumer_type'))
        if not project:
            continue
        projects.add(project)
        held = pairs.setdefault((project, user), set()) if user else set()
        if typed and ctype:
            types.add(ctype)
            held.add(ctype)
    reads = []
    for p in sorted(projects):
        reads.append(_q('/usages', project_id=p))
        reads += [_q('/usages', project_id=p, consumer_type=t) for t in sorted(types)]
    for (p, u), held in sorted(pairs.items()):
        reads.append(_q('/usages', project_id=p, user_id=u))
        reads += [_q('/usages', project_id=p, user_id=u, consumer_type=t)
                  for t in sorted(held)]
    return reads


def _candidate_reads(owners: Iterable[tuple], inventories: dict[str, list[str]],
                     traits: list[str]) -> list[str]:
    """A sample of allocation-candidate queries drawn from the data itself.

    Each combination of classes a consumer holds (with its amounts), each
    combination of classes one provider offers (one unit each), and the first
    of those again with each trait required and forbidden.
    """
    combos: list[str] = []
    for body in _bodies(owners):
        totals: dict[str, int] = {}
        for alloc in (body.get('allocations') or {}).values():
            for rc, amount in alloc.get('resources', {}).items():
                totals[rc] = totals.get(rc, 0) + amount
        if totals:
            combos.append(','.join('%s:%d' % kv for kv in sorted(totals.items())))
    for rcs in inventories.values():
        if rcs:
            combos.append(','.join('%s:1' % rc for rc in rcs))
    combos = list(dict.fromkeys(combos))[:CANDIDATE_SAMPLE]
    reads = [_q('/allocation_candidates', resources=c) for c in combos]
    for c in combos[:3]:
        for t in traits[:CANDIDATE_SAMPLE]:
            reads.append(_q('/allocation_candidates', resources=c, required=t))
            reads.append(_q('/allocation_candidates', resources=c, required='!' + t))
    return reads
