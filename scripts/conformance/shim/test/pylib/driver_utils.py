# Stand-in for scylladb's test/pylib/driver_utils.py (CQL only; unused here).


def safe_driver_shutdown(cluster):
    cluster.shutdown()
