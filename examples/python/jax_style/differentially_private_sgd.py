"""Differentially private SGD: per-example gradients with vmap, each clipped to an l2 norm,
summed, noised and averaged, as JAX's examples/differentially_private_sgd.py (dense layers
instead of convolutions, the digits set): only the imports differ.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/jax_style/differentially_private_sgd.py
"""
import itertools
import time

import numpy.random as npr

import strata as jax
import strata.numpy as jnp
from strata import grad, jit, random, vmap
from strata.example_libraries import optimizers
from strata.example_libraries import stax
from strata.example_libraries.stax import Dense, LogSoftmax, Tanh

import datasets

init_random_params, predict = stax.serial(
    Dense(32), Tanh,
    Dense(10), LogSoftmax)


def loss(params, batch):
    inputs, targets = batch
    logits = predict(params, inputs)
    logits = stax.logsoftmax(logits)  # log normalize
    return -jnp.mean(jnp.sum(logits * targets, axis=1))  # cross entropy loss


def accuracy(params, batch):
    inputs, targets = batch
    target_class = jnp.argmax(targets, axis=1)
    predicted_class = jnp.argmax(predict(params, inputs), axis=1)
    return jnp.mean(predicted_class == target_class)


def clipped_grad(params, l2_norm_clip, single_example_batch):
    """Evaluate gradient for a single-example batch and clip its grad norm."""
    grads = grad(loss)(params, single_example_batch)
    nonempty_grads, tree_def = jax.tree_util.tree_flatten(grads)
    total_grad_norm = jnp.linalg.norm(
        jnp.array([jnp.linalg.norm(neg.ravel()) for neg in nonempty_grads]))
    divisor = jnp.maximum(total_grad_norm / l2_norm_clip, 1.)
    normalized_nonempty_grads = [g / divisor for g in nonempty_grads]
    return jax.tree_util.tree_unflatten(tree_def, normalized_nonempty_grads)


def private_grad(params, batch, rng, l2_norm_clip, noise_multiplier, batch_size):
    """Return differentially private gradients for params, evaluated on batch."""
    clipped_grads = vmap(clipped_grad, (None, None, 0))(params, l2_norm_clip, batch)
    clipped_grads_flat, grads_treedef = jax.tree.flatten(clipped_grads)
    aggregated_clipped_grads = [g.sum(0) for g in clipped_grads_flat]
    rngs = random.split(rng, len(aggregated_clipped_grads))
    noised_aggregated_clipped_grads = [
        g + l2_norm_clip * noise_multiplier * random.normal(r, g.shape)
        for r, g in zip(rngs, aggregated_clipped_grads)]
    normalized_noised_aggregated_clipped_grads = [
        g / batch_size for g in noised_aggregated_clipped_grads]
    return jax.tree.unflatten(grads_treedef, normalized_noised_aggregated_clipped_grads)


def shape_as_image(images, labels, dummy_dim=False):
    target_shape = (-1, 1, 64) if dummy_dim else (-1, 64)
    return jnp.reshape(images, target_shape), labels


def main(num_epochs=8, batch_size=64, learning_rate=0.5, l2_norm_clip=1.5,
         noise_multiplier=0.5, seed=0, verbose=True):
    train_images, train_labels, test_images, test_labels = datasets.digits()
    num_train = train_images.shape[0]
    num_complete_batches, leftover = divmod(num_train, batch_size)
    num_batches = num_complete_batches + bool(leftover)
    key = random.key(seed)

    def data_stream():
        rng = npr.RandomState(seed)
        while True:
            perm = rng.permutation(num_train)
            for i in range(num_complete_batches):  # full batches only: one compiled shape
                batch_idx = perm[i * batch_size:(i + 1) * batch_size]
                yield train_images[batch_idx], train_labels[batch_idx]
    batches = data_stream()

    opt_init, opt_update, get_params = optimizers.sgd(learning_rate)

    @jit
    def private_update(rng, i, opt_state, batch):
        params = get_params(opt_state)
        rng = random.fold_in(rng, i)  # get new key for new random numbers
        return opt_update(
            i, private_grad(params, batch, rng, l2_norm_clip, noise_multiplier, batch_size),
            opt_state)

    _, init_params = init_random_params(key, (-1, 64))
    opt_state = opt_init(init_params)
    itercount = itertools.count()
    history = []
    for epoch in range(num_epochs):
        start_time = time.time()
        for _ in range(num_complete_batches):
            opt_state = private_update(key, next(itercount), opt_state,
                                       shape_as_image(*next(batches), dummy_dim=True))
        params = get_params(opt_state)
        test_acc = float(accuracy(params, shape_as_image(test_images, test_labels)))
        history.append(test_acc)
        if verbose:
            print(f"Epoch {epoch} in {time.time() - start_time:0.2f} sec, "
                  f"test accuracy {test_acc}")
    return {"history": history, "clipped_grad": clipped_grad, "params": get_params(opt_state),
            "private_update": private_update}


if __name__ == "__main__":
    main()
