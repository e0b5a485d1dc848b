# Stand-in for cassandra.cluster (see __init__.py): no CQL host is ever
# available.
from cassandra import ConsistencyLevel  # noqa: F401 (re-exported as the driver does)


class NoHostAvailable(Exception):
    pass


EXEC_PROFILE_DEFAULT = object()


class ExecutionProfile:
    def __init__(self, *args, **kwargs):
        pass


class Cluster:
    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def connect(self, *args, **kwargs):
        raise NoHostAvailable("no CQL in keyplan's conformance run")

    def shutdown(self):
        pass
