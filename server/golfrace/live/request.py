"""The client message being handled on a connection (``Request``, in the ``REQUEST`` context variable that
``dispatch.Dispatch`` sets): what the connection is sent meanwhile answers it (``Session.send``)."""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from golfrace.live.session import Session

__all__ = ["REQUEST", "Request"]


@dataclass(slots=True)
class Request:
    """The client message being handled (``dispatch.Dispatch`` sets it in ``REQUEST``): what this
    connection is sent meanwhile answers it and carries its ``rid``."""

    session: Session
    rid: str | None
    answered: bool = False
    active: bool = True


REQUEST: ContextVar[Request | None] = ContextVar("golfrace_request", default=None)
