"""The life of an answer in this tab, as one state machine.

Everything that decides whether an answer is under way, may be stopped, is due
for a checkpoint, or how it ended lives here, in the TRANSITIONS table (after
h11's ``_state.py``); an event the table does not allow raises at once. The
shell drives it and does the I/O; nothing here touches the DOM, storage or the
worker, and time comes from an injected clock::

    booting ──ready──▶ idle ──ask──▶ asking ──stream──▶ streaming ──stop──▶ stopping
      │ask              ▲  ▲           │results               │end               │end
      ▼                 │  │stored     ▼                      ▼                  ▼
    waiting ──ready─────┘  └──────── settled ◀──────────────┴──────────────────┘
      │broken (from booting too)
      ▼
    unavailable: the worker could not start; nothing can be answered in this page

The worker's start itself is watched by ``StartWatch`` (below): a start that shows no
sign of progress for a while is ended and made again without the warm-start copies,
and only a second such start makes the answer ``unavailable``.

A question asked while the worker starts, or while an answer is under way, waits
its turn: ``next_question`` hands it over once nothing is under way::

    >>> answer = Lifecycle(clock=lambda: 0.0)
    >>> answer.ask("how do I retry?")   # the worker is not up yet: it waits
    False
    >>> answer.ready(); answer.next_question()
    'how do I retry?'
    >>> answer.state
    'asking'
    >>> answer.started(streaming=True, in_flight='{"question": "how do I retry?"}')
    False
    >>> answer.stop(), answer.stop()     # the first aborts the request; the second: nothing
    (True, False)
    >>> answer.end(failed=True)          # the abort ends the stream: the answer is "stopped"
    'stopped'
    >>> answer.stored(); answer.state
    'idle'

Both runtimes can import this module (the shell runs it in MicroPython), so it
keeps to the Python MicroPython has: no dataclasses, no ``typing`` at run time.
"""

import json

from docs_panel.portable.errors import LifecycleError
from docs_panel.portable.session_fields import IN_FLIGHT, LEFT, OPEN

try:  # noqa: SIM105 (MicroPython has no contextlib)
    from collections.abc import Callable
except ImportError:  # MicroPython: annotations are never evaluated there
    pass

BOOTING = "booting"  # the worker is starting; nothing asked
WAITING = "waiting"  # the worker is starting; questions wait for it
IDLE = "idle"  # ready, nothing under way
ASKING = "asking"  # the worker searches and plans the answer
STREAMING = "streaming"  # the model's answer arrives
STOPPING = "stopping"  # stop asked for; waiting for the stream to end
SETTLED = "settled"  # the answer is drawn; it is being stored
UNAVAILABLE = "unavailable"  # the worker could not start: a reload may bring it

ASK = "ask"
READY = "ready"
BROKEN = "broken"  # the worker's start failed (a file it needs, its config, the index)
DISCARD = "discard"  # New chat while questions wait: they are dropped
STREAM = "stream"  # the worker started streaming the model's answer
RESULTS = "results"  # the worker answered at once (search results)
FAILED = "failed"  # the worker could not answer at all (the shell says so)
UPDATE = "update"  # a pull brought news
STOP = "stop"
END_DONE = "end_done"  # the stream ended with the model's last token
END_ERROR = "end_error"  # the stream ended by an error (an abort included)
STORED = "stored"

TRANSITIONS = {
    (BOOTING, ASK): WAITING,
    (BOOTING, READY): IDLE,
    (BOOTING, DISCARD): BOOTING,
    (BOOTING, STOP): BOOTING,
    (WAITING, ASK): WAITING,
    (WAITING, READY): IDLE,
    (WAITING, DISCARD): BOOTING,
    (WAITING, STOP): WAITING,
    (BOOTING, BROKEN): UNAVAILABLE,
    (WAITING, BROKEN): UNAVAILABLE,
    (UNAVAILABLE, ASK): UNAVAILABLE,
    (UNAVAILABLE, DISCARD): UNAVAILABLE,
    (UNAVAILABLE, STOP): UNAVAILABLE,
    (IDLE, ASK): ASKING,
    (IDLE, DISCARD): IDLE,
    (IDLE, STOP): IDLE,
    (ASKING, ASK): ASKING,  # asked while an answer is made: it waits its turn
    (ASKING, STREAM): STREAMING,
    (ASKING, RESULTS): SETTLED,
    (ASKING, FAILED): SETTLED,
    (ASKING, STOP): STOPPING,
    (ASKING, DISCARD): ASKING,
    (STREAMING, ASK): STREAMING,
    (STREAMING, UPDATE): STREAMING,
    (STREAMING, STOP): STOPPING,
    (STREAMING, END_DONE): SETTLED,
    (STREAMING, END_ERROR): SETTLED,
    (STREAMING, DISCARD): STREAMING,
    (STOPPING, ASK): STOPPING,
    (STOPPING, STREAM): STOPPING,  # stopped before the stream began: it stops at once
    (STOPPING, RESULTS): SETTLED,
    (STOPPING, FAILED): SETTLED,
    (STOPPING, UPDATE): STOPPING,
    (STOPPING, STOP): STOPPING,  # Stop twice
    (STOPPING, END_DONE): SETTLED,
    (STOPPING, END_ERROR): SETTLED,
    (STOPPING, DISCARD): STOPPING,
    (SETTLED, ASK): SETTLED,
    (SETTLED, STOP): SETTLED,  # Stop after the last token: nothing to stop
    (SETTLED, STORED): IDLE,
    (SETTLED, DISCARD): SETTLED,
}
"""(state, event) -> next state. Everything that moves the answer's state is here."""

