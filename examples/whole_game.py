"""A whole game from Python: a trained agent against network-free MCTS in a batch of games.

    python examples/whole_game.py runs/adaptive_c4/profile=fast

It makes a batch from positions, asks whose turn it is, plays with `game.step` until every
game is over, and reads who won (`state.rewards` is indexed by player id, not by colour).
"""

import sys

import jax
import jax.numpy as jnp
import numpy as np

import warmjax

run = sys.argv[1] if len(sys.argv) > 1 else "runs/adaptive_c4/profile=fast"
game = warmjax.make_game("connect_four")
agent = warmjax.load_agent(run, temperature_moves=0)
pure = warmjax.make_player("pure_mcts", game, simulations=100, temperature_moves=0)

# A batch from positions: one state per opening, their arrays stacked on a leading axis.
openings = ["", "c", "c d", "d d"]
states = jax.tree_util.tree_map(lambda *x: jnp.stack(x),
                                *[warmjax.position(game, m) for m in openings])
agent_id = states.current_player  # the agent moves first from each opening: its player id

agent_move = jax.jit(lambda key, s: agent.player(agent.variables, key, s).action)
pure_move = jax.jit(lambda key, s: pure(None, key, s).action)
step = jax.jit(jax.vmap(game.step))
result = jnp.zeros(len(openings))  # the agent's reward: +1 won, 0 drawn, −1 lost
played = [[] for _ in openings]  # each game's moves after its opening
key = jax.random.PRNGKey(0)
while not bool(states.terminated.all()):
    key, k_agent, k_pure = jax.random.split(key, 3)
    agents_turn = states.current_player == agent_id  # whose turn it is, per game
    action = jnp.where(agents_turn, agent_move(k_agent, states), pure_move(k_pure, states))
    done = states.terminated
    for g in np.flatnonzero(~np.asarray(done)):
        played[g].append(game.action_label(int(action[g])))
    states = step(states, action)
    # Rewards come with the move that ends a game (a finished game's step gives none).
    ended = states.terminated & ~done
    mine = jnp.take_along_axis(states.rewards, agent_id[:, None], axis=1)[:, 0]
    result = jnp.where(ended, mine, result)

for opening, r, moves in zip(openings, np.asarray(result), played):
    verdict = "won" if r > 0 else "lost" if r < 0 else "drew"
    print(f"opening {opening or '(none)'}: the agent {verdict} against pure MCTS (100): "
          + " ".join(moves))
