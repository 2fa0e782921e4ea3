"""The allocation requests of an answer written straight as JSON bytes.

Thousands of candidates share a handful of providers' uuids and one or two
resource sets: each is encoded once and the requests are joined from the
pieces, without a dict per candidate.
"""

from collections.abc import Iterable, Iterator

import orjson

from objects.candidates import candidate, granular

LIST = 'list'            # 1.10: allocations as a list of {resource_provider, resources}
DICT = 'dict'            # 1.12: allocations keyed by provider uuid
MAPPINGS = 'mappings'    # 1.34: ... plus the mappings of groups to providers


def dumps(value):
    """``orjson.dumps(value)`` in a bytes object of its own size.

    orjson (3.13) hands out the buffer it wrote into, at least 4 KiB
    (malloc_usable_size 4,104 bytes for a uuid's 38): kept, every small
    encoding costs a page.  An unlimited answer keeps one per provider it
    names until it is written: measured in-process at 10,000 computes (16,003
    providers), a no-limit answer raised VmHWM by 75 MB over the loaded
    index with them, 45 MB with copies (and took 8 % less CPU).  At 100,000
    computes they were most of the ~600 MB between the server's RSS and its
    VmHWM (bench/results/region-100k-*-load-peak*.log).
    """
    return bytes(memoryview(orjson.dumps(value)))


def text(value):
    """``dumps(value)`` of a str, without orjson for one that needs no escape.

    A uuid (or a group suffix) is written as it is between quotes: ~4x
    cheaper than orjson's call and the copy out of its 4 KiB buffer, and an
    unlimited answer writes every provider's uuid.  Any other value, and a
    str holding a quote, a backslash, a control character or non-ASCII text,
    goes through orjson; the bytes are the same either way.
    """
    if (type(value) is str and value.isascii() and value.isprintable()
            and '"' not in value and '\\' not in value):
        return b'"%s"' % value.encode()
    return dumps(value)


class _Memo(dict):
    """JSON of hashable values, each encoded once."""

    def __missing__(self, value):
        found = self[value] = text(value)
        return found


class _Resources(dict):
    """JSON objects of ((class name, amount), ...) tuples, each encoded once."""

    def __missing__(self, resources):
        found = self[resources] = dumps(dict(resources))
        return found


def requests_json(candidates, shape):
    """``[allocation request, ...]`` of ``candidates`` (candidate.Candidate) as bytes."""
    return b'[%s]' % b','.join(request_pieces(candidates, shape))


def request_pieces(candidates, shape, consume=False):
    """The JSON of each allocation request of ``candidates``, a list of bytes.

    Each kept candidate's encoding is kept on it (``Candidate.json`` is a
    dict for the candidates search.anchor keeps from one search to the next).
    With ``consume`` (``candidates`` a list) each batch of BATCH candidates
    leaves the list once encoded, so an unlimited answer's candidates and
    their JSON are not all alive at once; the list ends empty.
    """
    if not isinstance(candidates, list):
        candidates = list(candidates)
    out = []
    for pieces in _batches(candidates, shape, consume):
        out += pieces
    return out


def _batches(candidates, shape, consume):
    """The JSON of ``candidates`` (a list), one list of bytes per BATCH of them.

    With ``consume`` each batch leaves the list once encoded (and the list
    ends empty): see request_pieces.
    """
    memos = _Memo(), _Resources()
    for start in range(0, len(candidates), BATCH):
        batch = candidates[start:start + BATCH]
        if consume:
            candidates[start:start + BATCH] = [None] * len(batch)
        yield _batch_pieces(batch, shape, memos)
        del batch
    if consume:
        candidates.clear()


BATCH = 4096


