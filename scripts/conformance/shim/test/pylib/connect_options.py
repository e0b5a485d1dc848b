# Stand-in for scylladb's test/pylib/connect_options.py.
from functools import cache


@cache
def add_host_option(parser):
    parser.addoption("--host", default="localhost", help="a DB server host")
