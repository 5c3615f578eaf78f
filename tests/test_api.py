"""The Python API (`import warmjax`, docs/api.md): its names, positions from moves and ASCII,
and the opened-up search, each checked against the game's own rules, a network's own
output or a position worked out by hand; README's quickstart runs as written."""

from __future__ import annotations

import importlib.metadata
import pydoc
import re
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import warmjax
from warmjax.games.env import EMPTY, FIRST, SECOND

from .helpers import ROOT, write_tiny_run

MAIN_JOB_FOLDER = "runs/adaptive_c4/profile=fast"


@pytest.fixture(scope="module")
def game():
    return warmjax.make_game("connect_four")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return write_tiny_run(tmp_path_factory.mktemp("api") / "run")


def test_the_package_lists_its_public_names_and_version():
    doc = pydoc.render_doc(warmjax, renderer=pydoc.plaintext)
    for name in set(warmjax.__all__) - {"__version__"}:
        assert name in doc, name
        assert getattr(warmjax, name) is not None
    assert warmjax.__version__ == importlib.metadata.version("warmjax")
    assert re.search(r"VERSION\s+" + re.escape(warmjax.__version__), doc)
    with pytest.raises(AttributeError, match="no attribute 'make_gmae'"):
        warmjax.make_gmae  # noqa: B018


def test_importing_the_package_loads_no_jax():
    out = subprocess.run([sys.executable, "-c", "import sys, warmjax; "
                          "print('jax' in sys.modules, 'pgx' in sys.modules)"],
                         capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_a_position_from_moves_is_the_game_played_by_hand(game):
    state = warmjax.position(game, "c d c")
    board = game.board_array(state)
    expected = np.full((6, 6), EMPTY, np.int8)
    expected[5, 2], expected[5, 3], expected[4, 2] = FIRST, SECOND, FIRST  # row 0 is the top
    np.testing.assert_array_equal(board, expected)
    assert game.colour_to_move(state) == SECOND
    by_hand = game.init(jax.random.PRNGKey(0))
    for action in (2, 3, 2):
        by_hand = game.step(by_hand, jnp.int32(action))
    for a, b in zip(jax.tree_util.tree_leaves(state), jax.tree_util.tree_leaves(by_hand)):
        np.testing.assert_array_equal(a, b)
    # Numbers from 1, action ids and a comma list name the same moves.
    for moves in ("3,4,3", ["3", "4", "3"], [2, 3, 2]):
        np.testing.assert_array_equal(game.board_array(warmjax.position(game, moves)), board)


def test_a_position_from_ascii_is_the_same_board(game):
    drawn = game.render(warmjax.position(game, "c d c"))
    state = warmjax.position(game, ascii=drawn, to_move="O")
    np.testing.assert_array_equal(game.board_array(state),
                                  game.board_array(warmjax.position(game, "c d c")))
    assert game.colour_to_move(state) == SECOND


@pytest.mark.parametrize("moves, words", [
    ("a a a a a a a", "move 7 ('a'): column a is full"),
    ("a b z", "move 3 ('z')"),
    ([0, 1, 9], "move 3 (9): no action 9"),
    ("a b a b a b a b", "move 8 ('b'): the game is already over"),
])
def test_a_bad_move_is_named_with_its_place(game, moves, words):
    with pytest.raises(ValueError) as err:
        warmjax.position(game, moves)
    assert str(err.value).startswith(words), str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.slow  # 5-10 s: the `not slow` inner loop leaves it to CI
def test_the_agent_analysis_opens_up_its_search(game, run):
    agent = warmjax.load_agent(run, temperature_moves=0, simulations=16)
    state = warmjax.position(game, "c d c d")
    look = agent.analyse(state)
    assert look.visits.shape == look.prior.shape == look.q.shape == (game.num_actions,)
    assert int(look.visits.sum()) == 16  # every simulation passes a root edge
    np.testing.assert_allclose(look.policy, look.visits / 16, atol=1e-6)
    np.testing.assert_allclose(float(look.value), float(np.sum(look.policy * look.q)),
                               atol=1e-5)  # Σ π(a)·Q(root, a), the player's root value
    # The prior is the network's own softmax at the root (no noise outside self-play).
    logits, _ = agent.network.apply(agent.variables, state.observation[None])
    np.testing.assert_allclose(look.prior, jax.nn.softmax(logits[0]), atol=1e-5)
    assert int(look.action) == int(np.argmax(look.visits))  # T′ = 0: the most visited move
    # The move is the player's own for the same key.
    move = agent.player(agent.variables, jax.random.PRNGKey(0),
                        jax.tree_util.tree_map(lambda x: x[None], state))
    key_move = agent.player.analyse(agent.variables, jax.random.PRNGKey(0),
                                    jax.tree_util.tree_map(lambda x: x[None], state))
    assert int(move.action[0]) == int(key_move.action[0])
    np.testing.assert_allclose(move.policy, key_move.policy)


def test_a_batch_is_analysed_as_its_positions_with_one_compilation(game, run):
    agent = warmjax.load_agent(run, temperature_moves=0, simulations=8)
    states = [warmjax.position(game, m) for m in ("c", "c d c", "a b a b a b")]
    batch = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *states[:2])
    both = agent.analyse(batch)
    assert both.visits.shape == (2, game.num_actions)
    for i, state in enumerate(states[:2]):
        one = agent.analyse(state)
        np.testing.assert_array_equal(one.prior, both.prior[i])
    agent.analyse(states[2])
    # One batch size of one, one of two: two programs, however many calls.
    assert agent.analyser._search._cache_size() == 2


