"""strata.scipy.stats (jax.scipy.stats's names): log-densities, densities, CDFs and quantiles
of the common distributions, one module per distribution as in JAX."""

from strata.scipy.stats import (  # noqa: F401
    bernoulli, beta, binom, cauchy, chi2, dirichlet, expon, gamma, geom, laplace, logistic,
    multivariate_normal, norm, pareto, poisson, t, truncnorm, uniform)
