#!/usr/bin/env python3
"""Runs a command on a pseudo-terminal (so that fabricsim's progress bar draws) and prints, at
its first output, the wall time since the spawn and the CPU time the child had used by then
(from /proc), then stops it with SIGINT. Used by bench/streaming.sh progress.

Usage: bench/first_progress.py COMMAND [ARG ...]"""
import os
import pty
import select
import signal
import sys
import time

if len(sys.argv) < 2:
    sys.exit(__doc__)
start = time.monotonic()
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])


def cpu_seconds():
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


reported = False
while True:
    ready, _, _ = select.select([fd], [], [], 0.01)
    if not ready:
        continue
    try:
        chunk = os.read(fd, 4096)
    except OSError:  # the child closed the terminal
        break
    if not chunk:
        break
    if not reported and chunk.strip():
        line = chunk.replace(b"\r", b" ").strip()[:100].decode("utf-8", "replace")
        print(f"first output {time.monotonic() - start:.3f} s after the spawn, "
              f"{cpu_seconds():.2f} s of the child's CPU: {line}", flush=True)
        reported = True
        os.kill(pid, signal.SIGINT)
os.waitpid(pid, 0)
