"""Shared set-up for the plugin's own tests (run with ``-p pytester``).

The plugin is used from this source tree, not from an installed copy: the package directory
goes on ``sys.path`` for in-process pytester runs and on ``PYTHONPATH`` for subprocess runs
(pytest-xdist workers, the installation test). Every run gets a fixed ``today`` through the
command line unless a test says otherwise, so expiry never depends on the calendar.
"""

import sys
from pathlib import Path

import pytest

PACKAGE_DIR = Path(__file__).resolve().parent.parent
if str(PACKAGE_DIR) not in sys.path:
    sys.path.insert(0, str(PACKAGE_DIR))


@pytest.fixture(scope="session", autouse=True)
def _hypothesis_home(tmp_path_factory):
    # Hypothesis fixed its storage directory (".hypothesis" in the directory this suite was
    # started from) when it was imported; in-process pytester runs must not write there.
    try:
        from hypothesis import configuration
    except ImportError:
        return
    configuration.set_hypothesis_home_dir(str(tmp_path_factory.mktemp("hypothesis-home")))


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(PACKAGE_DIR))
    monkeypatch.delenv("FREEZEGATE_NOW", raising=False)
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")

# Imported once here, so that in-process pytester runs (which restore sys.modules after each
# run) share this module object with the tests that import it.
import freezegate_pytest  # noqa: E402,F401
