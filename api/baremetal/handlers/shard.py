"""GET /v1/shards (Ironic API 1.82): each shard with its node count.

Rule ``baremetal:shards:get`` (Ironic's default: a system reader).  The
nodes without a shard are counted under ``"None"``, as in Ironic
(objects/baremetal/shard.py).  Query parameters are ignored, as Ironic's
schema allows any; below 1.82 a 404 ``The API version does not allow
shards``.
"""

from api.baremetal import policy, response, router
from api.baremetal import version as api_version
from common.policies.baremetal import endpoints as rules
from objects.baremetal import shard as shard_obj


@router.endpoint(api_version.SHARDS, message='The API version does not allow shards')
def list_shards(req):
    policy.authorize(req, rules.SHARDS_GET)
    return response.send_json({'shards': shard_obj.list_shards(req.context)})
