/// Helpers for tests: a real daemon in a throw-away cgroup, runtime and state directory.
