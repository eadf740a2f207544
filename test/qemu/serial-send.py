#!/usr/bin/env python3
"""Serial client of boot.sh --send: connects to QEMU's serial socket, waits
until PATTERN shows in the guest's output, types KEYS, then reads until
QEMU closes the socket (QEMU itself writes the log).

    serial-send.py SOCKET PATTERN KEYS
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
    path, pattern, keys = sys.argv[1], sys.argv[2].encode(), sys.argv[3].encode()
    s = connect(path)
    seen = b""
    sent = False
    while True:
        data = s.recv(4096)
        if not data:
            return
        if not sent:
            seen = (seen + data)[-4096:]
            if pattern in seen:
                s.sendall(keys)
                sent = True


if __name__ == "__main__":
    main()
