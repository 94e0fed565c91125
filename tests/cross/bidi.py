"""A small WebDriver BiDi client: Firefox speaks it natively, so no geckodriver.

Commands go over one WebSocket and wait for their reply; events are not
subscribed to (what the tests watch, recorder.js keeps in the page)::

    firefox = Firefox.launch()
    context = firefox.send("browsingContext.create", type="tab")["context"]
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
import tempfile
import threading
from typing import Any

import websocket

FIREFOX = "/usr/bin/firefox-esr"
LISTENING = re.compile(r"WebDriver BiDi listening on (ws://\S+)")
REPLY_TIMEOUT_S = 300  # a command that waits for a page's load, on a busy machine


class BidiError(Exception):
    """The browser answered a command with an error."""


class Firefox:
    def __init__(self, process: subprocess.Popen[str], profile: str, url: str) -> None:
        self.process = process
        self.profile = profile
        self.socket = websocket.create_connection(
            url + "/session", suppress_origin=True, timeout=REPLY_TIMEOUT_S
        )
        self.ids = itertools.count(1)
        self.version = self.send("session.new", capabilities={})["capabilities"]["browserVersion"]

    @classmethod
    def launch(cls) -> Firefox:
        profile = tempfile.mkdtemp(prefix="docs-panel-firefox-")
        process = subprocess.Popen(
            [
                FIREFOX,
                "--headless",
                "--no-remote",
                "--profile",
                profile,
                "--remote-debugging-port=0",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert process.stdout is not None
        for line in process.stdout:
            if found := LISTENING.search(line):
                # Keep draining Firefox's output, or it blocks on a full pipe.
                threading.Thread(target=process.stdout.read, daemon=True).start()
                return cls(process, profile, found.group(1))
        raise RuntimeError(f"{FIREFOX} exited with {process.wait()} before listening")

    def send(self, method: str, **params: Any) -> Any:
        number = next(self.ids)
        self.socket.send(json.dumps({"id": number, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") != number:
                continue  # an event
            if message["type"] == "error":
                raise BidiError(f"{method}: {message['error']}: {message.get('message')}")
            return message["result"]

    def close(self) -> None:
        try:
            self.send("session.end")
        finally:
            self.socket.close()
            self.process.terminate()
            self.process.wait(30)
            shutil.rmtree(self.profile, ignore_errors=True)
