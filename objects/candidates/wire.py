"""The allocation requests of an answer written straight as JSON bytes.

Thousands of candidates share a handful of providers' uuids and one or two
resource sets: each is encoded once and the requests are joined from the
pieces, without a dict per candidate.
"""

import orjson

LIST = 'list'            # 1.10: allocations as a list of {resource_provider, resources}
DICT = 'dict'            # 1.12: allocations keyed by provider uuid
MAPPINGS = 'mappings'    # 1.34: ... plus the mappings of groups to providers


class _Memo(dict):
    """JSON of hashable values, each encoded once."""

    def __missing__(self, value):
        found = self[value] = orjson.dumps(value)
        return found


class _Resources(dict):
    """JSON objects of ((class name, amount), ...) tuples, each encoded once."""

    def __missing__(self, resources):
        found = self[resources] = orjson.dumps(dict(resources))
        return found


def requests_json(candidates, shape):
    """``[allocation request, ...]`` of ``candidates`` (search.Candidate) as bytes.

    Each candidate's encoding is kept on it (``Candidate.json``): candidates
    of lone providers are kept from one search to the next (search.anchor).
    """
    out = []
    missing = []
    for cand in candidates:
        found = cand.json.get(shape)
        if found is None:
            missing.append(cand)
        out.append(found)
    if missing:
        for cand, encoded in zip(missing, _encode(missing, shape)):
            cand.json[shape] = encoded
        out = [cand.json[shape] for cand in candidates]
    return b'[%s]' % b','.join(out)


def _encode(candidates, shape):
    """The JSON of each of ``candidates`` (a list of bytes)."""
    text, res = _Memo(), _Resources()
    out = []
    append = out.append
    if shape == LIST:
        for cand in candidates:
            append(b'{"allocations":[%s]}' % b','.join(
                b'{"resource_provider":{"uuid":%s},"resources":%s}'
                % (text[p.uuid], res[resources]) for p, resources in cand.parts))
        return out
    for cand in candidates:
        parts = cand.parts
        if len(parts) == 1:
            ((p, resources),) = parts
            allocations = b'{%s:{"resources":%s}}' % (text[p.uuid], res[resources])
        else:
            allocations = b'{%s}' % b','.join(
                b'%s:{"resources":%s}' % (text[p.uuid], res[resources])
                for p, resources in parts)
        if shape == MAPPINGS:
            append(b'{"allocations":%s,"mappings":{%s}}' % (allocations, b','.join(
                b'%s:[%s]' % (text[suffix], b','.join(text[u] for u in uuids))
                for suffix, uuids in cand.groups)))
        else:
            append(b'{"allocations":%s}' % allocations)
    return out
