"""The explorer's web app (Starlette): the page, its static files, and a JSON API over
`Explorer` (`session.py`). Every answer is the library's; the page only draws and clicks.

    GET  /api/runs                                  the served runs
    GET  /api/position?run=0&moves=2,3              board SVG, legal moves, result
    GET  /api/analyse?run=0&moves=2,3&player=mcts&simulations=64&iteration=15&seed=0
    POST /api/move     {"run", "moves", "action"} or {"run", "moves", "row", "col"}
    POST /api/reply    {"run", "moves", "player"?, "simulations"?}
    GET  /api/games?run=0                           replayable games
    GET  /api/replay?run=0&game=1                   a game's moves

A request the explorer refuses answers 400 with `{"error": "<one line>"}`.
"""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from warmjax.explorer.session import Explorer, ExplorerError

STATIC = Path(__file__).parent / "static"


def _moves(text: str | None) -> list[int]:
    if not text:
        return []
    try:
        return [int(m) for m in text.split(",") if m.strip()]
    except ValueError:
        raise ExplorerError(f"moves must be action ids separated by commas, got {text!r}"
                            ) from None


def _int(value, name: str, default=None):
    if value in (None, ""):
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ExplorerError(f"{name} must be a whole number, got {value!r}") from None


def make_app(explorer: Explorer) -> Starlette:
    def answer(compute):
        async def endpoint(request: Request):
            try:
                body = await request.json() if request.method == "POST" else {}
                # The searches run in a worker thread, one at a time (`Explorer`'s lock).
                return JSONResponse(await run_in_threadpool(compute, request.query_params,
                                                            body))
            except ExplorerError as err:
                return JSONResponse({"error": str(err)}, status_code=400)
            except ValueError as err:  # a malformed body
                return JSONResponse({"error": f"bad request: {err}"}, status_code=400)
        return endpoint

    def runs(q, body):
        return explorer.describe()

    def position(q, body):
        return explorer.position(_int(q.get("run"), "run", 0), _moves(q.get("moves")))

    def analyse(q, body):
        return explorer.analyse(_int(q.get("run"), "run", 0), _moves(q.get("moves")),
                                q.get("player") or None, _int(q.get("simulations"),
                                                              "simulations"),
                                _int(q.get("iteration"), "iteration"),
                                _int(q.get("seed"), "seed", 0))

    def move(q, body):
        index, moves = _int(body.get("run"), "run", 0), [int(m) for m in body.get("moves", [])]
        if "action" in body:
            action = _int(body["action"], "action")
        else:
            action = explorer.click(index, moves, _int(body.get("row"), "row"),
                                    _int(body.get("col"), "col"))
        return {"moves": explorer.move(index, moves, action)}

    def reply(q, body):
        index, moves = _int(body.get("run"), "run", 0), [int(m) for m in body.get("moves", [])]
        return {"moves": explorer.reply(index, moves, body.get("player") or None,
                                        _int(body.get("simulations"), "simulations"))}

    def games(q, body):
        return explorer.games(_int(q.get("run"), "run", 0))

    def replay(q, body):
        return {"moves": explorer.replay(_int(q.get("run"), "run", 0),
                                         _int(q.get("game"), "game", 0))}

    async def page(request):
        return FileResponse(STATIC / "index.html")

    return Starlette(routes=[
        Route("/", page),
        Route("/api/runs", answer(runs)),
        Route("/api/position", answer(position)),
        Route("/api/analyse", answer(analyse)),
        Route("/api/move", answer(move), methods=["POST"]),
        Route("/api/reply", answer(reply), methods=["POST"]),
        Route("/api/games", answer(games)),
        Route("/api/replay", answer(replay)),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ])
