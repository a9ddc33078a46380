"""The web table: a Starlette app, one websocket per browser tab, the game state on the server.

Every table lives here, keyed by a random id the page keeps for its tab; the page only shows what
the server sends and asks for moves, which :class:`play.core.Table` checks against the env.
Opponents come only from :func:`play.opponents.listing` (ids such as ``rule`` or
``checkpoint:skat_ppo.pt``), options only from the game's known option names. A table nobody is
connected to is removed after ``table_timeout`` seconds.

Websocket messages, page -> server (JSON): ``{"type": "new", "game", "options", "opponents": [id per
other seat], "seed"?}``, ``{"type": "join", "table"}``, ``{"type": "move", "action"}``, ``{"type":
"next"}``, ``{"type": "replay", "deal"}``, ``{"type": "analyse", "deal"}``. Server -> page: ``state``
(the view and the new events), ``replay``, ``analysis``, ``error`` (with the legal moves and the
unchanged view).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import secrets
import threading
import time
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from envs.thirtyone.options import CHOICES, ThirtyOneOptions
from play import analysis, opponents, records
from play.core import IllegalMove, Table, agent_seed
from play.skat import ADAPTER as SKAT
from play.skat import OPTIONS as SKAT_OPTIONS
from play.thirtyone import ADAPTER as THIRTYONE
from play.thirtyone import OPTIONS as THIRTYONE_OPTIONS

STATIC = Path(__file__).resolve().parent / "static"
MAX_TABLES = 1000
MAX_MESSAGE = 4096  # bytes: every page message is small


def option_schema() -> dict[str, list[dict[str, Any]]]:
    """The options a page may set, with their values and defaults (from the games' own tables)."""
    skat = [{"name": k, "choices": list(v), "default": v[0]} for k, v in SKAT_OPTIONS.items()]
    defaults = {f.name: f.default for f in dataclasses.fields(ThirtyOneOptions)}
    t31: list[dict[str, Any]] = [{"name": "num_players", "choices": list(range(2, 10)), "default": 4},
                                 {"name": "lives", "choices": list(range(1, 11)), "default": 3},
                                 {"name": "free_ride", "choices": [True, False], "default": True},
                                 {"name": "throw_down", "choices": [False, True], "default": False}]
    for name in THIRTYONE_OPTIONS:
        if name in CHOICES:
            t31.append({"name": name, "choices": list(CHOICES[name]), "default": defaults[name]})
    return {"skat": skat, "thirtyone": t31}


class Tables:
    """The tables of this server, their connections and their clean-up."""

    def __init__(self, table_timeout: float, checkpoint_dir: Path = opponents.CHECKPOINT_DIR) -> None:
        self.timeout = table_timeout
        self.checkpoint_dir = checkpoint_dir
        self.tables: dict[str, Table] = {}
        self.seen: dict[str, float] = {}
        self.connections: dict[str, int] = {}
        self.lock = threading.Lock()

    def create(self, game: Any, options: Any, seat_ids: Any, seed: Any) -> tuple[str, Table]:
        if game not in ("skat", "thirtyone"):
            raise ValueError(f"unknown game {game!r}: skat or thirtyone")
        if not isinstance(options, dict) or not isinstance(seat_ids, list):
            raise ValueError("options must be an object and opponents a list of opponent ids")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**31):
            raise ValueError("seed must be an integer from 0 to 2^31-1, or null")
        with self.lock:
            if len(self.tables) >= MAX_TABLES:
                raise ValueError("this server has too many open tables; try again later")
        adapter = SKAT if game == "skat" else THIRTYONE
        n = 3 if game == "skat" else options.get("num_players", 4)
        if not isinstance(n, int) or not 2 <= n <= 9:
            raise ValueError("num_players must be 2..9")
        if len(seat_ids) != n - 1:
            raise ValueError(f"choose an opponent for each of the {n - 1} other seats")
        chosen = [opponents.find(game, str(i), self.checkpoint_dir) for i in seat_ids]
        if seed is None:
            seed = secrets.randbelow(2**31)
        bots = [opponents.make_agent(o.spec, game, agent_seed(seed, i + 1)) for i, o in enumerate(chosen)]
        short = [opponents.short_name(o.spec) for o in chosen]
        names = ["You"] + [f"{s} {i + 1}" if short.count(s) > 1 else s for i, s in enumerate(short)]
        table = Table(adapter, options, [None, *bots], names, human_seat=0, seed=seed)
        tid = secrets.token_urlsafe(12)
        with self.lock:
            self.tables[tid] = table
            self.seen[tid] = time.monotonic()
            self.connections[tid] = 1  # the connection that asked for it: never reaped before it attaches
        return tid, table

    def get(self, tid: Any) -> Table:
        with self.lock:
            table = self.tables.get(tid) if isinstance(tid, str) else None
            if table is None:
                raise KeyError("no such table (it may have been closed after a long pause): start a new one")
            self.seen[tid] = time.monotonic()
            return table

    def attach(self, tid: str, delta: int) -> None:
        with self.lock:
            if tid in self.connections:
                self.connections[tid] += delta
                self.seen[tid] = time.monotonic()

    def reap(self, now: float | None = None) -> int:
        """Remove the tables nobody is connected to that have been idle past the timeout."""
        now = time.monotonic() if now is None else now
        with self.lock:
            stale = [t for t, seen in self.seen.items()
                     if self.connections.get(t, 0) <= 0 and now - seen > self.timeout]
            for t in stale:
                self.tables.pop(t, None)
                self.seen.pop(t, None)
                self.connections.pop(t, None)
        return len(stale)


def _release_memory() -> None:
    """Collect the removed tables' cycles and hand freed heap pages back to the system (glibc's
    malloc_trim), so a server's memory goes back down after a busy hour instead of staying at its peak."""
    import ctypes
    import ctypes.util
    import gc

    gc.collect()
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to trim
        pass


