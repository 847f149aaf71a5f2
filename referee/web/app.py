"""The dashboard's web application (Starlette): the page, its live feeds and its controls.

Routes: ``/`` the page; ``/static/*`` its script and style; ``/events`` server-sent events (the
state on connect and on every change); ``/frame.mjpg`` the annotated camera frames (multipart
MJPEG); ``/api/state`` the state now; ``/api/control`` (POST ``{"action": "pass"|"undo"|
"correct"|"next_hand"|"play"|"reveal", "old": "6-4", "new": "6-5", "tile": "6-4", "end": "left",
"tiles": ["0-0", "3-1"], "seat": 1}``: the
referee's answer, 409 when it refused, 202 when it has not answered within a few seconds, 400
for a bad body, 403 without the token when one is required); ``/stats`` and ``/api/stats`` the
records' statistics (with a store).

Streams end when the browser goes (Starlette's disconnect listener, and ``is_disconnected()``
at every wake-up) and when the hub closes (the server shutting down)."""

from __future__ import annotations

import json
import secrets
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from referee.web.hub import Control, ControlError, Hub, HubClosed
from referee.web.pages import page
from referee.web.stats import StatsSource, stats_json, stats_page

#: Seconds between keep-alive comments on an idle event stream.
KEEPALIVE = 15.0
#: Seconds after a frame with no newer one before it is sent again (so a browser shows it).
REPEAT = 0.3
#: Seconds a control request waits for the referee's answer before answering 202.
ANSWER_WAIT = 5.0
#: The largest control body taken, in bytes.
MAX_BODY = 4096
BOUNDARY = "frame"
NO_CACHE = {"Cache-Control": "no-cache, no-store", "X-Accel-Buffering": "no"}


def authorised(request: Request, token: str | None) -> bool:
    """No token needed, or the right one in the ``X-Referee-Token`` header or ``?token=``."""
    if token is None:
        return True
    given = request.headers.get("x-referee-token") or request.query_params.get("token") or ""
    return secrets.compare_digest(given.encode(), token.encode())


def _moved(read: Callable[[], tuple[int, Any]], seen: int) -> Callable[[], bool]:
    """Whether what ``read`` gives has a version other than ``seen``."""
    return lambda: read()[0] != seen


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def cross_site(request: Request) -> str | None:
    """Why a control request may come from another web site (None when it cannot): only this
    page's script sends ``Content-Type: application/json`` (which a foreign page cannot send
    without the browser asking first), and a browser's ``Origin`` must be this server."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        return "a control must be sent as JSON (Content-Type: application/json)"
    origin = request.headers.get("origin")
    if origin is not None and origin.split("://", 1)[-1] != request.headers.get("host", ""):
        return f"a control from another site ({origin}) is refused"
    return None


def create_app(hub: Hub, *, token: str | None, store: StatsSource | None = None) -> Starlette:
    """The dashboard over ``hub``. ``token``: required for controls (None: anyone may control,
    for a server bound to 127.0.0.1). ``store``: where the records' statistics come from (its
    methods are called from worker threads)."""

    async def index(request: Request) -> Response:
        return HTMLResponse(page("index.html"), headers=NO_CACHE)

    async def state(request: Request) -> Response:
        return JSONResponse(hub.state()[1], headers=NO_CACHE)

    async def events(request: Request) -> Response:
        async def stream() -> AsyncIterator[str]:
            sent = -1
            with hub.stream():
                yield "retry: 2000\n\n"
                while not hub.closed:
                    version, snapshot = hub.state()
                    if version != sent:
                        sent = version
                        yield f"data: {json.dumps(snapshot, ensure_ascii=False)}\n\n"
                    await hub.wait(_moved(hub.state, sent), KEEPALIVE)
                    if await request.is_disconnected():
                        return
                    if not hub.closed and hub.state()[0] == sent:
                        yield ": still here\n\n"
        return StreamingResponse(stream(), media_type="text/event-stream", headers=NO_CACHE)

    async def frames(request: Request) -> Response:
        async def stream() -> AsyncIterator[bytes]:
            sent = -1
            repeated = True
            with hub.stream():
                yield f"--{BOUNDARY}\r\n".encode()
                while not hub.closed:
                    version, jpeg = hub.frame()
                    if jpeg is not None and (version != sent or not repeated):
                        # A browser shows a part only once the next one comes: the last frame
                        # is sent again when no new one follows it soon.
                        repeated = version == sent
                        sent = version
                        yield (f"Content-Type: image/jpeg\r\nContent-Length: {len(jpeg)}\r\n\r\n".encode() + jpeg
                               + f"\r\n--{BOUNDARY}\r\n".encode())
                    await hub.wait(_moved(hub.frame, sent), KEEPALIVE if repeated else REPEAT)
                    if await request.is_disconnected():
                        return
        return StreamingResponse(stream(), media_type=f"multipart/x-mixed-replace; boundary={BOUNDARY}",
                                 headers=NO_CACHE)

    async def control(request: Request) -> Response:
        if not authorised(request, token):
            return _error(403, "controls need the token printed when the referee started (?token=... or "
                          "the X-Referee-Token header)")
        refused = cross_site(request)
        if refused:
            return _error(403, refused)
        body = await request.body()
        if len(body) > MAX_BODY:
            return _error(400, f"the body is {len(body)} bytes: a control is at most {MAX_BODY}")
        try:
            data: Any = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            return _error(400, "the body must be JSON like {\"action\": \"pass\"}")
        try:
            item = hub.submit(Control.from_json(data))
        except ControlError as error:
            return _error(400, str(error))
        except HubClosed as error:
            return _error(503, str(error))
        await hub.wait(lambda: hub.answer_for(item.id) is not None, ANSWER_WAIT)
        answer = hub.answer_for(item.id)
        if answer is None:
            return JSONResponse({"id": item.id, "action": item.action, "queued": True,
                                 "message": "sent; the referee has not answered yet"}, status_code=202)
        return JSONResponse(answer.to_json(), status_code=200 if answer.ok else 409)

    async def stats(request: Request) -> Response:
        html = await run_in_threadpool(stats_page, store, request.query_params.get("match"))
        return HTMLResponse(html, headers=NO_CACHE)

    async def api_stats(request: Request) -> Response:
        if store is None:
            return _error(404, "no records are kept (the referee was started without a records database)")
        return JSONResponse(await run_in_threadpool(stats_json, store), headers=NO_CACHE)

    return Starlette(routes=[
        Route("/", index),
        Route("/api/state", state),
        Route("/events", events),
        Route("/frame.mjpg", frames),
        Route("/api/control", control, methods=["POST"]),
        Route("/stats", stats),
        Route("/api/stats", api_stats),
        Mount("/static", StaticFiles(packages=[("referee.web", "static")]), name="static"),
    ])
