"""strata.config: JAX's configuration object (`strata.config.update("jax_enable_x64", True)`,
`strata.config.jax_enable_x64`). Each option has a default, an environment variable read once at
import (STRATA_<NAME> first, then JAX's JAX_<NAME>), and an optional hook that carries the value
into the C++ core when it changes."""

import os as _os

_TRUE = ("1", "true", "yes", "on")


class Config:
    """The option table; options are declared by the modules that use them (define())."""

    def __init__(self):
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_hooks", {})
        object.__setattr__(self, "_help", {})
        object.__setattr__(self, "_key", None)

    def define(self, name, default, help="", hook=None):
        """Declares option `name` (a jax_* name); the environment may override its default."""
        self._help[name] = help
        if hook is not None:
            self._hooks[name] = hook
        value = default
        short = name[4:] if name.startswith("jax_") else name
        for var in ("STRATA_" + short.upper(), "JAX_" + short.upper()):
            if var in _os.environ:
                value = _parse(_os.environ[var], default)
                break
        self._set(name, value)

    def _set(self, name, value):
        self._values[name] = value
        object.__setattr__(self, "_key", None)
        hook = self._hooks.get(name)
        if hook is not None:
            hook(value)

    def update(self, name, value):
        """Sets option `name` (as jax.config.update)."""
        if name not in self._values:
            raise AttributeError(f"[config] unknown option {name!r}; known: "
                                 f"{', '.join(sorted(self._values))}")
        self._set(name, _parse(value, self._values[name]) if isinstance(value, str) and
                  isinstance(self._values[name], bool) else value)

    def read(self, name):
        return getattr(self, name)

    def __getattr__(self, name):
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"[config] unknown option {name!r}") from None

    def __setattr__(self, name, value):
        raise AttributeError("[config] use config.update(name, value)")

    def trace_key(self):
        """Every option's value as one hashable tuple (cached until an option changes): part of
        jit's cache key, since options change what tracing produces (as in JAX)."""
        if self._key is None:
            object.__setattr__(self, "_key", tuple(sorted(self._values.items())))
        return self._key

    def values(self):
        """A copy of every option and its value."""
        return dict(self._values)

    def __repr__(self):
        return "Config(" + ", ".join(f"{k}={v!r}" for k, v in sorted(self._values.items())) + ")"


def _parse(text, default):
    if isinstance(default, bool) and isinstance(text, str):
        return text.strip().lower() in _TRUE
    if isinstance(default, int) and not isinstance(default, bool) and isinstance(text, str):
        return int(text)
    return text


config = Config()