OUTCOMES = {
    (STREAMING, END_DONE): "done",
    (STREAMING, END_ERROR): "failed",  # the reader gets the matching sections instead
    (STOPPING, END_DONE): "done",  # Stop came after the last token: the answer is whole
    (STOPPING, END_ERROR): "stopped",  # the abort (or anything else) after Stop
}
"""How a stream's end, in the state it finds, names the turn's status."""

UNDER_WAY = (ASKING, STREAMING, STOPPING, SETTLED)
"""States in which an answer is being made: a question asked now waits its turn."""

CHECKPOINT_S = 2.0
"""How often a streaming answer is stored as a stopped turn, so a tab that is
killed mid-answer keeps what reached it."""


class Lifecycle:
    """This tab's answer: its state, the questions waiting for the worker, and
    what a page that leaves mid-answer must keep."""

    def __init__(self, clock: "Callable[[], float]") -> None:
        self.state = BOOTING
        self._clock = clock
        self._waiting: list[object] = []
        self._in_flight: str | None = None  # the turn record, while the model answers
        self._parts: list[str] = []  # the answer's text so far
        self._checkpointed_at = 0.0
        self._unsaved = False  # text arrived since the last checkpoint

    def handle(self, event: str) -> str:
        """Move on ``event``; an event this state does not allow is a bug."""
        after = TRANSITIONS.get((self.state, event))
        if after is None:
            raise LifecycleError("an answer that is " + self.state + " cannot take " + event)
        self.state = after
        return after

    @property
    def under_way(self) -> bool:
        return self.state in UNDER_WAY

    def ask(self, question: object) -> bool:
        """True: answer ``question`` now; False: it waits its turn (see ``next_question``),
        or, once ``unavailable``, it never will."""
        before = self.state
        self.handle(ASK)
        if before == IDLE:
            return True
        if before != UNAVAILABLE:
            self._waiting.append(question)
        return False

    def ready(self) -> None:
        """The worker is up; ``next_question`` has what was asked meanwhile."""
        self.handle(READY)

    def broken(self) -> list[object]:
        """The worker could not start: the questions that waited for it, none of which
        will be answered (the shell says so under each)."""
        self.handle(BROKEN)
        waited, self._waiting = self._waiting, []
        return waited

    def next_question(self) -> object | None:
        """The question that waited longest, to ask now that nothing is under way."""
        if self.state != IDLE or not self._waiting:
            return None
        self.handle(ASK)
        return self._waiting.pop(0)

    def discard(self) -> list[object]:
        """New chat, or another conversation opened or deleted: waiting questions go;
        the ones dropped."""
        self.handle(DISCARD)
        dropped, self._waiting = self._waiting, []
        return dropped

    def started(self, streaming: bool, in_flight: str | None = None) -> bool:
        """The worker's reply to the question; True: stop the stream right away."""
        if not streaming:
            self.handle(RESULTS)
            return False
        self.handle(STREAM)
        self._in_flight, self._parts = in_flight, []
        self._checkpointed_at, self._unsaved = self._clock(), False
        return self.state == STOPPING

    def failed(self) -> None:
        self.handle(FAILED)

    def update(self, text: str) -> bool:
        """A pull brought ``text`` (maybe empty); True: store a checkpoint now."""
        self.handle(UPDATE)
        if text:
            self._parts.append(text)
            self._unsaved = True
        now = self._clock()
        if self.state != STREAMING or not self._unsaved:
            return False
        if now - self._checkpointed_at < CHECKPOINT_S:
            return False
        self._checkpointed_at, self._unsaved = now, False
        return True

    def stop(self) -> bool:
        """The reader (or New chat, open, delete) stops the answer; True: abort the request."""
        before = self.state
        self.handle(STOP)
        return before == STREAMING

    def end(self, failed: bool) -> str:
        """The stream ended; the turn's outcome: "done", "stopped" or "failed"."""
        event, before = END_ERROR if failed else END_DONE, self.state
        self.handle(event)
        self._in_flight, self._parts = None, []
        return OUTCOMES[(before, event)]

    def stored(self) -> None:
        self.handle(STORED)

    def leaving(self, session: str, panel_open: bool, keep_in_flight: bool) -> str:
        """The value this tab stores on ``pagehide``: the session marked as left, and
        the answer so far while one streams (the next page keeps it as a stopped turn)."""
        value = json.loads(session)
        value[LEFT] = True
        value[OPEN] = panel_open
        if keep_in_flight and self._in_flight is not None:
            record = json.loads(self._in_flight)
            record["answer"] = "".join(self._parts)
            value[IN_FLIGHT] = record
        return json.dumps(value)


