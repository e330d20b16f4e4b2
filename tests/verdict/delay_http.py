#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A delaying HTTP/1.1 server for tests/verdict/round_trip.sh: `engpass
fetch` has no engpass server to talk to (net server --delay speaks the rr
protocol, not HTTP) and this kernel may lack netem, so the round trip is
emulated at the server, as net server --delay does: each request is
answered DELAY_MS after it arrived. Keep-alive, "Range: bytes=A-B" (206),
content of SIZE bytes of a fixed pattern.

Usage: delay_http.py PORTFILE DELAY_MS SIZE. Listens on 127.0.0.1 on a
port of the kernel's choosing, writes it to PORTFILE, and exits by itself
after 120 s, so a test that forgets it cannot leave it behind.
"""
import http.server
import os
import re
import socket
import sys
import threading
import time

portfile, delay, size = sys.argv[1], float(sys.argv[2]) / 1000.0, int(sys.argv[3])
pattern = bytes(range(256)) * 4096
content = (pattern * (size // len(pattern) + 1))[:size]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def setup(self):
        super().setup()
        # Head and body in one write, and no Nagle: the delay is the only
        # wait (Nagle against a delayed ACK would add 40 ms per request).
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def end_headers(self):
        self._headers_buffer.append(b"\r\n")

    def do_GET(self):
        if delay > 0:
            time.sleep(delay)
        m = re.match(r"bytes=(\d+)-(\d*)$", self.headers.get("Range", ""))
        if m:
            a = int(m.group(1))
            b = int(m.group(2)) if m.group(2) else size - 1
            b = min(b, size - 1)
            if a > b:
                self.send_response(416)
                self.send_header("Content-Range", "bytes */%d" % size)
                self.send_header("Content-Length", "0")
                self.end_headers()
                self.flush_all(b"")
                return
            self.send_response(206)
            self.send_header("Content-Range", "bytes %d-%d/%d" % (a, b, size))
        else:
            a, b = 0, size - 1
            self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(b - a + 1))
        self.end_headers()
        self.flush_all(content[a:b + 1])

    def flush_all(self, body):
        self.wfile.write(b"".join(self._headers_buffer) + body)
        self._headers_buffer = []


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
srv.daemon_threads = True
tmp = portfile + ".tmp"
with open(tmp, "w") as f:
    f.write("%d\n" % srv.server_address[1])
os.rename(tmp, portfile)
threading.Timer(120, lambda: os._exit(0)).start()
srv.serve_forever()
