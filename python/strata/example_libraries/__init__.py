"""strata.example_libraries: jax.example_libraries' small neural-network (stax) and optimizer
(optimizers) libraries, with the same names and calling conventions, so programs written
against them run after changing their imports."""
