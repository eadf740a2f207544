#!/usr/bin/env python3
"""Runs QEMU human-monitor commands over a unix socket, one at a time.

    leak-monitor.py SOCKET OUT COMMAND...

Waits for each command's "(qemu) " prompt before sending the next, so
`dump-guest-memory` has finished writing when the next command runs; the
monitor's whole output goes to OUT (test/qemu/leak-tests.sh reads the
XMM registers from `info registers` there).
"""
import socket
import sys
import time

PROMPT = b"(qemu) "


def read_prompt(s, limit):
    data = b""
    end = time.time() + limit
    while not data.endswith(PROMPT):
        if time.time() > end:
            raise TimeoutError("no monitor prompt")
        chunk = s.recv(65536)
        if not chunk:
            raise ConnectionError("monitor closed")
        data += chunk
    return data


def wait_closed(s, limit):
    """QEMU closes the monitor when it quits; closing first may lose it."""
    s.settimeout(limit)
    try:
        while s.recv(65536):
            pass
    except (socket.timeout, ConnectionError):
        pass


def main():
    path, out, cmds = sys.argv[1], sys.argv[2], sys.argv[3:]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    log = read_prompt(s, 30)
    for cmd in cmds:
        s.sendall(cmd.encode() + b"\n")
        if cmd == "quit":
            wait_closed(s, 10)
            break
        log += read_prompt(s, 120)
    s.close()
    with open(out, "wb") as f:
        f.write(log)


if __name__ == "__main__":
    main()