def _batch_pieces(candidates, shape, memos):
    if [cand.json for cand in candidates].count(None) == len(candidates):
        # none keeps its encodings (an unlimited answer's candidates): no bookkeeping
        return _encode(candidates, shape, memos)
    out: list[bytes | None] = []     # None: encoded below
    missing = []
    for cand in candidates:
        kept = cand.json
        found = kept.get(shape) if kept is not None else None
        if found is None:
            missing.append(len(out))
        out.append(found)
    if missing:
        made = _encode([candidates[i] for i in missing], shape, memos)
        for i, encoded in zip(missing, made):
            out[i] = encoded
            kept = candidates[i].json
            if kept is not None:
                kept[shape] = encoded
    return out


def answer_json(requests, summaries):
    """answer() as one bytes object."""
    return bytes(answer(requests, summaries))


def answer(requests, summaries):
    """``{"allocation_requests": [...], "provider_summaries": {...}}``, an Encoded.

    ``requests`` and ``summaries`` are lists of encoded pieces (request_pieces,
    summary.Summaries.json_pieces), never joined into one bytes object: an
    unlimited answer is ~100 MB at 100,000 computes, and joining each list,
    then the two, held it about twice over at the server's peak.  They are
    joined JOIN pieces at a time instead (a comma between each two), so
    that the answer is a few hundred bytes objects rather than two per
    candidate to count, chunk and write; ``requests`` is emptied as it is
    joined (each group's pieces are let go once joined).
    """
    out = [b'{"allocation_requests":[']
    _joined(out, requests, True)
    out.append(b'],"provider_summaries":{')
    _joined(out, summaries, False)
    out.append(b'}}')
    return Encoded(out)


# pieces per bytes object of an answer: ~64 KB of allocation requests
JOIN = 128


class Encoded:
    """JSON bytes kept in pieces: ``len()`` is its size, ``bytes()`` the whole.

    ``chunks(size)`` gives it as bytes objects of about ``size`` bytes each
    (api.placement.response.send_encoded), each made only when asked for.
    """
    __slots__ = ('pieces', 'size')

    def __init__(self, pieces):
        self.pieces = pieces
        self.size = sum(map(len, pieces))

    def __len__(self):
        return self.size

    def __bytes__(self):
        return b''.join(self.pieces)

    def chunks(self, size):
        group: list[bytes] = []
        have = 0
        for piece in self.pieces:
            if len(piece) > size:
                # a joined group (answer()): cut into pieces of ``size``
                if group:
                    yield b''.join(group)
                    group, have = [], 0
                view = memoryview(piece)
                for start in range(0, len(piece), size):
                    yield bytes(view[start:start + size])
                continue
            group.append(piece)
            have += len(piece)
            if have >= size:
                yield b''.join(group)
                group, have = [], 0
        if group:
            yield b''.join(group)


# candidates from which an unlimited answer is streamed (Streamed) rather than
# encoded whole first: ~450 bytes each, so 20 MB and more, over the answer
# cache's whole budget (answer_cache.MAX_BYTES): never kept anyway
STREAM_AFTER = 50000


class Streamed:
    """An answer's JSON made while it is sent: ``chunks(size)``, once.

    What answer(request_pieces(candidates, shape, consume=True), summaries)
    holds, byte for byte, but encoded one batch of candidates at a time as
    the server asks for the next chunk, each batch's candidates let go once
    encoded: the whole body never exists at once (at 1,000,000 computes an
    unlimited answer is ~1 GB of JSON, held beside the candidates it was
    made from).  Its size is not known before the end: the server sends it
    chunked (HTTP/1.1) or until the connection closes.  Never kept by the
    answer cache (``streamed``).
    """
    __slots__ = ('_candidates', '_shape', '_summaries')
    streamed = True

    def __init__(self, candidates: list, shape: str, summaries: list[bytes]) -> None:
        self._candidates: list | None = candidates     # emptied as it is encoded
        self._shape = shape
        self._summaries: list[bytes] | None = summaries

    def __bytes__(self) -> bytes:
        return b''.join(self.chunks(64 * 1024))

    def chunks(self, size: int) -> Iterator[bytes]:
        """The JSON in bytes objects of exactly ``size`` bytes (the last one fewer)."""
        return _cut(self._parts(), size)

    def _parts(self) -> Iterator[bytes]:
        candidates, self._candidates = self._candidates, None
        if candidates is None:
            raise RuntimeError('a streamed answer is sent once')
        yield b'{"allocation_requests":['
        for i, pieces in enumerate(_batches(candidates, self._shape, consume=True)):
            if i:
                yield b','
            yield b','.join(pieces)
        yield b'],"provider_summaries":{'
        summaries, self._summaries = self._summaries or [], None
        for start in range(0, len(summaries), JOIN):
            if start:
                yield b','
            yield b','.join(summaries[start:start + JOIN])
        yield b'}}'


