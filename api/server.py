"""A threaded HTTP server for the WSGI apps (the embedded server and berth-api).

cheroot, tuned (doc/source/deployment.md says why): production deployments may
use gunicorn/uwsgi/mod_wsgi with ``api.wsgi`` instead; this one is what
``berth serve`` and ``berth-api`` run.  Its limits are checked before the
application (and authentication) sees anything: the request line and
headers together at most MAX_HEADER_BYTES (414 for a request line over it,
431 for headers), at most MAX_HEADERS header fields (431), Content-Length
with Transfer-Encoding or a malformed Content-Length 400, a malformed
chunked body 400 (read whole, up to the body limit, before the application
runs), and every read of a connection bounded by READ_TIMEOUT seconds.  The
request line and headers must arrive within a whole-request deadline
(``[api] request_header_timeout``) and the body within another
(``[api] request_body_timeout``), however the client spaces its bytes: a
client that trickles one byte every few seconds gets 408 and is closed (in
the application's error format when the application was reading the body)
instead of holding a server thread forever.  A
body over the limit is the application's 413 (in its error format), and
``100 Continue`` is sent only when the application reads the body, so
never before that 413.
"""

import io
import logging
import threading
import time

from cheroot import errors as cheroot_errors
from cheroot import makefile as cheroot_makefile
from cheroot import server as cheroot_server
from cheroot import wsgi

from api import connection_reader, connection_writer, http_framing

LOG = logging.getLogger('berth.' + __name__)

# idle keep-alive connections kept open per server thread
KEEP_ALIVE_PER_THREAD = 16
# connections the kernel queues before a thread accepts them; cheroot's
# default of 5 overflows when many clients connect at once, and they get resets
LISTEN_BACKLOG = 128
# the request line and all headers of one request, in bytes (cheroot: unlimited)
MAX_HEADER_BYTES = 64 * 1024
# header fields of one request
MAX_HEADERS = 100
# seconds a read (or write) of a connection may block
READ_TIMEOUT = 10
# the default body limit, when the caller gives none ([api] max_request_body_size)
MAX_BODY_BYTES = 1024 * 1024
# seconds to receive the request line and headers, and the body, in whole
# (the defaults of [api] request_header_timeout and request_body_timeout)
HEADER_TIMEOUT = 30.0
BODY_TIMEOUT = 60.0
# seconds a stop waits for the requests in flight before it leaves them: a
# stop is asked to end the process within 2 s at any moment, and one
# unlimited candidate answer (or the index load it starts) can run for a
# minute at 1,000,000 computes (cheroot itself would wait for it however long)
STOP_DRAIN = 1.0


# seconds between the serving loop's idle wakes (it checks for a stop)
IDLE_WAKE = 0.05


