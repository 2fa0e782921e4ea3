"""A forged Host header never reaches a link or a Location header (both APIs).

Against the real built-in server: with neither ``[api] public_endpoint`` nor
proxy-header parsing, links are built from the address the server answered
on, whatever Host the client sends.
"""

import json
import urllib.parse

import requests

from tests.functional import baremetal_helpers as h

FORGED = 'evil.example.com'
BM = {'X-OpenStack-Ironic-API-Version': 'latest', 'Host': FORGED}
PL = {'OpenStack-API-Version': 'placement latest', 'X-Auth-Token': 'admin',
      'Host': FORGED}


def _links(value):
    """Every href (and ``next``) anywhere in a JSON answer."""
    found = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, inner in item.items():
                if key in ('href', 'next') and isinstance(inner, str):
                    found.append(inner)
                else:
                    stack.append(inner)
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _assert_own(urls, base):
    own = urllib.parse.urlsplit(base).netloc
    for url in urls:
        assert FORGED not in url, url
        # Placement's links are relative ('' in the version document)
        if url and not url.startswith('/'):
            assert urllib.parse.urlsplit(url).netloc == own, (url, base)


def test_v1_links_and_locations_ignore_a_forged_host(berth, bm):
    base = berth.baremetal_url
    h.make_node(bm, 'n-1')
    urls = []
    for path in ('/', '/v1', '/v1/nodes/n-1', '/v1/nodes?limit=1&detail=true',
                 '/v1/nodes/detail?limit=1'):
        resp = requests.get(base + path, headers=BM, timeout=30)
        assert resp.status_code == 200, (path, resp.text)
        urls += _links(resp.json())
    assert len(urls) > 5
    resp = requests.post(base + '/v1/nodes', headers=BM, timeout=30,
                         json={'driver': 'fake-hardware', 'name': 'n-2'})
    assert resp.status_code == 201, resp.text
    urls += [resp.headers['Location']] + _links(resp.json())
    resp = requests.post(base + '/v1/allocations', headers=BM, timeout=30,
                         json={'resource_class': 'gold'})
    assert resp.status_code == 201, resp.text
    assert resp.headers['Location'].endswith('/v1/allocations/' + resp.json()['uuid'])
    urls += [resp.headers['Location']] + _links(resp.json())
    resp = requests.put(base + '/v1/nodes/n-2/states/provision', headers=BM,
                        timeout=30, json={'target': 'manage'})
    assert resp.status_code == 202, resp.text
    urls.append(resp.headers['Location'])
    _assert_own(urls, base)


def test_placement_links_and_locations_ignore_a_forged_host(berth):
    base = berth.placement_url
    resp = requests.get(base + '/', headers=PL, timeout=30)
    assert resp.status_code == 200
    assert FORGED not in resp.text
    _assert_own(_links(resp.json()), base)
    resp = requests.post(base + '/resource_providers', headers=PL, timeout=30,
                         json={'name': 'rp-1'})
    assert resp.status_code == 200, resp.text      # 1.20+: 200 with a body
    location = resp.headers['Location']
    assert location.endswith('/resource_providers/' + resp.json()['uuid'])
    urls = [location] + _links(resp.json())
    resp = requests.get(base + '/resource_providers', headers=PL, timeout=30)
    urls += _links(resp.json())
    assert len(urls) > 2
    _assert_own(urls, base)
    assert FORGED not in json.dumps(resp.json())
