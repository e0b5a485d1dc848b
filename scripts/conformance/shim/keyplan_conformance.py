"""pytest plugin for scripts/conformance: which Alternator tests count, and
a JSON record of each one's outcome.

A test counts when it is written to pass on AWS DynamoDB: tests that need
Scylla itself (the scylla_only, rest_api and cql fixtures) and tests the
suite marks as failing on DynamoDB (the dynamodb_bug fixture) are
deselected. Everything else runs, with --runxfail (Alternator's own
known failures are still DynamoDB's behaviour).
"""
import json
import os

import pytest

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