class _Request(cheroot_server.HTTPRequest):
    """cheroot's request with the framing checks it leaves out."""

    # RFC 9112's refusals: duplicate or folded framing headers, bad names,
    # control characters (api.http_framing); a 400 that closes
    header_reader = http_framing.StrictHeaderReader()
    _expect_continue = False
    _continued = False

    def simple_response(self, status, msg=''):
        if (str(status).startswith('413') and 'headers' in msg
                and not self.sent_headers):
            # cheroot says 413 for headers over max_request_header_size
            status, msg = ('431 Request Header Fields Too Large',
                           'The request headers are larger than %d bytes.'
                           % MAX_HEADER_BYTES)
        return super().simple_response(status, msg)

    def parse_request(self):
        reader = self.conn.rfile
        if isinstance(reader, connection_reader.DeadlineReader):
            reader.start_deadline(self.server.header_timeout)
        try:
            return super().parse_request()
        finally:
            if isinstance(reader, connection_reader.DeadlineReader):
                reader.start_deadline(None)

    def send_headers(self):
        # a body that timed out is not read to its end: close, never reuse
        status = self.status
        if isinstance(status, bytes):
            status = status.decode('ISO-8859-1')
        if status.startswith('408') or getattr(self.conn.rfile, 'timed_out', False):
            self.close_connection = True
        # the status line and headers leave with the body's first bytes
        if isinstance(self.conn.wfile, connection_writer.HeldWriter):
            self.conn.wfile.hold_next()
        return super().send_headers()

    def read_request_headers(self):
        # what cheroot would act on before reading the headers' verdict: check
        # the framing first, so a 100 Continue never precedes a refusal
        if not self._read_headers_only():
            return False
        headers = self.inheaders
        if len(headers) > MAX_HEADERS:
            self._refuse('431 Request Header Fields Too Large',
                         'More than %d header fields.' % MAX_HEADERS)
            return False
        if b'Transfer-Encoding' in headers and b'Content-Length' in headers:
            self._refuse('400 Bad Request',
                         'Content-Length and Transfer-Encoding together.')
            return False
        if b'Transfer-Encoding' in headers and self.request_protocol != b'HTTP/1.1':
            # RFC 9112 6.1: an HTTP/1.0 message with it is faulty framing
            self._refuse('400 Bad Request', 'Transfer-Encoding needs HTTP/1.1.')
            return False
        length = headers.get(b'Content-Length', b'0')
        if not length.strip().isdigit():
            # cheroot's words, then Placement's (its gabbits match them)
            self._refuse('400 Bad Request', 'Malformed Content-Length Header: '
                         'content-length header must be an integer.')
            return False
        # cheroot answers 100 Continue right here; we do when the body is read
        expect = headers.pop(b'Expect', None)
        ok = super().read_request_headers()
        if expect is not None:
            headers[b'Expect'] = expect
        self._expect_continue = (ok and expect == b'100-continue'
                                 and self.response_protocol == 'HTTP/1.1')
        return ok

    def respond(self):
        """cheroot's ``respond`` with ``100 Continue`` sent when the application
        first reads the body (so its 413 for a declared length over the limit
        comes first, in its own error format), and a chunked body read whole,
        up to the limit, before the application runs: a malformed chunk is
        the client's 400 here (cheroot raised it from the application's read:
        a 500); one over the limit reaches the application as limit + 1
        bytes, which it answers 413, and the connection is closed."""
        reader = self.conn.rfile
        if isinstance(reader, connection_reader.DeadlineReader):
            reader.start_deadline(self.server.body_timeout)
        try:
            self._respond()
        finally:
            if isinstance(reader, connection_reader.DeadlineReader):
                reader.start_deadline(None)
            if isinstance(self.conn.wfile, connection_writer.HeldWriter):
                self.conn.wfile.release()     # the headers of a response without body

    def _respond(self):
        limit = self.server.max_body_size
        if self.chunked_read:
            self._continue()
            # cheroot counts the chunk framing too: room for it, still bounded
            chunked = cheroot_server.ChunkedRFile(self.conn.rfile, 2 * limit + 4096)
            try:
                body = chunked.read(limit + 1)
            except cheroot_errors.MaxSizeExceeded:
                body = b' ' * (limit + 1)   # over the limit, whatever it holds
            except OSError as exc:
                # a chunk declared larger than the limit (cheroot's IOError);
                # a socket error or timeout goes on to cheroot
                if exc.args != ('Request Entity Too Large',):
                    raise
                body = b' ' * (limit + 1)
            except ValueError as exc:
                return self._refuse('400 Bad Request', str(exc)[:200])
            if len(body) > limit:
                self.close_connection = True
            self.rfile = io.BytesIO(body)
        else:
            length = int(self.inheaders.get(b'Content-Length', 0))
            self.rfile = cheroot_server.KnownLengthRFile(self.conn.rfile, length)
            if self._expect_continue and length:
                self.rfile = _ContinueOnRead(self.rfile, self._continue)
        self.server.gateway(self).respond()
        if self._expect_continue and not self._continued:
            self.close_connection = True   # the body was never asked for
        self.ready and self.ensure_headers_sent()
        if self.chunked_write:
            self.conn.wfile.write(b'0\r\n\r\n')

    def _continue(self):
        if self._expect_continue and not self._continued:
            self._continued = True
            self.conn.wfile.write(b'%s 100 Continue\r\n\r\n'
                                  % self.server.protocol.encode('ascii'))

    def _read_headers_only(self):
        """Read the headers (cheroot's header reader) and leave them for the real
        ``read_request_headers``, which reads from the buffer we put back."""
        try:
            self.header_reader(self.rfile, self.inheaders)
        except ValueError as ex:
            self._refuse('400 Bad Request', ex.args[0])
            return False
        self.header_reader = _replay(self.inheaders)
        return True

    def _refuse(self, status, msg):
        self.close_connection = True
        self.simple_response(status, msg)


class _ContinueOnRead:
    """A request body that sends ``100 Continue`` before its first read."""

    def __init__(self, rfile, send):
        self._rfile = rfile
        self._send = send

    def read(self, size=None):
        self._send()
        return self._rfile.read(size)

    def readline(self, size=None):
        self._send()
        return self._rfile.readline(size)

    def readlines(self, sizehint=0):
        self._send()
        return self._rfile.readlines(sizehint)

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def close(self):
        self._rfile.close()


def _replay(parsed):
    def reader(_rfile, hdict=None):
        if hdict is not parsed:
            hdict.update(parsed)
        return hdict
    return reader


class _Gateway(wsgi.Gateway_10):
    """cheroot's WSGI environ with SERVER_NAME/SERVER_PORT the address this
    connection reached (its local socket address), not the server's name:
    links are built from them when no public endpoint or proxy says otherwise
    (api.common.links), never from the client's Host header."""

    def get_environ(self):
        env = super().get_environ()
        conn = self.req.conn
        local = getattr(conn, 'local_address', None)
        if local is None:
            try:
                local = conn.socket.getsockname()
            except OSError:
                return env
            conn.local_address = local      # a connection's, asked once
        if isinstance(local, tuple):
            env['SERVER_NAME'], env['SERVER_PORT'] = local[0], str(local[1])
        return env


