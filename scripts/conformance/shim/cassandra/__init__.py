# keyplan's stand-in for the CQL driver (cassandra-driver) that the
# Alternator suite's conftest imports to look up a Scylla role: there is no
# CQL here, so every connection fails with NoHostAvailable and the suite
# falls back to its placeholder credentials.


class ConsistencyLevel:
    ONE = 1
    LOCAL_QUORUM = 6
    LOCAL_SERIAL = 9
