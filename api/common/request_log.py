"""One log line per answered request, like Placement's request log."""


def log_request(logger, req, resp):
    """``<remote> "<METHOD> <path?query>" status: N len: N microversion: X`` at INFO.

    Logged while the request's context is current, so the line carries the
    request id like every other line of the request.
    """
    version = req.environ.get('berth.microversion')
    logger.info('%s "%s %s" status: %s len: %s microversion: %s',
                req.remote_addr, req.method, req.path_qs, resp.status_code,
                resp.content_length, version if version is not None else '-')
