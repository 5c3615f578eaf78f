"""Play a trained agent and look inside its search, in the browser:
`python -m warmjax.explore RUN [RUN ...] [--port N] [--games TOURNAMENT ...]`.

Serves a page on 127.0.0.1 (offline: no file comes from the network): the board, moves by
click, the agent's replies, an analysis panel per position (each move's prior, visits, Q
and perfect-play value, the search's choice marked optimal or a mistake), a second panel
that compares a warm-start search or an earlier network on the same position, and
replays of tournament games (`--games`) and of the run's own arena games (played again
from its checkpoints, `train/arena_replay.py`; arena-style games for a run without an
arena). Needs the `explore` extra: `pip install -e '.[explore]'`. Ctrl-C stops it.
"""

from __future__ import annotations

import socket
import sys

from warmjax import cli


def port_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
            return True
        except OSError:
            return False


def main(argv=None) -> int:
    parser = cli.ArgumentParser("explore", description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run folders to serve")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--host", default="127.0.0.1",
                        help="the address to listen on (default: this machine only)")
    parser.add_argument("--games", nargs="*", default=[], metavar="TOURNAMENT",
                        help="tournament folders whose journal games the page can replay")
    args = parser.parse_args(argv)
    if not 0 < args.port < 65536:
        parser.error(f"--port must be between 1 and 65535, got {args.port}")
    try:
        import uvicorn

        from warmjax.explorer.app import make_app
        from warmjax.explorer.session import Explorer, ExplorerError, journal_games, load_runs
    except ImportError as err:
        parser.fail(f"the explorer needs its extra ({err.name} is missing): "
                    "pip install -e '.[explore]'")
    if not port_free(args.host, args.port):
        parser.fail(f"port {args.port} on {args.host} is busy: choose another with --port")
    try:
        runs = load_runs(args.runs)
        games = [g for folder in args.games for g in journal_games(folder, runs)]
    except ExplorerError as err:
        parser.fail(err)
    class Server(uvicorn.Server):
        async def startup(self, sockets=None):
            await super().startup(sockets)
            if self.started:  # listening: the address works from now on
                print(f"warmjax explorer: http://{args.host}:{args.port}/ (Ctrl-C stops it)",
                      flush=True)

    app = make_app(Explorer(runs, games))
    server = Server(uvicorn.Config(app, host=args.host, port=args.port, log_level="warning"))
    with cli.ctrl_c_ends_normally():  # Ctrl-C is the server's stop, exit 0
        try:
            server.run()
        except KeyboardInterrupt:
            pass
    print("explorer stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
