"""Every public name of the JAX namespaces in test/python/jax_names/ either exists in Strata or
is listed in docs/jax-differences.md ("Names not provided"): scripts/jax-coverage --check."""

import importlib.machinery
import importlib.util
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "jax-coverage")


def load_script():
    loader = importlib.machinery.SourceFileLoader("jax_coverage", SCRIPT)
    spec = importlib.util.spec_from_loader("jax_coverage", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


jc = load_script()


def test_name_lists_are_sorted_sourced_and_clean():
    lists = os.listdir(jc.NAMES_DIR)
    assert "jax.numpy.txt" in lists and "jax.lax.txt" in lists
    for fn in lists:
        lines = open(os.path.join(jc.NAMES_DIR, fn)).read().splitlines()
        assert lines[0].startswith("# jax") and ("@" in lines[0] or "file id" in lines[0]), fn
        names = [ln for ln in lines if not ln.startswith("#")]
        assert names == sorted(set(names)), f"{fn}: not sorted or has duplicates"
        assert all(re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", n) for n in names), fn
        if fn == "jax.lax.txt":
            assert not [n for n in names if n.endswith("_p")], "lax lists primitive objects"


def test_lookup_follows_strata_namespaces():
    import strata.numpy
    assert jc.strata_object("jax.numpy.sum") is strata.numpy.sum
    assert jc.strata_object("jax.numpy.no_such_name") is jc._ABSENT
    assert jc.strata_object("jax.no_such_module.sum") is jc._ABSENT
    # A foreign module reached through an attribute is not a Strata namespace.
    assert jc.strata_object("jax._np") is jc._ABSENT
    # A name whose value is None (numpy's newaxis) is still provided.
    if hasattr(strata.numpy, "newaxis"):
        assert jc.strata_object("jax.numpy.newaxis") is None


def test_mention_conventions(tmp_path, monkeypatch):
    doc = tmp_path / "jax-differences.md"
    doc.write_text(
        "# Differences\n`jnp.not_in_section` is discussed here.\n\n"
        "## Names not provided\n"
        "Prose, not a list item: `jnp.prose_name`, `jnp.`\n"
        "- `jax.numpy.fft.*`: complex numbers (issue 16)\n"
        "- `jnp.float8_*`, `lax.psum()`: reasons\n"
        "- `pmap`: multi-device\n"
        "\n## Next section\n`jnp.after_section`\n")
    monkeypatch.setattr(jc, "DOC", str(doc))
    m = jc.doc_mentions()
    assert m == {"jax.numpy.fft.*", "jax.numpy.float8_*", "jax.lax.psum", "pmap"}
    assert jc.is_listed("jax.numpy.fft", m)            # X.* covers X itself
    assert jc.is_listed("jax.numpy.fft.rfft", m)       # ... and what it contains
    assert jc.is_listed("jax.numpy.float8_e5m2", m)    # a glob
    assert jc.is_listed("jax.lax.psum", m)             # an alias, `()` dropped
    assert jc.is_listed("jax.pmap", m)                 # a bare name
    assert not jc.is_listed("jax.numpy.fftfreq", m)
    assert not jc.is_listed("jax.lax.psum_scatter", m)
    assert not jc.is_listed("jax.numpy.not_in_section", m)
    assert not jc.is_listed("jax.numpy.after_section", m)
    assert not jc.is_listed("jax.numpy.prose_name", m)


def test_check_fails_on_unlisted_and_stale_names(tmp_path, monkeypatch, capsys):
    doc = tmp_path / "jax-differences.md"
    doc.write_text("## Names not provided\n- `jnp.sum`: wrongly listed\n")
    monkeypatch.setattr(jc, "DOC", str(doc))
    monkeypatch.setattr(sys, "argv", ["jax-coverage", "--check"])
    with pytest.raises(SystemExit) as e:
        jc.main()
    msg = str(e.value)
    assert "lists names Strata provides:\n  jax.numpy.sum" in msg
    if any(missing for _, _, missing in jc.coverage()):
        assert "are not listed" in msg


@pytest.mark.skipif(not os.path.exists(jc.DOC), reason="docs/jax-differences.md not written yet")
def test_every_missing_name_is_documented():
    r = subprocess.run([sys.executable, SCRIPT, "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
