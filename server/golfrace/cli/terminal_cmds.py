"""``golfrace watch URL``: a race's boards, live, in the terminal (``golfrace play`` without moves, and
``golfrace play --race URL``, are in ``engine_cmds``). Both open the textual apps of ``golfrace.terminal``."""

from __future__ import annotations

import argparse
from typing import Any

from ..engine.i18n import LOCALES


def register(sub: Any) -> list[str]:
    p = sub.add_parser("watch", help="watch a race live in the terminal")
    p.add_argument("url", help="the race's link, e.g. http://127.0.0.1:8000/r/<race id>")
    p.add_argument("--lang", default="en", choices=LOCALES)
    p.set_defaults(func=cmd_watch)
    return ["watch"]


def cmd_watch(args: argparse.Namespace) -> int:
    from ..terminal.apps import WatchApp
    from ..terminal.links import race_link

    ws_url, race_id = race_link(args.url)
    WatchApp(ws_url, race_id, args.lang).run()
    return 0