def _cut(parts: Iterable[bytes], size: int) -> Iterator[bytes]:
    """The bytes of ``parts`` (an iterable of bytes) again, ``size`` bytes at a time."""
    held, have = [], 0
    for part in parts:
        held.append(part)
        have += len(part)
        if have < size:
            continue
        data = held[0] if len(held) == 1 else b''.join(held)
        view = memoryview(data)
        whole = len(data) - len(data) % size
        for start in range(0, whole, size):
            yield bytes(view[start:start + size])
        held = [bytes(view[whole:])] if whole < len(data) else []
        have = len(data) - whole
        del view, data
    if have:
        yield b''.join(held)


def _joined(out, pieces, release):
    """Append ``pieces`` to ``out`` with a comma between each two, JOIN of them per bytes.

    With ``release`` each group leaves ``pieces`` once joined (it ends empty).
    """
    for start in range(0, len(pieces), JOIN):
        if start:
            out.append(b',')
        group = pieces[start:start + JOIN]
        if release:
            pieces[start:start + JOIN] = [None] * len(group)
        out.append(b','.join(group))
        del group
    if release:
        pieces.clear()


def _texts(values: list) -> list[bytes]:
    """``[text(v) for v in values]`` (``values`` a list of str), in one orjson call when it can."""
    pieces = orjson.dumps(values)[1:-1].split(b',')
    if len(pieces) == len(values):
        return pieces             # no comma in any value: the separators alone split
    return [text(v) for v in values]


def _prefill(text: dict, candidates: list) -> None:
    """Encode the uuids of ``candidates``' providers into ``text`` (a _Memo) at once."""
    new = list({p.uuid for cand in candidates for p in cand.providers}.difference(text))
    if new:
        text.update(zip(new, _texts(new)))


