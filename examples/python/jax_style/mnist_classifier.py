"""A classifier built with stax's combinators and trained with the optimizers library's
momentum, as JAX's examples/mnist_classifier.py (dense layers, the digits set): only the
imports differ.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/jax_style/mnist_classifier.py
"""
import itertools
import time

import numpy.random as npr

import strata.numpy as jnp
from strata import jit, grad, random
from strata.example_libraries import optimizers
from strata.example_libraries import stax
from strata.example_libraries.stax import Dense, Relu, LogSoftmax

import datasets


def loss(params, batch, predict):
    inputs, targets = batch
    preds = predict(params, inputs)
    return -jnp.mean(jnp.sum(preds * targets, axis=1))


def accuracy(params, batch, predict):
    inputs, targets = batch
    target_class = jnp.argmax(targets, axis=1)
    predicted_class = jnp.argmax(predict(params, inputs), axis=1)
    return jnp.mean(predicted_class == target_class)


def main(num_epochs=10, step_size=0.05, batch_size=128, momentum_mass=0.9, verbose=True):
    # step_size: JAX's example takes 0.001 over MNIST's 469 batches an epoch; digits has 12.
    rng = random.key(0)
    init_random_params, predict = stax.serial(
        Dense(256), Relu,
        Dense(256), Relu,
        Dense(10), LogSoftmax)

    train_images, train_labels, test_images, test_labels = datasets.digits()
    num_train = train_images.shape[0]
    num_complete_batches, leftover = divmod(num_train, batch_size)
    num_batches = num_complete_batches + bool(leftover)

    def data_stream():
        rng = npr.RandomState(0)
        while True:
            perm = rng.permutation(num_train)
            for i in range(num_batches):
                batch_idx = perm[i * batch_size:(i + 1) * batch_size]
                yield train_images[batch_idx], train_labels[batch_idx]
    batches = data_stream()

    opt_init, opt_update, get_params = optimizers.momentum(step_size, mass=momentum_mass)

    @jit
    def update(i, opt_state, batch):
        params = get_params(opt_state)
        return opt_update(i, grad(loss)(params, batch, predict), opt_state)

    _, init_params = init_random_params(rng, (-1, 64))
    opt_state = opt_init(init_params)
    itercount = itertools.count()
    history = []
    for epoch in range(num_epochs):
        start_time = time.time()
        for _ in range(num_batches):
            opt_state = update(next(itercount), opt_state, next(batches))
        epoch_time = time.time() - start_time
        params = get_params(opt_state)
        train_acc = float(accuracy(params, (train_images, train_labels), predict))
        test_acc = float(accuracy(params, (test_images, test_labels), predict))
        history.append((train_acc, test_acc))
        if verbose:
            print(f"Epoch {epoch} in {epoch_time:0.2f} sec")
            print(f"Training set accuracy {train_acc}")
            print(f"Test set accuracy {test_acc}")
    return {"history": history, "update": update}


if __name__ == "__main__":
    main()