def test_a_network_free_player_needs_no_network_and_finds_the_win(game):
    """X has three in column a and is to move: a wins at once (by hand), and pure MCTS's
    Q of it is exactly the win."""
    state = warmjax.position(game, "a b a b a b")
    look = warmjax.Analyser(warmjax.make_player("pure_mcts", game, simulations=200,
                                                temperature_moves=0))(state)
    assert int(look.action) == 0 and look.q[0] == 1.0
    np.testing.assert_allclose(look.prior, np.full(6, 1 / 6), atol=1e-6)
    rand = warmjax.Analyser(warmjax.make_player("random", game))(state)
    assert rand.visits.sum() == 0 and np.all(rand.q == 0) and float(rand.value) == 0.0
    np.testing.assert_allclose(rand.prior, np.full(6, 1 / 6), atol=1e-6)


def test_a_network_player_without_a_network_is_refused(game, run):
    agent = warmjax.load_agent(run)
    with pytest.raises(ValueError, match="player 'mcts' needs the network's variables"):
        warmjax.Analyser(agent.player)


def test_gumbel_analysis(game, run):
    agent = warmjax.load_agent(run, "gumbel", simulations=8, temperature_moves=0)
    state = warmjax.position(game, "a b a b a b")
    look = agent.analyse(state)
    assert int(look.visits.sum()) == 8
    logits, _ = agent.network.apply(agent.variables, state.observation[None])
    np.testing.assert_allclose(look.prior, jax.nn.softmax(logits[0]), atol=1e-5)
    assert look.q[0] == 1.0  # the immediate win, seen by the search
    assert np.all(look.q[look.visits == 0] == 0)


def test_readme_quickstart_runs(run, capsys):
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "README has no Python example"
    code = blocks[0].replace(MAIN_JOB_FOLDER, str(run)).replace("simulations=400",
                                                                "simulations=20")
    exec(compile(code, "README.md", "exec"), {})  # noqa: S102 - the README's own example
    out = capsys.readouterr().out
    assert "plays " in out and "value" in out and "pure MCTS visits" in out


def test_the_api_page_is_what_its_docstrings_write():
    out = subprocess.run([sys.executable, "tools/api_doc.py", "--check"], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    page = (ROOT / "docs" / "api.md").read_text()
    for name in set(warmjax.__all__) - {"__version__"}:
        assert f"## `{name}" in page, name


def test_a_network_free_player_is_called_with_no_variables(game):
    player = warmjax.make_player("pure_mcts", game, simulations=50, temperature_moves=0)
    state = warmjax.position(game, "a b a b a b")
    batch = jax.tree_util.tree_map(lambda x: x[None], state)
    move = jax.jit(player)(None, jax.random.PRNGKey(1), batch)
    assert int(move.action[0]) == 0


@pytest.mark.slow
def test_the_whole_game_example_plays_to_the_end(run, game):
    """docs/api.md's whole game (examples/whole_game.py) on a tiny run: every game ends,
    and each result printed is the game's own, replayed here move by move from its
    opening with `position`."""
    out = subprocess.run([sys.executable, "examples/whole_game.py", str(run)], cwd=ROOT,
                         capture_output=True, text=True, timeout=600,
                         env=dict(__import__("os").environ, JAX_PLATFORMS="cpu"))
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert len(lines) == 4
    words = {"won": 1.0, "drew": 0.0, "lost": -1.0}
    for line in lines:
        found = re.match(r"opening (.*): the agent (won|lost|drew) against pure MCTS "
                         r"\(100\): (.*)$", line)
        assert found, line
        opening = "" if found.group(1) == "(none)" else found.group(1)
        start = warmjax.position(game, opening)
        end = warmjax.position(game, f"{opening} {found.group(3)}")
        assert bool(end.terminated)
        agent = int(start.current_player)
        assert float(end.rewards[agent]) == words[found.group(2)], line


@pytest.mark.slow
@pytest.mark.parametrize("name, params, labelled", [
    ("connect_four", {}, "connect_four_6x6.json"), ("othello", {}, "othello_6x6.json"),
    # Gobang's (13 s: its solver's first compile) is heavy; the solver's labels are checked
    # against minimax in CI (test_gobang_solver.py).
    pytest.param("gobang", {}, "gobang_6x6.json", marks=pytest.mark.heavy),
    ("hex", {"size": 5}, "hex_5x5.json")])
def test_perfect_values_are_the_solvers_labels(name, params, labelled):
    """`perfect_values` against the committed labelled sets, which each game's exact solver
    wrote: the same value for every move of their first positions, one by one and as a
    batch; a game without a solver, or a position before its reach, is one message."""
    from warmjax.perfect import positions

    game = warmjax.make_game(name, **params)
    stored = positions.load(positions.DATA_DIR / labelled, game.num_actions).subset(2)
    moves = [[int(a) for a in m[:n]] for m, n in zip(stored.moves, stored.plies)]
    for one, values in zip(moves, stored.values):
        np.testing.assert_array_equal(warmjax.perfect_values(game, one), values)
    np.testing.assert_array_equal(warmjax.perfect_values(game, batch=moves), stored.values)


@pytest.mark.slow
def test_perfect_values_say_where_they_cannot_answer(game):
    with pytest.raises(ValueError, match="from ply 8 on; this one is at ply 2"):
        warmjax.perfect_values(game, "c d")
    with pytest.raises(ValueError, match="animal_shogi has no exact solver"):
        warmjax.perfect_values(warmjax.make_game("animal_shogi"), ())
    with pytest.raises(ValueError, match="move 2"):
        warmjax.perfect_values(game, "c z")
