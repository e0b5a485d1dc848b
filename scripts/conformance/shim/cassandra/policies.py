# Stand-in for cassandra.policies (see __init__.py).


class RoundRobinPolicy:
    pass
