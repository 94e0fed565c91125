"""PyScript's bridge between Python values and JavaScript ones, as the shell calls it."""

from collections.abc import Callable
from typing import Any

def create_proxy(function: Callable[..., Any]) -> Any: ...
def to_js(value: object, **options: Any) -> Any: ...
