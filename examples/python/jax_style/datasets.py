"""The handwritten digits that python3-sklearn ships (8x8 images, 10 classes), in the form JAX's
examples/datasets.py gives MNIST: flattened float32 images in [0, 1] and one-hot labels."""

import gzip

import numpy as np

DIGITS = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"


def digits(test_fraction=0.2, seed=0):
    """(train_images, train_labels, test_images, test_labels), labels one-hot float32."""
    with gzip.open(DIGITS, "rt") as f:
        data = np.loadtxt(f, delimiter=",", dtype=np.float32)
    x, y = data[:, :-1] / 16.0, data[:, -1].astype(np.int64)
    onehot = np.eye(10, dtype=np.float32)[y]
    perm = np.random.default_rng(seed).permutation(len(x))
    n_test = int(len(x) * test_fraction)
    test, train = perm[:n_test], perm[n_test:]
    return x[train], onehot[train], x[test], onehot[test]
