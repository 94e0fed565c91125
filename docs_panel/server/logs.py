"""JSON log lines: one object per line, with the request id, never a question's text
unless the operator asked for it (``--log-questions``)."""

from __future__ import annotations

import json
import logging
import sys
from typing import Final

FIELDS: Final = ("request_id", "method", "path", "status", "ms", "reason", "problem", "question")
"""The extra fields a record may carry into its line; any other extra is dropped."""


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in FIELDS:
            if hasattr(record, name):
                line[name] = getattr(record, name)
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def configure(level: int = logging.INFO) -> None:
    """Every logger of the process (ours, uvicorn's) writes JSON lines to stderr."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logging.getLogger(name).handlers[:] = []
        logging.getLogger(name).propagate = True
    logging.getLogger("uvicorn.access").disabled = True  # ours logs each request once
