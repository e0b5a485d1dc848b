"""pytest plugin for scripts/conformance: which Alternator tests count, and
a JSON record of each one's outcome.

A test counts when it is written to pass on AWS DynamoDB: tests that need
Scylla itself (the scylla_only, rest_api and cql fixtures) and tests the
suite marks as failing on DynamoDB (the dynamodb_bug fixture) are
deselected. Everything else runs, with --runxfail (Alternator's own
known failures are still DynamoDB's behaviour).

Scylla's configuration hooks: some tests of DynamoDB behaviour wrap their
body in util.scylla_config_temporary(..., nop=is_aws(dynamodb)), which on
AWS does nothing and elsewhere writes Scylla's configuration table (which
no other engine has, so the test fails before it starts); the TTL expiry
tests first read Scylla's TTL sweep period with util.scylla_config_read
(on AWS they skip that read and need --runveryslow); the stream tests
compare a record's awsRegion with util.get_region, which reads Scylla's
data center name off AWS and the client's region on AWS. With
KEYPLAN_CONFORMANCE_AS_ON_AWS=1 (run.py's default) the hooks behave as
on AWS: scylla_config_temporary does nothing, and scylla_config_read
answers alternator_ttl_period_in_seconds with
KEYPLAN_CONFORMANCE_TTL_PERIOD (the engine's sweep period in seconds; an
engine without TTL expiry then fails those tests, as it would on AWS's
schedule), anything else with None (not set); and get_region answers
the client's region. The tests that call the
hooks without nop are Scylla-only (the scylla_only fixture: deselected).
"""
import contextlib
import json
import os

import pytest


def pytest_configure(config):
    if os.environ.get("KEYPLAN_CONFORMANCE_AS_ON_AWS") != "1":
        return
    # Patched before the suite's modules import these names.
    from test.alternator import util

    @contextlib.contextmanager
    def scylla_config_temporary(dynamodb, name, value, nop=False):
        yield

    def scylla_config_read(dynamodb, name):
        if name == "alternator_ttl_period_in_seconds":
            return os.environ.get("KEYPLAN_CONFORMANCE_TTL_PERIOD")
        return None

    def get_region(dynamodb):
        return dynamodb.meta.client.meta.region_name

    util.scylla_config_temporary = scylla_config_temporary
    util.get_region = get_region
    util.scylla_config_read = scylla_config_read

SCYLLA_FIXTURES = {"scylla_only", "rest_api", "cql", "dynamodb_bug"}

_results = {}


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    keep, drop = [], []
    for item in items:
        if SCYLLA_FIXTURES & set(getattr(item, "fixturenames", ())):
            drop.append(item)
            continue
        # The suite marks skips by environment with its own marker.
        for mark in item.iter_markers("skip_env"):
            item.add_marker(pytest.mark.skip(reason=mark.kwargs.get("reason", "skip_env")))
        keep.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
    items[:] = keep


def pytest_runtest_logreport(report):
    # An error in setup or teardown is a failure of the test.
    prev = _results.get(report.nodeid)
    if report.failed:
        outcome = "failed"
    elif report.skipped:
        # The suite skips every test after the server stopped answering
        # ("Server down"): the runner restarts the engine and runs those.
        outcome = "down" if "Server down" in str(report.longrepr) else "skipped"
    elif report.when == "call":
        outcome = "passed"
    else:
        return
    if prev == "failed":
        return
    if prev == "passed" and outcome in ("skipped", "down"):
        return
    _results[report.nodeid] = outcome


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("KEYPLAN_CONFORMANCE_OUT")
    if path:
        with open(path, "w") as f:
            json.dump(_results, f, indent=0, sort_keys=True)
