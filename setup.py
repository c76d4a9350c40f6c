"""Build the fairymax package: every fairymax/*.pyx becomes a C extension.

Hot modules set boundscheck/wraparound off in their own header line; cold ones keep
Cython's safe defaults.  The C code is compiled for the building machine's processor
(-march=native: 3-4% more nodes/s here); FAIRYMAX_PORTABLE=1 leaves that out, for a
build that is to run on other machines.  FAIRYMAX_DEBUG=1 builds without
optimisation, with symbols.
"""
import os
from glob import glob

import shutil

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_py import build_py

DEBUG = os.environ.get("FAIRYMAX_DEBUG") == "1"
PORTABLE = os.environ.get("FAIRYMAX_PORTABLE") == "1"

directives = {"language_level": 3}

extensions = [
    Extension(
        path[:-4].replace(os.sep, "."),
        [path],
        extra_compile_args=["-O0", "-g"] if DEBUG else ["-O3"] + ([] if PORTABLE else ["-march=native"]),
    )
    for path in sorted(glob(os.path.join("fairymax", "*.pyx")))
]



class BuildWithVariantFile(build_py):
    """Put the top-level pieces.ini into the built package, where an installed engine
    finds it (loader.default_ini_path); a source checkout reads it from the top level."""

    def run(self):
        super().run()
        if not self.editable_mode:
            shutil.copy("pieces.ini", os.path.join(self.build_lib, "fairymax", "pieces.ini"))


setup(
    name="fairymax",
    version="0.1.0",
    description="XBoard chess-variant engine in the style of Fairy-Max, with a Cython core",
    packages=["fairymax"],
    package_data={"fairymax": ["*.pxd", "*.pyx", "weights/*.txt"]},
    cmdclass={"build_py": BuildWithVariantFile},
    ext_modules=cythonize(extensions, compiler_directives=directives, annotate=False),
    python_requires=">=3.9",
    extras_require={"test": ["pytest", "chess", "pyffish", "Cython>=3.0", "numpy"], "tune": ["numpy"]},
    entry_points={"console_scripts": ["fairymax=fairymax.__main__:main"]},
)
