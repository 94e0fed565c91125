"""One exception tree for the panel; every message says how to fix the problem.

>>> try:
...     raise ConfigError("gate: expected a number from 0 to 1, got 'high'")
... except WidgetError as err:
...     print(err)
gate: expected a number from 0 to 1, got 'high'
"""


class WidgetError(Exception):
    """Base of every error the panel raises on purpose."""


class ConfigError(WidgetError):
    """A ``window.docsPanel`` value or a ``build.py`` input is unusable."""


class StorageError(WidgetError):
    """Stored data cannot be read or written."""


class StreamError(WidgetError):
    """The answer endpoint failed, stalled, or sent something that is not the protocol.

    ``retry_after_s``: the endpoint is throttling; the reader may ask again then.
    """

    def __init__(self, message: str, retry_after_s: int | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class DocsIndexError(WidgetError):
    """The docs index is missing, malformed or of an unknown format."""


class ProtocolError(WidgetError):
    """The shell and the worker disagree about a message (a bug: see ``protocol.py``)."""


class LifecycleError(WidgetError):
    """An event that the answer's current state does not allow (a bug: see ``lifecycle.py``)."""


class PageApiError(WidgetError):
    """A page's call to ``window.docsPanel.open/close/newChat/ask`` has a bad argument."""


class SignatureError(WidgetError):
    """A signed citation list that is not to be trusted (see ``signing.py``).

    ``reason``: ``malformed``, ``unknown-key``, ``forged`` or ``expired``, for counting.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason


class RequestError(WidgetError):
    """A request to the server install that is refused: ``status`` is the HTTP status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
