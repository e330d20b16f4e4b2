#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Records the control connection of one iperf3 test, for the seed corpus.

    capture-iperf3.py LISTEN_PORT SERVER_PORT OUT_PREFIX

Listens on 127.0.0.1:LISTEN_PORT and forwards every connection to
127.0.0.1:SERVER_PORT (both TCP; UDP tests are not forwarded). The first
connection is the control connection: its client-to-server bytes go to
OUT_PREFIX.c2s and its server-to-client bytes to OUT_PREFIX.s2c. Exits when
the control connection closes.
"""
import socket
import sys
import threading


def pump(src, dst, log):
    while True:
        try:
            b = src.recv(65536)
        except OSError:
            b = b""
        if not b:
            try:
                dst.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            return
        if log is not None:
            log.write(b)
        try:
            dst.sendall(b)
        except OSError:
            return


def main():
    lport, sport, prefix = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", lport))
    ls.listen(16)
    first = True
    done = threading.Event()
    while not done.is_set():
        ls.settimeout(0.5)
        try:
            c, _ = ls.accept()
        except socket.timeout:
            continue
        s = socket.create_connection(("127.0.0.1", sport))
        if first:
            first = False
            c2s, s2c = open(prefix + ".c2s", "wb"), open(prefix + ".s2c", "wb")

            def control(c=c, s=s, c2s=c2s, s2c=s2c):
                t = threading.Thread(target=pump, args=(s, c, s2c))
                t.start()
                pump(c, s, c2s)
                t.join()
                c2s.close()
                s2c.close()
                done.set()
            threading.Thread(target=control).start()
        else:
            threading.Thread(target=pump, args=(c, s, None), daemon=True).start()
            threading.Thread(target=pump, args=(s, c, None), daemon=True).start()


main()
