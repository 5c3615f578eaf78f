"""Shapes asserted at the boundaries (chex): a value target, a move or an observation of the
wrong shape fails where it enters, not as a silently broadcast loss or policy far away."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from warmjax.nets import make_network
from warmjax.search.players import Move
from warmjax.train.update import loss_fn

N, A, SHAPE = 8, 7, (6, 7, 2)


@pytest.fixture(scope="module")
def network():
    net = make_network(A, SHAPE, "small")
    return net, net.init(jax.random.key(0))


@pytest.mark.slow
def test_a_value_target_of_shape_n_by_1_is_refused(network):
    net, variables = network
    obs = jnp.zeros((N, *SHAPE), jnp.bool_)
    policy = jnp.full((N, A), 1.0 / A)
    good = loss_fn(net, variables["params"], variables["batch_stats"],
                   (obs, policy, jnp.zeros(N)), jax.random.key(1))
    assert good[0].shape == ()  # the right shapes give one scalar loss
    # [N, 1] against the network's [N] would broadcast to an [N, N] error matrix.
    with pytest.raises(AssertionError):
        loss_fn(net, variables["params"], variables["batch_stats"],
                (obs, policy, jnp.zeros((N, 1))), jax.random.key(1))


def test_the_network_refuses_an_observation_without_a_batch_axis(network):
    net, variables = network
    assert [x.shape for x in net.apply(variables, jnp.zeros((3, *SHAPE)))] == [(3, A), (3,)]
    with pytest.raises(AssertionError):
        net.apply(variables, jnp.zeros(SHAPE))


def test_a_move_of_the_wrong_shape_is_refused():
    move = Move(jnp.zeros(4, jnp.int32), jnp.zeros((4, A)), jnp.zeros(4), ())
    assert move.check(4, A) is move
    with pytest.raises(AssertionError):
        Move(jnp.zeros(4, jnp.int32), jnp.zeros((4, A)), jnp.zeros((4, 1)), ()).check(4, A)
    with pytest.raises(AssertionError):
        move.check(4, A + 1)
