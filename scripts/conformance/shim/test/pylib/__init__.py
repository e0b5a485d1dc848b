# keyplan's stand-in for the parts of scylladb's test/ package that
# test/alternator imports (scripts/conformance/README.md); not ScyllaDB code.
