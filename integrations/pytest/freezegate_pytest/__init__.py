"""pytest-freezegate: apply freezegate's freeze ledger inside pytest.

Load it with ``-p freezegate_pytest`` (``freezegate init pytest`` adds that to the pytest
configuration) or install the package (its ``pytest11`` entry point loads it). With a
ledger (``freeze-ledger.json`` in the rootdir by default) frozen tests keep running but do
not gate, an applied record says what was frozen, and a samples artifact says how many
distinct inputs each property test ran on. ``record(value)`` counts an input for property
tests that Hypothesis does not drive. See README.md next to this package.
"""

from .inputs import record
from .plugin import (
    pytest_addoption,
    pytest_configure,
)

__version__ = "0.1.0"

__all__ = ["record", "__version__", "pytest_addoption", "pytest_configure"]
