#!/usr/bin/env python3
"""Runs tests/fake_api.py unchanged (same arguments), except that every accepted connection
gets TCP_NODELAY, as Go's net/http (and so kube-apiserver) sets on every TCP connection.

Python's http.server leaves Nagle's algorithm on. A paged client then often waits for the
tail of each response until the kernel's delayed ACK fires (about 40 ms on Linux), which
the real API server never makes it do. run.py uses this only with --nodelay.
"""
import os
import runpy
import socket
import socketserver
import sys

FAKE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "fake_api.py")
_get_request = socketserver.TCPServer.get_request


def _get_request_nodelay(self):
    conn, addr = _get_request(self)
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return conn, addr


if __name__ == "__main__":
    socketserver.TCPServer.get_request = _get_request_nodelay
    sys.argv = [FAKE] + sys.argv[1:]
    runpy.run_path(FAKE, run_name="__main__")
