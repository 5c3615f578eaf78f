"""Play against a trained agent in the terminal.

    python -m warmjax.play runs/adaptive_c4/profile=fast [--colour second] [--seed 0]

The game and its size come from the run folder; the agent is the run's final network with
the run's search (`--player`, `--simulations` to change it), playing its most visited move.
After every move the board is drawn with coordinates, the last move in lower case. Type a
column letter for Connect Four (`c`, or its number `3`), a cell such as `c4` for Othello and
Gobang (and pgx's stone games: `swap` in Hex), an action id such as `#89` in pgx's
chess-like games, `pass` when passing is your only move, `moves` to list the legal moves,
`undo` to take back your last move and the agent's reply, `hint` for the agent's policy
over your moves with each move's Q and its value of the position, `quit` to stop. When a
game ends, `new` starts another (the next seed), `undo` takes back your last move, `quit`
stops. Input may come from a pipe: the game ends cleanly when it runs out.
"""

from __future__ import annotations

import sys
from pathlib import Path

import jax
import numpy as np

from warmjax import cli
from warmjax.matches.agent import load_agent
from warmjax.search.players import PLAYERS

CHARS = {0: ".", 1: "X", 2: "O"}
# How the banner names the agent's search (other players by their own name).
SEARCH_NAMES = {"mcts": "its network's PUCT MCTS", "gumbel": "Gumbel AlphaZero's search",
                "pure_mcts": "pure MCTS (random playouts)", "pure_rave": "pure RAVE",
                "rhea": "RHEA"}


class Game:
    """The game state with its history, for undo. One unbatched pgx state at a time."""

    def __init__(self, env, seed: int):
        self.env = env
        self.step = jax.jit(env.step)
        self.states = [env.init(jax.random.PRNGKey(seed))]
        self.moves: list[tuple[str, int]] = []  # (who, action)

    @property
    def state(self):
        return self.states[-1]

    def play(self, who: str, action: int) -> None:
        self.states.append(self.step(self.state, np.int32(action)))
        self.moves.append((who, action))

    def undo_to_last(self, who: str) -> bool:
        """Takes back everything after (and including) `who`'s last move."""
        for i in range(len(self.moves) - 1, -1, -1):
            if self.moves[i][0] == who:
                del self.moves[i:]
                del self.states[i + 1:]
                return True
        return False


def board_text(env, game: Game) -> str:
    """The board with coordinates (`GameEnv.render`); the last move's stone in lower case."""
    previous = game.states[-2] if len(game.states) > 1 else None
    # The end of the game is said once, by `result_text`, in the player's terms.
    return "\n".join(line for line in env.render(game.state, previous).splitlines()
                     if not line.startswith("game over"))


def parse_move(env, state, text: str) -> int:
    """The action a typed move names, or ValueError with the reason it is refused."""
    action = env.parse_action(text)
    if not bool(np.asarray(state.legal_action_mask)[action]):
        raise ValueError(env.illegal_reason(state, action))
    return action


def result_text(env, state, human_colour: str) -> str:
    """The one line that ends a game."""
    winner = env.winner(state)
    if winner is None:
        return "game over: a draw"
    side = CHARS[winner]
    return (f"game over: you win ({side})" if side == human_colour
            else f"game over: the agent wins ({side})")


def hint_text(env, state, look) -> str:
    """The agent's search of the human's position (`Agent.analyse`): its move shares, best
    first, with each move's Q where the search tried it, then its value of the position."""
    legal = np.flatnonzero(np.asarray(state.legal_action_mask))
    ranked = sorted(legal, key=lambda a: -look.policy[a])
    moves = ", ".join(f"{env.action_label(a)} {look.policy[a]:.0%}"
                      + (f" (Q {look.q[a]:+.2f})" if look.visits[a] > 0 else "")
                      for a in ranked)
    return (f"agent's policy: {moves}\n"
            f"agent's value of the position for you: {float(look.value):+.2f} "
            "(+1 a win, 0 a draw, -1 a loss)")


