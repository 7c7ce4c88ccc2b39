#!/usr/bin/env python3
"""Two small tunnelling proxies for the kubeconfig tests (a cluster's proxy-url): an HTTP
CONNECT proxy and a SOCKS5 proxy (RFC 1928, no authentication, CONNECT only, to an IPv4
address, an IPv6 address or a domain name). Standard library only; binds 127.0.0.1, port 0;
tunnels only to loopback addresses and "localhost" (anything else is refused, a name without
being looked up: the tests must not reach beyond this machine). Each tunnel copies bytes both
ways until either side closes.

usage: proxies.py {http,socks5} --port-file F [--log LOG.jsonl] [--max-seconds N]
  --port-file F     write the chosen port to F (atomically) once listening [required]
  --log LOG.jsonl   one JSON line per tunnel asked for, written before any byte is tunnelled:
                    time, kind ("http" or "socks5"), target ("host:port" as the client asked,
                    an IPv6 host in brackets), address_type (socks5: "ipv4", "ipv6" or
                    "domain"; http: "authority"), result ("ok", or why it was refused:
                    "not loopback", "connect failed: ...", "bad request", "unsupported
                    command N", "unsupported address type N")
  --max-seconds N   exit by itself after N seconds (default 300)
The HTTP proxy answers CONNECT host:port with "200 Connection established" (then tunnels),
anything else with 405; a target it cannot reach gets 502, one not on loopback 403. The
SOCKS5 proxy replies as RFC 1928 says (0x02 not allowed, 0x05 refused, 0x07 command not
supported, 0x08 address type not supported). SIGTERM/SIGINT stop it with exit status 0.
"""
import argparse
import ipaddress
import os
import select
import socket
import socketserver
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fake_api  # noqa: E402

HEAD_LIMIT = 64 * 1024
CONNECT_SECONDS = 10
SETUP_SECONDS = 10  # a client that does not finish asking for its tunnel is dropped


class Refused(Exception):
    """A tunnel not set up: the log's result and the reply code of the protocol."""

    def __init__(self, result, code):
        super().__init__(result)
        self.result, self.code = result, code


class Log(fake_api.RequestLog):
    """The fakes' request log, with a line per tunnel instead of one per request."""

    def __init__(self, path):
        super().__init__(path, False)

    def write(self, **rec):
        self.append(dict({"time": round(time.time(), 6)}, **rec))


def connect_loopback(host, port):
    """A connected socket to host:port when host is a loopback address or "localhost" (other
    names are refused unresolved: no DNS query leaves this machine); raises Refused."""
    try:
        literal = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        literal = None
    if (literal is None and host.lower().rstrip(".") != "localhost") or \
            (literal is not None and not literal.is_loopback):
        raise Refused("not loopback", "forbidden")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as e:
        raise Refused("connect failed: %s" % e, "unreachable")
    if not infos or not all(ipaddress.ip_address(i[4][0].split("%")[0]).is_loopback
                            for i in infos):
        raise Refused("not loopback", "forbidden")
    try:
        return socket.create_connection((host, port), timeout=CONNECT_SECONDS)
    except OSError as e:
        raise Refused("connect failed: %s" % (e.strerror or e), "refused")


def relay(a, b, stopping):
    """Copies bytes between sockets a and b until either side closes (or the server stops)."""
    a.settimeout(None)
    b.settimeout(None)
    peers = {a: b, b: a}
    while not stopping.is_set():
        readable, _, _ = select.select([a, b], [], [], 0.2)
        for sock in readable:
            try:
                data = sock.recv(65536)
            except OSError:
                return
            if not data:
                return
            try:
                peers[sock].sendall(data)
            except OSError:
                return


def recv_exact(sock, n):
    data = b""
    while len(data) < n:
        part = sock.recv(n - len(data))
        if not part:
            raise Refused("bad request", "general")
        data += part
    return data


