"""The explorer (`python -m warmjax.explore`): its answers are the public API's (checked
against `warmjax.Analyser` and the solver on the same position), its refusals are one line,
and the page works in a real browser (headless Chromium through Playwright)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

pytest.importorskip("starlette")

import warmjax  # noqa: E402
from warmjax.explorer.app import make_app  # noqa: E402
from warmjax.explorer.session import Explorer, ExplorerError, load_runs, solver_values  # noqa: E402

from ..helpers import ROOT, write_tiny_run  # noqa: E402

FULL_A = [0, 0, 0, 0, 0, 0]  # column a filled, X and O in turn: no line, the game goes on


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """An untrained run without an arena: the page replays its arena-style games."""
    return write_tiny_run(tmp_path_factory.mktemp("explore") / "run", arena=False)


@pytest.fixture(scope="module")
def explorer(tiny):
    return Explorer(load_runs([tiny]))


@pytest.mark.slow  # 5-10 s: the `not slow` inner loop leaves it to CI
def test_the_panel_is_the_api_and_the_solver(explorer, tiny):
    moves = [2, 3, 2, 3, 1, 1, 1, 1]  # ply 8: within the solver's reach
    panel = explorer.analyse(0, moves, seed=0)
    game = warmjax.make_game("connect_four")
    agent = warmjax.load_agent(tiny, temperature_moves=0, reuse_tree=False)
    look = agent.analyse(warmjax.position(game, moves), seed=0)
    for row in panel["rows"]:
        a = row["action"]
        assert row["visits"] == int(look.visits[a])
        assert row["prior"] == pytest.approx(float(look.prior[a]))
    assert panel["choice"] == int(look.action)
    exact = solver_values(game, moves)
    from warmjax.perfect.connect_four_solver import Solver

    np.testing.assert_array_equal(exact, Solver(6, 6, 4).move_values(moves))
    words = {1: "win", 0: "draw", -1: "loss"}
    assert [r["perfect"] for r in panel["rows"]] == [words[int(exact[r["action"]])]
                                                    for r in panel["rows"]]
    best = max(exact[r["action"]] for r in panel["rows"])
    assert panel["verdict"] == ("optimal" if exact[panel["choice"]] == best else "mistake")


def test_a_comparison_and_an_earlier_position(explorer):
    rollout = explorer.analyse(0, [2], player="rollout", simulations=8)
    assert rollout["player"] == "rollout" and sum(r["visits"] for r in rollout["rows"]) == 8
    early = explorer.analyse(0, [2])
    assert early["perfect_value"] is None  # before the solver's reach: no values claimed
    assert all(r["perfect"] is None for r in early["rows"])


@pytest.mark.parametrize("call, words", [
    (lambda e: e.move(0, FULL_A, 0), "refused: column a is full"),
    (lambda e: e.analyse(0, [9]), "move 1 (9): no action 9"),
    (lambda e: e.analyse(0, [], player="nobody"), "unknown player 'nobody'"),
    (lambda e: e.analyse(0, [], iteration=15), "kept no network after iteration 15"),
    (lambda e: e.run(3), "no run 3: 1 served"),
    (lambda e: e.click(0, [], 7, 0), "off the board"),
])
def test_a_request_it_cannot_answer_is_one_line(explorer, call, words):
    with pytest.raises(ExplorerError) as err:
        call(explorer)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_the_app_answers_json_and_refuses_with_400(explorer):
    from starlette.testclient import TestClient

    client = TestClient(make_app(explorer))
    assert client.get("/api/runs").json()[0]["game"] == "connect_four"
    assert client.post("/api/move", json={"run": 0, "moves": [], "row": 2, "col": 4}
                       ).json() == {"moves": [4]}
    bad = client.post("/api/move", json={"run": 0, "moves": FULL_A, "action": 0})
    assert bad.status_code == 400 and bad.json() == {"error": "refused: column a is full"}
    assert client.get("/api/analyse?moves=x").status_code == 400
    assert "warmjax explorer" in client.get("/").text


@pytest.mark.parametrize("args, words", [
    (["no/such/run"], "explore: error: no run folder no/such/run"),
    (["{run}", "--port", "0"], "--port must be between 1 and 65535"),
])
def test_the_command_refuses_bad_input_in_one_line(tiny, args, words):
    out = subprocess.run([sys.executable, "-m", "warmjax.explore",
                          *[a.format(run=tiny) for a in args]], capture_output=True,
                         text=True, cwd=ROOT, env=dict(os.environ, JAX_PLATFORMS="cpu"),
                         timeout=120)
    lines = [x for x in out.stderr.splitlines() if x.strip()]
    assert out.returncode == 2 and len(lines) == 1 and words in lines[0], out.stderr


@pytest.mark.parametrize("damage, words", [
    (lambda run: (run / "network.msgpack").write_bytes(b"not a network"), "network.msgpack"),
    (lambda run: (run / "config.yaml").write_text(
        (run / "config.yaml").read_text().replace("name: connect_four", "name: checkers")),
     "unknown game 'checkers'"),
])
def test_a_corrupt_run_or_an_unknown_game_is_one_line(tiny, tmp_path, damage, words):
    run = tmp_path / "run"
    shutil.copytree(tiny, run)
    damage(run)
    out = subprocess.run([sys.executable, "-m", "warmjax.explore", str(run)],
                         capture_output=True, text=True, cwd=ROOT,
                         env=dict(os.environ, JAX_PLATFORMS="cpu"), timeout=120)
    lines = [x for x in out.stderr.splitlines() if x.strip()]
    assert out.returncode == 2 and len(lines) == 1 and words in lines[0], out.stderr


def test_a_busy_port_is_one_line(tiny):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        out = subprocess.run([sys.executable, "-m", "warmjax.explore", str(tiny), "--port",
                              str(port)], capture_output=True, text=True, cwd=ROOT,
                             env=dict(os.environ, JAX_PLATFORMS="cpu"), timeout=120)
    assert out.returncode == 2 and f"port {port} on 127.0.0.1 is busy" in out.stderr


# --- in a real browser ------------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def served(explorer):
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(make_app(explorer), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not server.started and time.time() < deadline:
        time.sleep(0.1)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium's one context for the module's pages, whose waits allow 2 minutes
    (Playwright's default, 30 s, ran out on a machine loaded by other jobs: the page was
    slow, not wrong)."""
    if CHROMIUM is None:
        if os.environ.get("WARMJAX_REQUIRE_BROWSER"):
            pytest.fail("no chromium on PATH: .ci/run installs Debian's chromium")
        pytest.skip("no chromium on PATH (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        context = launched.new_context()
        context.set_default_timeout(120_000)
        yield context
        launched.close()


def rows(page, panel):
    return page.locator(f"#{panel} tbody tr")


@pytest.mark.slow  # 5-10 s: the `not slow` inner loop leaves it to CI
def test_the_page_plays_analyses_compares_and_replays(served, browser, explorer):
    page = browser.new_page()
    page.goto(served + "/?run=0&moves=2,3,2,3,1,1,1,1")
    page.wait_for_selector("#panel-a tbody tr")
    assert page.inner_text("#status") == "X to move; last move b"
    # The panel is the API's: visits and priors of the same position and seed.
    panel = explorer.analyse(0, [2, 3, 2, 3, 1, 1, 1, 1], seed=0)
    shown = rows(page, "panel-a")
    assert shown.count() == len(panel["rows"])
    for i, row in enumerate(panel["rows"]):
        cells = shown.nth(i).locator("td").all_inner_texts()
        assert cells[2] == str(row["visits"])
        assert cells[1] == f"{100 * row['prior']:.1f}%"
        assert cells[5] == row["perfect"]
    # A comparison shows a second search on the same position.
    page.select_option("#compare-player", "player:rollout")
    page.wait_for_function("document.querySelector('#panel-b .summary').textContent"
                           ".startsWith('rollout')")
    assert rows(page, "panel-b").count() == len(panel["rows"])
    # A legal click moves and the agent (O) replies: two plies more.
    page.select_option("#side", "X")
    page.goto(served + "/?run=0&moves=")
    page.wait_for_selector("#panel-a tbody tr")
    box = page.locator("#board svg").bounding_box()
    page.mouse.click(box["x"] + box["width"] * (4.5 / 6), box["y"] + box["height"] * 0.9)
    page.wait_for_function("new URLSearchParams(location.search).get('moves')"
                           ".split(',').length === 2")
    assert page.evaluate("new URLSearchParams(location.search).get('moves')").startswith("4,")
    # An illegal click is refused, in words.
    page.goto(served + "/?run=0&moves=" + ",".join(map(str, FULL_A)))
    page.wait_for_selector("#panel-a tbody tr")
    page.mouse.click(box["x"] + box["width"] * (0.5 / 6), box["y"] + box["height"] * 0.5)
    page.wait_for_function("document.querySelector('#message').textContent.length > 0")
    assert page.inner_text("#message") == "refused: column a is full"
    # A replay steps forward and back.
    page.select_option("#replay-select", "0")
    page.wait_for_function("document.querySelector('#replay-ply').textContent"
                           ".startsWith('ply 0')")
    page.click("#replay-next")
    page.wait_for_function("document.querySelector('#replay-ply').textContent"
                           ".startsWith('ply 1')")
    first = explorer.replay(0, 0)[0]
    assert page.evaluate("new URLSearchParams(location.search).get('moves')") == str(first)
    page.click("#replay-prev")
    page.wait_for_function("document.querySelector('#replay-ply').textContent"
                           ".startsWith('ply 0')")
    page.close()


def test_connect_four_looks_like_its_game_and_is_played_by_column(served, browser):
    """Red and yellow discs in a blue frame, the columns lettered on the board, the last
    move marked, the move buttons under their columns, and a click on a column's letter
    plays that column."""
    page = browser.new_page()
    page.goto(served + "/?run=0&moves=2,3,2")
    page.wait_for_selector("#panel-a tbody tr")
    board = page.locator("#board svg")
    assert board.locator('circle[fill="#d62828"]').count() == 2  # X: c, c
    assert board.locator('circle[fill="#f5c518"]').count() == 1  # O: d
    assert board.locator('rect[fill="#1d4fb8"]').count() == 1
    assert board.locator("text.column-letter").all_text_contents() == list("abcdef")
    marked = board.locator("circle.last-move")
    assert marked.count() == 1
    box, mark = board.bounding_box(), marked.bounding_box()
    assert 2 / 6 < (mark["x"] + mark["width"] / 2 - box["x"]) / box["width"] < 3 / 6
    assert "last move c" in page.inner_text("#status")
    # Each move button sits under its own column.
    for button in page.locator("#legal button").all():
        column = int(button.get_attribute("data-action"))
        b = button.bounding_box()
        centre = (b["x"] + b["width"] / 2 - box["x"]) / box["width"]
        assert column / 6 < centre < (column + 1) / 6, (column, centre)
    # A click on column e's letter plays column e.
    page.select_option("#side", "none")
    letter = board.locator("text.column-letter").nth(4).bounding_box()
    page.mouse.click(letter["x"] + letter["width"] / 2, letter["y"] + letter["height"] / 2)
    page.wait_for_function("new URLSearchParams(location.search).get('moves') === '2,3,2,4'")
    page.close()


@pytest.mark.parametrize("link, words", [
    ("?run=0&moves=9,9,9", "this link's moves cannot be played: move 1 (9): no action 9"),
    ("?moves=garbage", 'this link\'s moves must be action ids separated by commas, got '
                       '"garbage"'),
    ("?moves=2,,3", 'this link\'s moves must be action ids separated by commas, got "2,,3"'),
    ("?run=5", "no run 5: 1 served (runs 0 to 0); showing run 0"),
])
def test_a_bad_link_keeps_the_board_and_says_why_in_one_line(served, browser, link, words):
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(served + "/" + link)
    page.wait_for_selector("#panel-a tbody tr")
    page.wait_for_function("document.querySelector('#message').textContent.length > 0")
    message = page.inner_text("#message")
    assert words in message and "\n" not in message
    assert page.inner_text("#status") == "X to move"  # the start position, drawn
    assert page.locator("#board svg circle.piece").count() == 0
    assert page.locator("#board svg circle").count() == 36  # its empty holes
    assert errors == []  # no raw JavaScript error
    page.close()


def test_the_busy_line_shows_while_a_search_runs_and_clears(served, browser):
    """The answer to a search is held back: the busy line names the work and counts its
    seconds; it goes when the answer comes."""
    page = browser.new_page()
    page.goto(served + "/?run=0&moves=2")
    page.wait_for_selector("#panel-a tbody tr")
    assert page.locator("#busy").is_hidden()
    held = []
    page.route("**/api/analyse*", lambda route: held.append(route))
    page.fill("#simulations", "9")
    page.dispatch_event("#simulations", "change")
    page.wait_for_selector("#busy", state="visible")
    first = page.inner_text("#busy")
    assert first.startswith("searching… ") and first.endswith(" s")
    page.wait_for_function("parseFloat(document.querySelector('#busy').textContent"
                           ".split('… ')[1]) >= 0.5")
    assert len(held) == 1
    held[0].continue_()
    page.unroute("**/api/analyse*")
    page.wait_for_selector("#busy", state="hidden")
    page.wait_for_function("document.querySelector('#panel-a .summary').textContent"
                           ".includes('m = 9')")
    page.close()


def test_an_error_is_cleared_by_the_next_good_answer(served, browser):
    page = browser.new_page()
    page.goto(served + "/?run=0&moves=")
    page.wait_for_selector("#panel-a tbody tr")
    page.fill("#moves-input", "c zz")
    page.click("#moves-go")
    page.wait_for_function("document.querySelector('#message').textContent.length > 0")
    assert page.inner_text("#message") == "refused: cannot read the move zz"
    page.fill("#simulations", "7")
    page.dispatch_event("#simulations", "change")
    page.wait_for_function("document.querySelector('#panel-a .summary').textContent"
                           ".includes('m = 7')")
    assert page.inner_text("#message") == ""
    page.close()


def test_a_replay_shows_the_moves_played(served, browser, explorer):
    page = browser.new_page()
    page.goto(served + "/?run=0&moves=")
    page.wait_for_selector("#panel-a tbody tr")
    page.select_option("#replay-select", "0")
    page.wait_for_function("document.querySelector('#replay-ply').textContent"
                           ".startsWith('ply 0')")
    game = explorer.replay(0, 0)
    labels = [chr(ord("a") + a) for a in game]
    page.click("#replay-next")
    page.wait_for_function("document.querySelector('#replay-ply').textContent"
                           ".startsWith('ply 1')")
    page.click("#replay-next")
    page.wait_for_function("document.querySelector('#replay-ply').textContent"
                           ".startsWith('ply 2')")
    assert page.locator("#played span.played").all_inner_texts() == labels[:2]
    assert page.locator("#played span.ahead").all_inner_texts() == labels[2:]
    assert page.inner_text("#played span.current") == labels[1]
    page.close()


def test_a_run_without_an_arena_replays_arena_style_games(explorer):
    """Two games of the final network against itself, each legal to its end."""
    titles = [g["title"] for g in explorer.games(0)]
    assert titles == [f"arena-style game {k}: the final network against itself (the run "
                      "plays no arena)" for k in (1, 2)]
    for game in (0, 1):
        end = warmjax.position(explorer.run(0).game, explorer.replay(0, game))
        assert bool(end.terminated)


def test_tournament_games_replay(tiny):
    """A committed tournament journal of Connect Four 6×6 (the long-horizon study's round
    robin): its games replay in any 6×6 run's game, each titled by its players."""
    from warmjax.explorer.session import journal_games

    runs = load_runs([tiny])
    games = journal_games(ROOT / "studies" / "long_horizon" / "c4_long" / "tournament", runs)
    assert len(games) > 100 and all(g["run"] == 0 for g in games)
    assert " – " in games[0]["title"] and games[0]["title"].split(": ")[-1] in (
        "first wins", "draw", "second wins")
    explorer = Explorer(runs, games)
    assert explorer.replay(0, 0) == games[0]["moves"]
    with pytest.raises(ExplorerError, match="holds no tournament|tournament.json"):
        journal_games(ROOT / "results", runs)


@pytest.mark.slow
@pytest.mark.parametrize("event_loop", ["uvloop", "asyncio"])
def test_the_command_serves_and_stops_on_ctrl_c(tiny, tmp_path, event_loop):
    """Ctrl-C is the server's normal stop, exit 0, whichever loop uvicorn runs: uvloop where
    it is installed (it takes the signal's wake-up from the process's Ctrl-C watcher), else
    asyncio's (which leaves it there); both re-raise the signal once they have shut down."""
    import signal
    import urllib.request

    env = dict(os.environ, JAX_PLATFORMS="cpu")
    if event_loop == "uvloop":
        pytest.importorskip("uvloop")
    else:  # uvicorn's `loop="auto"` falls back to asyncio where uvloop does not import
        (tmp_path / "uvloop.py").write_text("raise ImportError('hidden by the test')\n")
        env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "warmjax.explore", str(tiny), "--port",
                             str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT, env=env)
    try:
        line = proc.stdout.readline()
        assert line == f"warmjax explorer: http://127.0.0.1:{port}/ (Ctrl-C stops it)\n"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/runs") as answer:
            assert b"connect_four" in answer.read()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:  # a failure above leaves no server behind
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0 and out == "explorer stopped\n" and err == ""


