"""Allocation writes in the conductor's form (PUT/POST /allocations, POST /reshaper)."""


def consumer_request(req, consumer_uuid, entry):
    """The conductor's form of one consumer's write from a 1.12+ style entry.

    ``entry`` holds ``allocations`` ({rp uuid: {'resources': ...}}) and, by
    microversion, project/user, consumer_generation and consumer_type.
    """
    placement = req.conf.placement
    return {
        'uuid': consumer_uuid,
        'allocations': {rp: dict(alloc['resources'])
                        for rp, alloc in entry['allocations'].items()},
        'project_id': entry.get('project_id', placement.incomplete_consumer_project_id),
        'user_id': entry.get('user_id', placement.incomplete_consumer_user_id),
        'consumer_type': entry.get('consumer_type'),
        'check_generation': req.version.matches('1.28'),
        'generation': entry.get('consumer_generation'),
    }
