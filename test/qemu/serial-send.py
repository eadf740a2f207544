#!/usr/bin/env python3
"""Serial client of boot.sh --send: connects to QEMU's serial socket, waits
until PATTERN shows in the guest's output, types KEYS, then reads until
QEMU closes the socket (QEMU itself writes the log).

    serial-send.py SOCKET PATTERN KEYS [PATTERN KEYS ...]

Pairs are handled in order: each PATTERN is looked for in what the guest
printed after the previous KEYS were typed.
"""
import socket
import sys
import time


def connect(path):
    for _ in range(600):  # QEMU creates the socket when it starts
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return s
        except OSError:
            s.close()
            time.sleep(0.1)
    sys.exit("serial-send: cannot connect to " + path)


def main():
    path = sys.argv[1]
    pairs = [(sys.argv[i].encode(), sys.argv[i + 1].encode())
             for i in range(2, len(sys.argv) - 1, 2)]
    s = connect(path)
    seen = b""
    while True:
        data = s.recv(4096)
        if not data:
            return
        if pairs:
            seen = (seen + data)[-4096:]
            pattern, keys = pairs[0]
            if pattern in seen:
                s.sendall(keys)
                pairs.pop(0)
                seen = b""


if __name__ == "__main__":
    main()