def test_two_networks_of_a_run_side_by_side(tiny, tmp_path):
    """A network the run kept after an earlier iteration is analysed with the run's search;
    its prior is that network's own, not the final one's."""
    import jax

    from warmjax.train import network_io, run_folder

    run = tmp_path / "run"
    shutil.copytree(tiny, run)
    env, network, _ = network_io.load_network(run)
    earlier = network.init(jax.random.PRNGKey(7))
    network_io.save_network(run_folder.kept_network_folder(run, 1),
                            run_folder.read_config(run), network, earlier, iteration=1)
    explorer = Explorer(load_runs([run]))
    assert explorer.describe()[0]["kept"] == [1]
    state = warmjax.position(env, [2])
    then = explorer.analyse(0, [2], iteration=1)
    logits, _ = network.apply(earlier, state.observation[None])
    expected = jax.nn.softmax(logits[0])
    assert [r["prior"] for r in then["rows"]] == pytest.approx([float(p) for p in expected])
    assert then["network"] == "after iteration 1"
    final = explorer.analyse(0, [2])
    assert [r["prior"] for r in final["rows"]] != [r["prior"] for r in then["rows"]]


def test_a_network_from_the_runs_training_states(tiny, tmp_path):
    """A run that kept no network but holds a training state (`checkpoints/`) offers that
    state's best network; its prior is that network's own. A corrupt state is one line."""
    import jax

    from warmjax.train import network_io
    from warmjax.train.checkpoint import CheckpointDir

    run = tmp_path / "run"
    shutil.copytree(tiny, run)
    env, network, _ = network_io.load_network(run)
    earlier = network.init(jax.random.PRNGKey(11))
    CheckpointDir(run / "checkpoints").save({"params": earlier, "iteration": 4}, 4,
                                            {"metrics": []})
    explorer = Explorer(load_runs([run]))
    assert explorer.describe()[0]["kept"] == [4]
    state = warmjax.position(env, [2, 3])
    then = explorer.analyse(0, [2, 3], iteration=4)
    logits, _ = network.apply(earlier, state.observation[None])
    expected = jax.nn.softmax(logits[0])
    assert [r["prior"] for r in then["rows"]] == pytest.approx([float(p) for p in expected])
    assert then["network"] == "after iteration 4"
    path = run / "checkpoints" / "state_000004.ckpt"
    path.write_bytes(path.read_bytes()[:-10])
    with pytest.raises(ExplorerError, match=r"state_000004.ckpt: truncated"):
        Explorer(load_runs([run])).analyse(0, [2, 3], iteration=4)
