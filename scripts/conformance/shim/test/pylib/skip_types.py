# Stand-in for scylladb's test/pylib/skip_types.py: an environment skip is
# a plain pytest skip.
import pytest


def skip_env(reason):
    pytest.skip(reason)
