"""A server install (``docs_panel.server``) under uvicorn on a loopback port, in a thread,
for the browser tests and the load benchmark::

    with running(create_app(settings)) as url:   # "http://127.0.0.1:PORT"
        ...
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

import uvicorn
from starlette.applications import Starlette

START_TIMEOUT_S = 60.0


@contextlib.contextmanager
def running(app: Starlette, host: str = "127.0.0.1") -> Iterator[str]:
    config = uvicorn.Config(app, host=host, port=0, log_config=None, lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + START_TIMEOUT_S
    while not server.started:  # uvicorn's own flag: sockets bound, lifespan done
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the server install did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://{host}:{port}"
    finally:
        app.state.panel.begin_shutdown()
        server.should_exit = True
        thread.join(START_TIMEOUT_S)
