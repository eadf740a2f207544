#!/usr/bin/env python3
"""Stops a guest at an address and runs monitor commands there.

    leak-gdb.py [--detach] SOCKET ADDRESS TIMEOUT COMMAND...

SOCKET is QEMU's gdbstub (-gdb chardev on a unix socket, QEMU started
with -S). Sets a hardware breakpoint at ADDRESS (hex, linear), continues
until the guest reaches it, then sends each COMMAND to the human monitor
through the stub (qRcmd) and prints its output; then kills the guest, or
with --detach lets it run on. The leak test stops at the kernel's entry
(paging is off there: linear = physical) to dump RAM and registers
exactly as handed over, and in the middle of the BIOS stage's link for
its control. Speaks just enough of the GDB remote protocol for that.
"""
import socket
import sys
import time


class Stub:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(path)
        self.buf = b""

    def send(self, payload):
        body = payload.encode()
        pkt = b"$" + body + b"#" + b"%02x" % (sum(body) & 0xFF)
        self.s.sendall(pkt)
        while True:  # the stub acknowledges every packet with + (or -)
            c = self.read_byte()
            if c == b"+":
                return
            if c == b"-":
                self.s.sendall(pkt)

    def read_byte(self):
        while not self.buf:
            chunk = self.s.recv(65536)
            if not chunk:
                raise ConnectionError("gdbstub closed")
            self.buf += chunk
        c, self.buf = self.buf[:1], self.buf[1:]
        return c

    def reply(self):
        while self.read_byte() != b"$":
            pass
        body = b""
        while True:
            c = self.read_byte()
            if c == b"#":
                break
            body += c
        self.read_byte()
        self.read_byte()  # checksum: a socket does not corrupt bytes
        self.s.sendall(b"+")
        return body.decode(errors="replace")


def main():
    args = sys.argv[1:]
    detach = args[:1] == ["--detach"]
    if detach:
        args = args[1:]
    path, addr, limit, cmds = args[0], args[1], float(args[2]), args[3:]
    st = Stub(path)
    st.send("Z1,%x,1" % int(addr, 16))
    if st.reply() != "OK":
        sys.exit("leak-gdb: the stub refused the breakpoint")
    st.s.settimeout(limit)
    st.send("c")
    stop = st.reply()
    if not stop.startswith(("T05", "S05")):
        sys.exit("leak-gdb: guest stopped with %s" % stop)
    st.s.settimeout(None)
    st.send("z1,%x,1" % int(addr, 16))
    st.reply()
    for cmd in cmds:
        st.send("qRcmd," + cmd.encode().hex())
        while True:
            r = st.reply()
            if r.startswith("O") and r != "OK":
                sys.stdout.write(bytes.fromhex(r[1:]).decode(errors="replace"))
                continue
            break
        if r != "OK" and not r == "":
            sys.exit("leak-gdb: %s: %s" % (cmd, r))
    if detach:
        st.send("D")
        st.reply()
    else:
        st.send("k")
        time.sleep(0.2)


if __name__ == "__main__":
    main()
