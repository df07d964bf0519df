"""The rules of a chat room that a task type gives (base.Protocol); the task type's package holds
its own (collect/tasktypes/<name>/protocol.py) and collect.registry finds it by name."""
