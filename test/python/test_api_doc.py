"""docs/api.md lists the package's public names: regenerate it (scripts/gen-api-doc) when a name
is added or removed."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_api_doc_is_current():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen-api-doc"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
