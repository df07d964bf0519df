"""Task types: each kind of chat task is one package here (a Django app), holding everything that is
particular to it and registering itself with collect.registry when Django loads it. The core of
collect asks the registry and names no task type."""
