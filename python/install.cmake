# Installing the Python package. Two layouts:
# - with the prefix (`cmake --install`): <prefix>/lib/python3.X/dist-packages/strata, the
#   extension finding libstrata* in <prefix>/lib through its run path; Debian's python3 searches
#   /usr/local/lib/python3.X/dist-packages, so the default prefix needs no PYTHONPATH;
# - self-contained (component `wheel`, left out of a plain install): the package with the
#   libraries beside the extension, which setup.py (pip install .) puts in the wheel.
set(STRATA_PYTHON_INSTALL_DIR
    "lib/python${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}/dist-packages"
    CACHE STRING "Where cmake --install puts the Python package, relative to the prefix")
set_property(TARGET strata_core APPEND PROPERTY INSTALL_RPATH "$ORIGIN" "$ORIGIN/../../..")

install(TARGETS strata_core LIBRARY DESTINATION ${STRATA_PYTHON_INSTALL_DIR}/strata)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/strata/ DESTINATION ${STRATA_PYTHON_INSTALL_DIR}/strata
        FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)

install(TARGETS strata_core LIBRARY DESTINATION strata COMPONENT wheel EXCLUDE_FROM_ALL)
install(TARGETS strata strata_jit strata_cuda LIBRARY DESTINATION strata COMPONENT wheel
        NAMELINK_SKIP EXCLUDE_FROM_ALL)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/strata/ DESTINATION strata COMPONENT wheel
        EXCLUDE_FROM_ALL FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