class _Connection(cheroot_server.HTTPConnection):
    RequestHandlerClass = _Request
    local_address = None        # the socket's own address (_Gateway)

    def __init__(self, server, sock, makefile=cheroot_makefile.MakeFile):
        super().__init__(server, sock, makefile)
        if type(self.rfile) is cheroot_makefile.StreamReader:
            # plain sockets and the builtin TLS adapter (an ssl.SSLSocket);
            # closing cheroot's reader drops its reference to the socket
            self.rfile.close()
            self.rfile = connection_reader.DeadlineReader(sock, self.rbufsize, server.timeout)
        if type(self.wfile) is cheroot_makefile.StreamWriter:
            self.wfile = connection_writer.HeldWriter(sock)

    def communicate(self):
        """Parse a request only once its header block is here (no thread waits for it).

        A connection whose headers are still arriving goes back to cheroot's
        selector (True: "keep it"), which hands it to a thread again when
        more bytes come; a client trickling its headers thus holds no
        thread, and as many such clients as threads do not stop the
        others.  Past ``header_timeout`` since its first byte it gets 408
        and is closed; one that goes quiet is closed by the selector after
        READ_TIMEOUT idle.
        """
        reader = self.rfile
        if not isinstance(reader, connection_reader.DeadlineReader):
            return super().communicate()
        if not reader.gather_headers(MAX_HEADER_BYTES):
            since, limit = reader.header_since, self.server.header_timeout
            if since is None or limit is None or time.monotonic() - since < limit:
                return True
            self._timed_out()
            return False
        reader.header_since = None
        return super().communicate()

    def _timed_out(self):
        try:
            self.socket.sendall(b'HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\n'
                                b'Connection: close\r\n\r\n')
        except OSError:
            pass


class HttpServer:
    """One listening socket serving one WSGI app from a pool of threads."""

    def __init__(self, app, host, port, threads=16, name='berth',
                 max_body_size=MAX_BODY_BYTES, header_timeout=HEADER_TIMEOUT,
                 body_timeout=BODY_TIMEOUT, sock=None):
        # sock: a listening socket opened by a parent process (api_workers.py)
        self._sock = sock
        self._server = wsgi.Server((host, port), app, numthreads=threads,
                                   server_name=name, shutdown_timeout=5,
                                   request_queue_size=LISTEN_BACKLOG,
                                   timeout=READ_TIMEOUT)
        self._server.ConnectionClass = _Connection
        self._server.gateway = _Gateway
        self._server.max_request_header_size = MAX_HEADER_BYTES
        # the application checks a declared length against the limit (its
        # 413 in its own format); _Request reads a chunked body up to it
        self._server.max_body_size = max_body_size
        # whole-request deadlines (408 and close): connection_reader.DeadlineReader
        self._server.header_timeout = header_timeout
        self._server.body_timeout = body_timeout
        # cheroot closes idle keep-alive connections beyond 10 by default: a
        # client with more connections open then gets a reset on its next
        # request, which it may not retry (a POST).  Idle ones cost a socket.
        self._server.keep_alive_conn_limit = KEEP_ALIVE_PER_THREAD * threads
        # how often the serving loop wakes without traffic: a stop waits for
        # the next wake (cheroot's 0.5 s made every stop take half a second)
        self._server.expiration_interval = IDLE_WAKE
        self._thread = None
        self._stopper = None
        self._stop_began = None
        self.name = name

    def start(self):
        """Bind and serve in a background thread; return the bound (host, port)."""
        if self._sock is not None:
            self._server.bind = self._adopt
        self._server.prepare()
        if self._sock is not None:
            # shared with sibling processes: a connection another one took
            # must not block this one's accept (cheroot gives it 1 s)
            self._server.socket.setblocking(False)
        self._thread = threading.Thread(target=self._server.serve,
                                        name='http-%s' % self.name, daemon=True)
        self._thread.start()
        return self._server.bind_addr[:2]

    def _adopt(self, family, type_, proto=0):
        self._server.socket = self._sock
        self._server.bind_addr = self._sock.getsockname()[:2]
        return self._sock

    @property
    def address(self):
        return self._server.bind_addr[:2]

    @property
    def app(self):
        """The WSGI application served (to call it in-process, as a benchmark does)."""
        return self._server.wsgi_app

    def begin_stop(self) -> None:
        """Stop accepting and let the requests in flight finish, in the background."""
        if self._stopper is None:
            self._stop_began = time.monotonic()
            self._stopper = threading.Thread(target=self._server.stop, daemon=True,
                                             name='http-%s-stop' % self.name)
            self._stopper.start()

    def stop(self, drain: float = STOP_DRAIN) -> bool:
        """Stop; wait at most ``drain`` s (from begin_stop) for the requests in flight.

        A request still running then is left to the process's exit (its
        client sees the connection close); True when everything finished.
        """
        self.begin_stop()
        for thread in (self._stopper, self._thread):
            if thread is not None:
                thread.join(max(0.0, self._stop_began + drain - time.monotonic()))
        if self._stopper.is_alive() or (self._thread is not None
                                        and self._thread.is_alive()):
            LOG.warning('%s API: requests still in flight %.1f s after the stop '
                        'began: left to the exit', self.name, drain)
            return False
        return True
