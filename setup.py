"""pip's entry: builds Strata with CMake (scripts/build, into $STRATA_BUILD_DIR or build/) and
puts the package into the wheel as CMake's `wheel` install component lays it out: the Python
sources, the extension and the libraries it loads beside it (run path $ORIGIN)."""

import os
import shutil
import subprocess
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = os.path.dirname(os.path.abspath(__file__))


class BuildWithCMake(build_py):
    def run(self):
        build = os.environ.get("STRATA_BUILD_DIR", os.path.join(ROOT, "build"))
        env = dict(os.environ, STRATA_BUILD_DIR=build)
        subprocess.check_call([os.path.join(ROOT, "scripts", "build"), "strata_python"], env=env)
        dest = os.path.join(self.build_lib, "strata")
        shutil.rmtree(dest, ignore_errors=True)
        with tempfile.TemporaryDirectory() as stage:
            subprocess.check_call(["cmake", "--install", build, "--prefix", stage,
                                   "--component", "wheel"], stdout=subprocess.DEVNULL)
            # A wheel holds no symbolic links: keep each library once, under its soname.
            shutil.copytree(os.path.join(stage, "strata"), dest, symlinks=False,
                            ignore=lambda d, names: [n for n in names if _versioned(d, n)])


def _versioned(folder, name):
    """True for libX.so.0.1.0 when libX.so.0 (the soname the loader asks for) stands beside it."""
    parts = name.split(".so.")
    return len(parts) == 2 and parts[1].count(".") > 0 and \
        os.path.lexists(os.path.join(folder, parts[0] + ".so." + parts[1].split(".")[0]))


class BinaryDistribution(Distribution):
    """The wheel carries compiled code: tag it for this platform and Python."""

    def has_ext_modules(self):
        return True


setup(packages=["strata"], package_dir={"": "python"},
      cmdclass={"build_py": BuildWithCMake}, distclass=BinaryDistribution,
      options={"build": {"build_base": os.path.join("build", "setuptools")},
               "egg_info": {"egg_base": os.path.join("build", "setuptools")}})