def _encode(candidates, shape, memos):
    """The JSON of each of ``candidates`` (a list of bytes); ``memos`` (_Memo, _Resources)."""
    text, res = memos
    _prefill(text, candidates)
    out: list[bytes] = []
    append = out.append
    mappings, listing = shape == MAPPINGS, shape == LIST
    # the resources of the last candidate and their JSON: most candidates of an
    # answer share one tuple (the request's amounts on one provider)
    last, last_json = None, b''
    lone, pair = (candidate.Lone, candidate.Pair) if mappings else (None, None)
    for cand in candidates:
        kind = cand.__class__
        if kind is lone:
            # one provider, the unsuffixed group, by construction: most candidates
            resources = cand.resources
            if resources is not last:
                last, last_json = resources, res[resources]
            u = text[cand.p.uuid]
            append(_LONE % (u, last_json, u))
            continue
        if kind is pair:
            # two, the unsuffixed group (a compute and its sharing storage, a
            # NUMA node and its compute): allocations by id, mappings by uuid
            ua, ub = cand.a.uuid, cand.b.uuid
            ta, tb = text[ua], text[ub]
            append(_TWO % (ta, res[cand.ra], tb, res[cand.rb],
                           *((ta, tb) if ua < ub else (tb, ta))))
            continue
        combo = cand.combo
        if combo is None or listing:
            parts = cand.parts
            if mappings and len(parts) == 1 and len(cand.groups) == 1:
                # one provider, the unsuffixed group: most candidates (inlined)
                ((p, resources),), ((suffix, uuids),) = parts, cand.groups
                if suffix == '' and len(uuids) == 1 and uuids[0] == p.uuid:
                    if resources is not last:
                        last, last_json = resources, res[resources]
                    u = text[p.uuid]
                    append(_LONE % (u, last_json, u))
                    continue
            elif mappings and len(cand.groups) == 1:
                # two or three providers, the unsuffixed group (a NUMA node and
                # its compute, a compute and sharing storage, two NUMA nodes and
                # their compute: two thirds of a region's answer): inlined too
                ((suffix, uuids),) = cand.groups
                if suffix == '' and len(uuids) == len(parts) == 2:
                    (p, first), (q, second) = parts
                    append(_TWO % (text[p.uuid], res[first], text[q.uuid], res[second],
                                   text[uuids[0]], text[uuids[1]]))
                    continue
                if suffix == '' and len(uuids) == len(parts) == 3:
                    (p, first), (q, second), (o, third) = parts
                    append(_THREE % (text[p.uuid], res[first], text[q.uuid], res[second],
                                     text[o.uuid], res[third], text[uuids[0]],
                                     text[uuids[1]], text[uuids[2]]))
                    continue
            append(_one(cand, shape, text, res))
            continue
        # a granular.Combo's: its encoding around each provider's resources
        templates = combo.templates
        if templates is None:
            templates = combo.templates = {}
        template = templates.get(shape)
        if template is None:
            template = templates[shape] = granular.template(combo, shape, text)
        parts = cand.parts
        if len(parts) == 2:
            (_, first), (_, second) = parts
            append(template % (res[first], res[second]))
        else:
            append(template % tuple([res[resources] for _, resources in parts]))
    return out


def _one(cand, shape, text, res):
    """The JSON of one candidate; ``text`` and ``res`` encode uuids/suffixes and resources."""
    if shape == LIST:
        return b'{"allocations":[%s]}' % b','.join(
            b'{"resource_provider":{"uuid":%s},"resources":%s}'
            % (text[p.uuid], res[resources]) for p, resources in cand.parts)
    parts = cand.parts
    if shape == MAPPINGS and len(cand.groups) == 1:
        ((suffix, uuids),) = cand.groups
        if suffix == '' and len(parts) == len(uuids) <= _MOST:
            # the unsuffixed group alone, on one provider or a few (a nested
            # tree's): one formatting, no joins
            found: list[bytes] = []
            for p, resources in parts:
                found += (text[p.uuid], res[resources])
            found += [text[u] for u in uuids]
            return _SEVERAL[len(parts)] % tuple(found)
    if len(parts) == 1:
        ((p, resources),) = parts
        allocations = b'{%s:{"resources":%s}}' % (text[p.uuid], res[resources])
    else:
        allocations = b'{%s}' % b','.join(
            b'%s:{"resources":%s}' % (text[p.uuid], res[resources])
            for p, resources in parts)
    if shape == MAPPINGS:
        return b'{"allocations":%s,"mappings":{%s}}' % (allocations, b','.join(
            b'%s:[%s]' % (text[suffix], b','.join(text[u] for u in uuids))
            for suffix, uuids in cand.groups))
    return b'{"allocations":%s}' % allocations


# a candidate of the unsuffixed group alone on 1.._MOST providers (1.34+): each
# provider's uuid and resources by provider id, then the mapping's uuids sorted
_MOST = 4
_SEVERAL = {n: b'{"allocations":{%s},"mappings":{"":[%s]}}' % (
    b','.join([b'%s:{"resources":%s}'] * n), b','.join([b'%s'] * n))
    for n in range(1, _MOST + 1)}
_LONE = _SEVERAL[1]
_TWO = _SEVERAL[2]
_THREE = _SEVERAL[3]