def main(argv=None, stdin=None, out=None) -> int:
    stdin = stdin or sys.stdin
    out = out or sys.stdout
    parser = cli.ArgumentParser("play", description=__doc__.split("\n")[0])
    parser.add_argument("run_dir")
    parser.add_argument("--colour", choices=("first", "second"), default="first",
                        help="move first (X) or second (O)")
    parser.add_argument("--player", choices=[p for p in PLAYERS if p != "random"],
                        default=None,
                        help="the agent's search (default: the run's baseline search)")
    parser.add_argument("--simulations", type=int, default=None,
                        help="the agent's m (default: the run's)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if not Path(args.run_dir).is_dir():
        parser.fail(f"no run folder {args.run_dir}")
    if args.simulations is not None and args.simulations < 1:
        parser.error("--simulations must be at least 1")
    try:
        # The run's own search (a network-free player: its defaults at the run's m), argmax
        # from the first ply.
        loaded = load_agent(args.run_dir, args.player, simulations=args.simulations,
                            temperature_moves=0)
    except (ValueError, OSError) as err:
        parser.fail(err)
    env, variables, agent = loaded.env, loaded.variables, loaded.player
    m = agent.config.simulations
    act = jax.jit(lambda key, state: agent(variables, key, jax.tree_util.tree_map(
        lambda x: x[None], state)))
    human = "X" if args.colour == "first" else "O"
    game = Game(env, args.seed)
    key = jax.random.PRNGKey(args.seed)

    def say(text=""):
        print(text, file=out, flush=True)

    search = SEARCH_NAMES.get(agent.name, agent.name)
    say(f"{env.name} {env.board_shape[0]}x{env.board_shape[1]}: you are {human}, the agent "
        f"plays with {search}, m = {m}. Commands: moves, undo, hint, quit.")
    say("The last move is drawn in lower case; hint shows the agent's search for your move.")
    say(board_text(env, game))
    def ask(prompt: str) -> str | None:
        """The typed line, lower case (None at the end of input); piped input is echoed,
        so that the transcript reads like a session."""
        out.write(prompt)
        out.flush()
        line = stdin.readline()
        if not line:
            return None
        text = line.strip().lower()
        if not stdin.isatty():
            say(text)
        return text

    games = 1
    while True:
        if bool(game.state.terminated):
            text = ask("new game, undo or quit? ")
            if text is None:
                say("\nend of input")
                return 0
            if text == "":
                continue
            if text == "quit":
                return 0
            if text == "new":
                game, games = Game(env, args.seed + games), games + 1
                say(f"game {games}: you are {human}")
                say(board_text(env, game))
            elif text == "undo":
                game.undo_to_last("human")
                say("took back your last move and the agent's reply")
                say(board_text(env, game))
            else:
                say("refused: the game is over; type new, undo or quit")
            continue
        to_move = CHARS[env.colour_to_move(game.state)]
        if to_move != human:
            key, k_act = jax.random.split(key)
            action = int(act(k_act, game.state).action[0])
            game.play("agent", action)
            say(f"agent ({to_move}) plays {env.action_label(action)}")
            say(board_text(env, game))
            if bool(game.state.terminated):
                say(result_text(env, game.state, human))
            continue
        text = ask(f"your move ({human}): ")
        if text is None:
            say("\nend of input: game abandoned")
            return 0
        if text == "":
            continue
        if text == "quit":
            say("game abandoned")
            return 0
        if text == "moves":
            legal = np.flatnonzero(np.asarray(game.state.legal_action_mask))
            say("legal moves: " + ", ".join(env.action_label(a) for a in legal))
            continue
        if text == "undo":
            if game.undo_to_last("human"):
                say("took back your last move and the agent's reply")
                say(board_text(env, game))
            else:
                say("nothing to undo")
            continue
        if text == "hint":
            say(hint_text(env, game.state, loaded.analyse(game.state, seed=len(game.moves))))
            continue
        try:
            action = parse_move(env, game.state, text)
        except ValueError as err:
            say(f"refused: {err}")
            continue
        game.play("human", action)
        say(board_text(env, game))
        if bool(game.state.terminated):
            say(result_text(env, game.state, human))


if __name__ == "__main__":
    sys.exit(main())