class HttpConnectHandler(socketserver.BaseRequestHandler):
    kind = "http"

    def handle(self):
        sock = self.request
        sock.settimeout(SETUP_SECONDS)
        try:
            head, rest = self._read_head(sock)
        except (OSError, Refused):
            return
        line = head.split(b"\r\n", 1)[0].decode("latin-1")
        parts = line.split()
        if len(parts) != 3 or parts[0] != "CONNECT":
            self.server.log.write(kind=self.kind, target=parts[1] if len(parts) > 1 else "",
                                  address_type="authority", result="bad request")
            self._answer(sock, "405 Method Not Allowed", "only CONNECT is served\n")
            return
        target = parts[1]
        host, sep, port = target.rpartition(":")
        host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
        try:
            if not sep or not port.isdigit() or not 0 < int(port) < 65536 or not host:
                raise Refused("bad request", "400 Bad Request")
            upstream = connect_loopback(host, int(port))
        except Refused as e:
            self.server.log.write(kind=self.kind, target=target, address_type="authority",
                                  result=e.result)
            status = {"forbidden": "403 Forbidden", "unreachable": "502 Bad Gateway",
                      "refused": "502 Bad Gateway"}.get(e.code, e.code)
            self._answer(sock, status, e.result + "\n")
            return
        self.server.log.write(kind=self.kind, target=target, address_type="authority",
                              result="ok")
        with upstream:
            try:
                sock.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                if rest:
                    upstream.sendall(rest)
            except OSError:
                return
            relay(sock, upstream, self.server.stopping)

    @staticmethod
    def _read_head(sock):
        data = b""
        while b"\r\n\r\n" not in data:
            part = sock.recv(4096)
            if not part:
                raise Refused("bad request", "400 Bad Request")
            data += part
            if len(data) > HEAD_LIMIT:
                raise Refused("bad request", "400 Bad Request")
        head, _, rest = data.partition(b"\r\n\r\n")
        return head, rest

    @staticmethod
    def _answer(sock, status, text):
        body = text.encode()
        try:
            sock.sendall(("HTTP/1.1 %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n"
                          "Connection: close\r\n\r\n" % (status, len(body))).encode() + body)
        except OSError:
            pass


SOCKS_CODES = {"general": 1, "forbidden": 2, "unreachable": 4, "refused": 5,
               "command": 7, "address": 8}


class Socks5Handler(socketserver.BaseRequestHandler):
    kind = "socks5"

    def handle(self):
        sock = self.request
        sock.settimeout(SETUP_SECONDS)
        try:
            version, count = recv_exact(sock, 2)
            methods = recv_exact(sock, count)
            if version != 5:
                return
            if 0 not in methods:  # no acceptable method: we offer "no authentication" only
                sock.sendall(b"\x05\xff")
                return
            sock.sendall(b"\x05\x00")
            version, command, _, atyp = recv_exact(sock, 4)
            host, kind = self._address(sock, atyp)
            port = struct.unpack("!H", recv_exact(sock, 2))[0]
        except (OSError, Refused, ValueError):
            return
        target = "[%s]:%d" % (host, port) if kind == "ipv6" else "%s:%d" % (host, port)
        try:
            if kind is None:
                raise Refused("unsupported address type %d" % atyp, "address")
            if version != 5 or command != 1:
                raise Refused("unsupported command %d" % command, "command")
            upstream = connect_loopback(host, port)
        except Refused as e:
            self.server.log.write(kind=self.kind, target=target, address_type=kind,
                                  result=e.result)
            self._reply(sock, SOCKS_CODES[e.code])
            return
        self.server.log.write(kind=self.kind, target=target, address_type=kind, result="ok")
        with upstream:
            try:
                self._reply(sock, 0, upstream.getsockname())
            except OSError:
                return
            relay(sock, upstream, self.server.stopping)

    @staticmethod
    def _address(sock, atyp):
        """(host, "ipv4"/"ipv6"/"domain"), or (text, None) for an unknown address type."""
        if atyp == 1:
            return socket.inet_ntop(socket.AF_INET, recv_exact(sock, 4)), "ipv4"
        if atyp == 4:
            return socket.inet_ntop(socket.AF_INET6, recv_exact(sock, 16)), "ipv6"
        if atyp == 3:
            length = recv_exact(sock, 1)[0]
            return recv_exact(sock, length).decode("ascii", "replace"), "domain"
        return "?", None

    @staticmethod
    def _reply(sock, code, bound=("0.0.0.0", 0)):
        host, port = bound[:2]
        if ":" in host:
            addr = b"\x04" + socket.inet_pton(socket.AF_INET6, host)
        else:
            addr = b"\x01" + socket.inet_pton(socket.AF_INET, host)
        try:
            sock.sendall(b"\x05" + bytes([code]) + b"\x00" + addr + struct.pack("!H", port))
        except OSError:
            if code == 0:
                raise


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], OSError) or self.stopping.is_set():
            return  # a client or the server went away mid-tunnel
        super().handle_error(request, client_address)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kind", choices=("http", "socks5"))
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log")
    ap.add_argument("--max-seconds", type=float, default=300)
    opts = ap.parse_args(argv)
    handler = HttpConnectHandler if opts.kind == "http" else Socks5Handler
    srv = Server(("127.0.0.1", 0), handler)
    srv.stopping = threading.Event()
    srv.log = Log(opts.log)
    return fake_api.serve(srv, opts)  # the port file, signals, --max-seconds, as the fakes do


if __name__ == "__main__":
    sys.exit(main())
