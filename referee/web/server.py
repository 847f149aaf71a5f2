"""Serving the dashboard from a background thread (uvicorn), so the frame loop keeps the main
thread (and Ctrl-C).

The socket is bound here, before uvicorn starts, so a port in use is one clear error
(:class:`PortInUse`) and port 0 gives a free port, read back from the socket."""

from __future__ import annotations

import errno
import socket
import threading
from typing import Any

import uvicorn

from referee.web.hub import Hub

#: Hosts that only this machine can reach: no token is needed for controls there.
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


class PortInUse(ValueError):
    """The port is taken (or may not be bound): the message says which and what to do."""


def is_local(host: str) -> bool:
    return host in LOCAL_HOSTS


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port``; :class:`PortInUse` naming them when it cannot be."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(64)
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise PortInUse(f"port {port} on {host} is in use; use --port") from None
        if isinstance(error, socket.gaierror) or error.errno == errno.EADDRNOTAVAIL:
            raise PortInUse(f"cannot listen on {host}: not an address of this machine; use --host") from None
        raise PortInUse(f"cannot listen on {host} port {port}: {error.strerror or error}; use --host/--port") from None
    sock.set_inheritable(True)
    return sock


class _Uvicorn(uvicorn.Server):
    """uvicorn's server, telling a waiting thread when it has started (or failed to)."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = threading.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        try:
            await super().startup(sockets=sockets)
        finally:
            self.ready.set()


class Server:
    """The dashboard's web server. :meth:`start` binds and serves in a thread and returns the
    base URL; :meth:`stop` closes the hub (ending every open stream) and the server, within
    ``grace`` seconds or so."""

    def __init__(self, app: Any, hub: Hub, host: str = "127.0.0.1", port: int = 0, *, grace: float = 2.0) -> None:
        self.app = app
        self.hub = hub
        self.host = host
        self.port = port
        self.grace = grace
        self._server: _Uvicorn | None = None
        self._thread: threading.Thread | None = None
        self.error: BaseException | None = None

    def start(self) -> str:
        sock = bind(self.host, self.port)
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(self.app, log_level="warning", timeout_graceful_shutdown=max(1, round(self.grace)),
                                lifespan="off", access_log=False)
        server = _Uvicorn(config)
        self._server = server

        def serve() -> None:
            try:
                server.run(sockets=[sock])
            except BaseException as error:  # SystemExit from a failed start-up too
                self.error = error
            finally:
                server.ready.set()
                sock.close()

        self._thread = threading.Thread(target=serve, name="dashboard", daemon=True)
        self._thread.start()
        server.ready.wait(10)
        if not server.started:
            self.stop()
            raise PortInUse(f"the dashboard could not start on {self.host} port {self.port}: {self.error}")
        return self.url

    @property
    def url(self) -> str:
        host = self.host
        if host in ("0.0.0.0", "::", ""):
            host = socket.gethostname()
        elif ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/"

    def stop(self) -> None:
        """Stop serving: open streams end, then the server; waits a few seconds at most."""
        self.hub.close()
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(self.grace + 3)
            if self._thread.is_alive() and self._server is not None:
                self._server.force_exit = True
                self._thread.join(2)
