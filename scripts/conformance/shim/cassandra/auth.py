# Stand-in for cassandra.auth (see __init__.py).


class PlainTextAuthProvider:
    def __init__(self, username=None, password=None):
        self.username, self.password = username, password
