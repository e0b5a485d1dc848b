# Stand-in for scylladb's test/conftest.py: only what test/alternator uses.


def dynamic_scope():
    # One engine per run: fixtures (tables) live for the whole session.
    return "session"
