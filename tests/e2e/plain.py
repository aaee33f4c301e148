"""What the MCP drivers (test code) print of an SDK's objects: a pydantic model, or anything,
as plain JSON by its wire names."""

from __future__ import annotations

import json
from typing import Any


def plain(value: Any) -> Any:
    """A pydantic model (or anything) as plain JSON, by its wire names (None stays None)."""
    if value is None:
        return None
    if hasattr(value, "model_dump"):
        return value.model_dump(by_alias=True, exclude_none=True, mode="json")
    return json.loads(json.dumps(value, default=str))
