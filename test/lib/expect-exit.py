#!/usr/bin/env python3
"""Run a command and require a given exit status.

Usage: expect-exit.py [--timeout SECONDS] CODE -- COMMAND [ARGS...]

The command's stdout and stderr are passed through unchanged (it inherits
them). Exits 0 iff the command exited normally with status CODE. Otherwise it
prints what happened to stderr and exits 1:
  - "expect-exit: expected exit status CODE, got N"
  - "expect-exit: crashed with signal N (SIGNAME)"   (killed by a signal)
  - "expect-exit: hung: no exit after S seconds"     (timeout, default 60 s)
  - "expect-exit: cannot run 'CMD': REASON"
Usage errors of this script itself exit 2.
"""

import os
import signal
import subprocess
import sys


def usage(msg):
    sys.stderr.write("expect-exit: %s\n" % msg)
    sys.stderr.write(
        "usage: expect-exit.py [--timeout SECONDS] CODE -- COMMAND [ARGS...]\n")
    sys.exit(2)


def parse_args(argv):
    timeout = 60.0
    i = 0
    while i < len(argv) and argv[i].startswith("--timeout"):
        arg = argv[i]
        if arg == "--timeout":
            if i + 1 >= len(argv):
                usage("--timeout needs a value")
            value = argv[i + 1]
            i += 2
        elif arg.startswith("--timeout="):
            value = arg[len("--timeout="):]
            i += 1
        else:
            usage("unknown option '%s'" % arg)
        try:
            timeout = float(value)
        except ValueError:
            usage("invalid timeout '%s'" % value)
        if timeout <= 0:
            usage("invalid timeout '%s'" % value)
    if i >= len(argv):
        usage("missing CODE")
    try:
        code = int(argv[i])
    except ValueError:
        usage("invalid exit code '%s'" % argv[i])
    i += 1
    if i >= len(argv) or argv[i] != "--":
        usage("missing '--' before the command")
    cmd = argv[i + 1:]
    if not cmd:
        usage("missing command")
    return timeout, code, cmd


def signal_name(num):
    try:
        return signal.Signals(num).name
    except ValueError:
        return "unknown signal"


def main():
    timeout, code, cmd = parse_args(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        # A new session, so that on timeout the whole process group goes.
        proc = subprocess.Popen(cmd, start_new_session=True)
    except OSError as e:
        sys.stderr.write("expect-exit: cannot run '%s': %s\n" %
                         (cmd[0], e.strerror or e))
        return 1
    try:
        status = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            proc.kill()
        proc.wait()
        sys.stderr.write("expect-exit: hung: no exit after %g seconds\n" %
                         timeout)
        return 1
    if status < 0:
        sys.stderr.write("expect-exit: crashed with signal %d (%s)\n" %
                         (-status, signal_name(-status)))
        return 1
    if status != code:
        sys.stderr.write("expect-exit: expected exit status %d, got %d\n" %
                         (code, status))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