def _rss_kb() -> int:
    try:
        with open(f"/proc/{os.getpid()}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


def create_app(table_timeout: float = 1800.0, reap_every: float | None = None,
               checkpoint_dir: Path = opponents.CHECKPOINT_DIR) -> Starlette:
    tables = Tables(table_timeout, checkpoint_dir)
    reap_every = reap_every if reap_every is not None else max(0.2, min(60.0, table_timeout / 4))

    async def reaper() -> None:
        while True:
            await asyncio.sleep(reap_every)
            if tables.reap():
                await run_in_threadpool(_release_memory)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):  # noqa: ANN202
        task = asyncio.create_task(reaper())
        try:
            yield
        finally:
            task.cancel()

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def setup(request: Request) -> Response:
        listing = {g: [o.as_dict() for o in await run_in_threadpool(opponents.listing, g, checkpoint_dir)]
                   for g in ("skat", "thirtyone")}
        return JSONResponse({"options": option_schema(), "opponents": listing, "solver": analysis.available()})

    async def stats(request: Request) -> Response:
        return JSONResponse({"tables": len(tables.tables), "rss_kb": _rss_kb()})

    async def download(request: Request) -> Response:
        tid, number, fmt = request.path_params["tid"], request.path_params["n"], request.path_params["fmt"]
        try:
            table = tables.get(tid)
            deal = table.finished_deal(int(number))
            if fmt == "json":
                body = json.dumps(records.deal_json(table, deal), indent=1)
                media = "application/json"
            elif fmt == "iss":
                body, media = records.deal_iss(table, deal) + "\n", "text/plain"
            else:
                raise ValueError("download format must be json or iss")
        except (KeyError, ValueError) as e:
            return PlainTextResponse(str(e).strip("'\""), status_code=404)
        name = f"{table.game}-{table.seed}-deal{deal.number}.{fmt}"
        return Response(body, media_type=media, headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def ws_endpoint(ws: WebSocket) -> None:
        await ws.accept()
        tid: str | None = None
        msg: Any = None
        try:
            while True:
                text = await ws.receive_text()
                if len(text) > MAX_MESSAGE:
                    await ws.send_json({"type": "error", "message": "message too long"})
                    continue
                try:
                    msg = json.loads(text)
                    if not isinstance(msg, dict):
                        raise ValueError("a message is a JSON object")
                    reply, new_tid = await handle(msg, tid)
                except IllegalMove as e:
                    table = tables.get(tid) if tid else None
                    reply = {"type": "error", "message": str(e), "legal": [m.as_dict() for m in e.legal],
                             "view": table.view() if table else None}
                    new_tid = tid
                except (ValueError, KeyError, TypeError) as e:
                    reply, new_tid = {"type": "error", "message": str(e).strip("'\"")}, tid
                if new_tid != tid:
                    if tid:
                        tables.attach(tid, -1)
                    if msg.get("type") != "new":  # a new table counts its connection from the start
                        tables.attach(new_tid, +1)
                    tid = new_tid
                await ws.send_json(reply)
        except WebSocketDisconnect:
            pass
        finally:
            if tid:
                tables.attach(tid, -1)

    async def handle(msg: dict[str, Any], tid: str | None) -> tuple[dict[str, Any], str | None]:
        kind = msg.get("type")
        if kind == "new":
            new_tid, table = await run_in_threadpool(tables.create, msg.get("game"), msg.get("options", {}),
                                                     msg.get("opponents", []), msg.get("seed"))
            events = await run_in_threadpool(table.new_deal)
            return state_message(new_tid, table, events), new_tid
        if kind == "join":
            table = tables.get(msg.get("table"))
            return state_message(msg["table"], table, []), msg["table"]
        if tid is None:
            raise ValueError("no table yet: send 'new' or 'join' first")
        table = tables.get(tid)
        if kind == "move":
            events = await run_in_threadpool(table.play, msg.get("action"))
            return state_message(tid, table, events), tid
        if kind == "next":
            events = await run_in_threadpool(table.new_deal)
            return state_message(tid, table, events), tid
        if kind == "replay":
            deal = table.finished_deal(int(msg.get("deal", 0)))
            return {"type": "replay", "deal": deal.number, "frames": deal.frames, "names": table.names}, tid
        if kind == "analyse":
            if table.game != "skat":
                raise ValueError("the double-dummy question is asked of Skat deals")
            deal = table.finished_deal(int(msg.get("deal", 0)))
            answer = await run_in_threadpool(analysis.could_declarer_have_won, table.options, deal.start, deal.moves)
            return {"type": "analysis", "deal": deal.number, **answer}, tid
        raise ValueError(f"unknown message type {kind!r}")

    def state_message(tid: str, table: Table, events: list[dict[str, Any]]) -> dict[str, Any]:
        return {"type": "state", "table": tid, "view": table.view(), "events": table.public_events(events)}

    app = Starlette(routes=[
        Route("/", index),
        Route("/api/setup", setup),
        Route("/api/stats", stats),
        Route("/api/tables/{tid}/deals/{n:int}.{fmt}", download),
        WebSocketRoute("/ws", ws_endpoint),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ], lifespan=lifespan)
    app.state.tables = tables
    return app


def serve(host: str = "127.0.0.1", port: int = 8000, open_browser: bool = True, table_timeout: float = 1800.0) -> int:
    import uvicorn

    url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}/"
    print(f"The card table is at {url}  (Ctrl-C stops the server)", flush=True)
    if open_browser:
        import webbrowser

        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    uvicorn.run(create_app(table_timeout), host=host, port=port, log_level="warning", ws="websockets-sansio")
    return 0
