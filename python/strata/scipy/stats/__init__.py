"""strata.scipy.stats (jax.scipy.stats's names): log-densities, densities, CDFs and quantiles
of the common distributions, one module per distribution as in JAX."""

from strata.scipy.stats import (  # noqa: F401
    bernoulli, beta, betabinom, binom, cauchy, chi2, dirichlet, expon, gamma, geom, gumbel_l,
    gumbel_r, laplace, logistic, multinomial, multivariate_normal, nbinom, norm, pareto,
    poisson, t, truncnorm, uniform, vonmises)