# The worker's start, watched (StartWatch): a start can stop for good without a sign
# (Firefox ESR's, rarely: docs/decisions/0001-watch-every-worker-start.md), and a reader
# would look at a progress bar forever.
WARM_START = "warm_start"  # the first start, from the warm-start copies where kept
COLD_START = "cold_start"  # the first made no progress: ended, started again without them
STARTED = "started"  # the worker is up
STUCK = "stuck"  # the cold start made no progress either: the shell gives up (broken)

SIGN = "sign"  # the worker's loader reported progress (it runs; a mark: a file arriving, a phase)
QUIET = "quiet"  # no sign for longer than the start may be quiet
UP = "up"  # the worker is ready

START_TRANSITIONS = {
    (WARM_START, SIGN): WARM_START,
    (WARM_START, UP): STARTED,
    (WARM_START, QUIET): COLD_START,
    (COLD_START, SIGN): COLD_START,
    (COLD_START, UP): STARTED,
    (COLD_START, QUIET): STUCK,
}
"""(state, event) -> next state of the worker's start."""

FIRST_SIGN_S = 10.0
"""Seconds from asking for a worker to its loader's first sign: creating the worker and
importing the loader, no download or Python yet (under 0.1 s on loopback in every
engine here; WebKit at its slowest under load, a second or two)."""

QUIET_S = 30.0
"""Seconds between two signs at most: the longest step without one is Python's own
start, seconds in WebKit under load (bench/engines.py), so this is generous; a stuck
start is seldom past its first sign."""


class StartWatch:
    """Whether the worker's start is getting anywhere. The shell reports each ``sign``
    and ``up``, and asks ``check`` now and then, which says what to do::

        >>> now = [0.0]
        >>> watch = StartWatch(clock=lambda: now[0])
        >>> now[0] = 9.0; watch.check()      # no sign yet, but not for long
        'warm_start'
        >>> now[0] = 10.0; watch.check()     # no sign at all: end it, start cold
        'cold_start'
        >>> watch.sign(); now[0] = 39.0; watch.check()
        'cold_start'
        >>> now[0] = 40.0; watch.check()     # quiet too long after a sign: give up
        'stuck'
    """

    def __init__(self, clock: "Callable[[], float]") -> None:
        self.state = WARM_START
        self._clock = clock
        self._since = clock()  # the last sign, or this start's beginning
        self._signed = False  # a sign came since this start began

    def handle(self, event: str) -> str:
        after = START_TRANSITIONS.get((self.state, event))
        if after is None:
            raise LifecycleError("a worker start that is " + self.state + " cannot take " + event)
        self.state = after
        return after

    def sign(self) -> None:
        """The loader reported progress (a late one, from an ended start, is harmless)."""
        if self.state in (WARM_START, COLD_START):
            self.handle(SIGN)
            self._since, self._signed = self._clock(), True

    def up(self) -> None:
        self.handle(UP)

    def check(self) -> str:
        """The state, moved on if the start has been quiet too long: ``cold_start`` the
        moment the first start is found stuck (end it, start again without the warm-start
        copies), ``stuck`` when the second is too (the shell says it cannot start)."""
        if self.state in (WARM_START, COLD_START):
            limit = QUIET_S if self._signed else FIRST_SIGN_S
            if self._clock() - self._since >= limit:
                self.handle(QUIET)
                self._since, self._signed = self._clock(), False
        return self.state
