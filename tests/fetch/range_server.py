#!/usr/bin/env python3
"""HTTP server for the `dualgap data fetch` tests (127.0.0.1 only).

Serves the files under ROOT with byte ranges (`Range: bytes=N-` and `N-M` answered 206), which
Python's http.server does not do, writes the chosen port to PORTFILE and one line per request
("GET <path> <Range header or ->") to LOGFILE. `--drop PATH:BYTES` cuts the connection of the first
request for PATH after BYTES bytes of the body, as an interrupted download would. Hostile
servers: `--endless PATH` answers PATH with bytes that never end (no Content-Length), `--drip
PATH:N` sends N bytes per second, `--claim PATH:BYTES` announces a Content-Length of BYTES.

usage: range_server.py ROOT PORTFILE LOGFILE [--drop PATH:BYTES]... [--endless PATH]...
                       [--drip PATH:N]... [--claim PATH:BYTES]...
"""
import http.server
import os
import re
import sys
import threading
import time


def main():
    root, portfile, logfile = sys.argv[1:4]
    drops, endless, drips, claims = {}, set(), {}, {}
    args = sys.argv[4:]
    while args:
        if args[0] not in ("--drop", "--endless", "--drip", "--claim") or len(args) < 2:
            sys.exit("usage: range_server.py ROOT PORTFILE LOGFILE [--drop PATH:BYTES]... [--endless PATH]... "
                     "[--drip PATH:N]... [--claim PATH:BYTES]...")
        if args[0] == "--endless":
            endless.add("/" + args[1].lstrip("/"))
        else:
            path, count = args[1].rsplit(":", 1)
            {"--drop": drops, "--drip": drips, "--claim": claims}[args[0]]["/" + path.lstrip("/")] = int(count)
        args = args[2:]
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *a):  # quiet: the log file records what the tests need
            pass

        def do_GET(self):
            rng = self.headers.get("Range")
            with lock, open(logfile, "a") as log:
                log.write(f"GET {self.path} {rng or '-'}\n")
            try:
                if self.path in endless:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/octet-stream")
                    self.end_headers()
                    self.close_connection = True
                    while True:  # until the client hangs up
                        self.wfile.write(b"x" * 65536)
                if self.path in drips:
                    size = 1 << 20
                    self.send_response(200)
                    self.send_header("Content-Length", str(size))
                    self.end_headers()
                    for _ in range(size):
                        self.wfile.write(b"x" * drips[self.path])
                        self.wfile.flush()
                        time.sleep(1)
                    return
            except (BrokenPipeError, ConnectionResetError):
                return
            full = os.path.realpath(os.path.join(root, self.path.lstrip("/")))
            if not full.startswith(os.path.realpath(root) + os.sep) or not os.path.isfile(full):
                self.send_error(404)
                return
            with open(full, "rb") as f:
                data = f.read()
            start, end, status = 0, len(data) - 1, 200
            if rng:
                m = re.fullmatch(r"bytes=(\d+)-(\d*)", rng.strip())
                if not m or int(m.group(1)) >= len(data):
                    self.send_response(416)
                    self.send_header("Content-Range", f"bytes */{len(data)}")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                start = int(m.group(1))
                end = min(int(m.group(2)), len(data) - 1) if m.group(2) else len(data) - 1
                status = 206
            body = data[start:end + 1]
            self.send_response(status)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(claims.get(self.path, len(body))))
            self.send_header("Accept-Ranges", "bytes")
            if status == 206:
                self.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
            self.end_headers()
            with lock:
                cut = drops.pop(self.path, None)
            if cut is not None and cut < len(body):
                self.wfile.write(body[:cut])
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(2)
                return
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(portfile + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(portfile + ".tmp", portfile)
    server.serve_forever()


if __name__ == "__main__":
    main()
