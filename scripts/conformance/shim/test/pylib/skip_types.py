# Stand-in for scylladb's test/pylib/skip_types.py: an environment skip is
# a plain pytest skip.
import pytest


def skip_env(reason):
    pytest.skip(reason)


def skip_bug(*, link, reason):
    # A known bug's skip (scylladb's checks the link's form): a plain skip.
    pytest.skip(f"{reason} ({link})")
