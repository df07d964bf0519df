"""supervisord's event listener in `make run-prod` (the `alerts` program of supervisord.conf).

A program that keeps dying within its startsecs is throttled by supervisord (1 s, 2 s, 3 s between
tries) and, after STARTRETRIES failed starts, left stopped in the FATAL state: the site runs without
it until someone acts. That must not go unseen, so this listener writes a loud line to the log for
every FATAL program, and one line for every process that died unexpectedly (supervisord restarts
those). With GROUNDWORK_ALERT_COMMAND set, it also runs that shell command for a FATAL program,
with GROUNDWORK_ALERT_PROGRAM and GROUNDWORK_ALERT_MESSAGE in its environment (a mail, a pager's
webhook). `make status-prod` exits non-zero while any program is not RUNNING."""

from __future__ import annotations

import os
import subprocess
import sys

from supervisor import childutils

ALERT_TIMEOUT_S = 30


def message_for(event: str, process: dict[str, str]) -> str | None:
    name = process.get("processname", "?")
    if event == "PROCESS_STATE_FATAL":
        return (f"GROUNDWORK ALERT: {name} is FATAL: it kept exiting within its startsecs and supervisord has "
                f"stopped restarting it. Read its last lines above, fix the cause, then "
                f"`supervisorctl -c var/prod/supervisord.conf start {name}` (or `make restart-prod`).")
    if event == "PROCESS_STATE_EXITED" and process.get("expected") == "0":
        return f"groundwork: {name} (pid {process.get('pid', '?')}) died unexpectedly; supervisord restarts it"
    return None


def alert(name: str, message: str) -> None:
    # Read here, not in settings: supervisord runs this listener as a plain Python program, without
    # Django (tests/test_configuration.py allows this module).
    command = os.environ.get("GROUNDWORK_ALERT_COMMAND", "").strip()
    if not command:
        return
    env = {**os.environ, "GROUNDWORK_ALERT_PROGRAM": name, "GROUNDWORK_ALERT_MESSAGE": message}
    try:
        subprocess.run(command, shell=True, env=env, timeout=ALERT_TIMEOUT_S, stdout=sys.stderr, stderr=sys.stderr)
    except subprocess.TimeoutExpired:
        print(f"groundwork: GROUNDWORK_ALERT_COMMAND took over {ALERT_TIMEOUT_S} s and was stopped", file=sys.stderr, flush=True)


def main() -> None:
    # stdout is supervisord's protocol channel; what people read goes to stderr (the log).
    while True:
        headers, payload = childutils.listener.wait(sys.stdin, sys.stdout)
        process, _ = childutils.eventdata(payload + "\n")
        message = message_for(headers["eventname"], process)
        if message:
            print(message, file=sys.stderr, flush=True)
            if headers["eventname"] == "PROCESS_STATE_FATAL":
                alert(process.get("processname", "?"), message)
        childutils.listener.ok(sys.stdout)


if __name__ == "__main__":
    main()
