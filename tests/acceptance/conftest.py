"""The end-to-end tests' `suite`: a plugin with an eval suite in the test's pytester folder (helpers.e2e)."""

from __future__ import annotations

import pytest
from helpers.e2e import Suite


@pytest.fixture
def suite(pytester: pytest.Pytester) -> Suite:
    return Suite(pytester)
