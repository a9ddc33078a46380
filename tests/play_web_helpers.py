"""A play web server on a free loopback port, in a thread of the test process, and a websocket client."""

from __future__ import annotations

import json
import threading
import time
from contextlib import contextmanager
from typing import Any

import uvicorn

from play.web.server import create_app


@contextmanager
def running_server(table_timeout: float = 60.0, reap_every: float | None = None):
    app = create_app(table_timeout, reap_every=reap_every)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", ws="websockets-sansio"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the play server did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"127.0.0.1:{port}", app
    finally:
        server.should_exit = True
        thread.join(10)


class Client:
    """A scripted page: the websocket protocol of play.web.server, one JSON message at a time."""

    def __init__(self, host: str) -> None:
        from websockets.sync.client import connect

        self._connection = connect(f"ws://{host}/ws", open_timeout=10)
        self.ws = self._connection.__enter__()

    def ask(self, **msg: Any) -> dict[str, Any]:
        self.ws.send(json.dumps(msg))
        return json.loads(self.ws.recv(timeout=30))

    def close(self) -> None:
        self._connection.__exit__(None, None, None)
