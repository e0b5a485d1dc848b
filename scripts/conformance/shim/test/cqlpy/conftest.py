# Stand-in for scylladb's test/cqlpy/conftest.py: the "host" fixture only.
import pytest


@pytest.fixture(scope="session")
def host(request):
    return request.config.getoption("--host")
