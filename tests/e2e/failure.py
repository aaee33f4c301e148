"""Why a buyer stopped, in one line (test code): the leaves of an exception group (anyio wraps
whatever fails inside the MCP and A2A clients' task groups in one), each with the innermost
frames it was raised through and, for an HTTP status error, the status and the start of the
body that carried it."""

from __future__ import annotations

import os
import traceback

BODY_CHARS = 300
FRAMES = 3


def describe(error: BaseException) -> str:
    """`Type: message at file:line function < file:line function ...` (innermost first), one
    per leaf, joined by ` | `."""
    leaves = getattr(error, "exceptions", None)
    if isinstance(error, BaseExceptionGroup) and leaves:
        return " | ".join(describe(leaf) for leaf in leaves)
    text = f"{type(error).__name__}: {error}"
    frames = traceback.extract_tb(error.__traceback__)[-FRAMES:]
    if frames:
        where = (f"{os.path.basename(f.filename)}:{f.lineno} {f.name}" for f in reversed(frames))
        text += " at " + " < ".join(where)
    response = getattr(error, "response", None)
    if response is not None and hasattr(response, "status_code"):
        text += f" (HTTP {response.status_code}: {_body_start(response)})"
    return text


def _body_start(response) -> str:
    """The first characters of a response's body, or why they cannot be read (a stream)."""
    try:
        return repr(response.text[:BODY_CHARS])
    except Exception as e:  # noqa: BLE001 (httpx's ResponseNotRead for a streamed response)
        return f"body not read: {type(e).__name__}"
