#!/usr/bin/env python3
"""What idle connections cost (issue N, item 16): RSS before and after N kept-alive connections (each after one
`GET /health/live`), the memory per connection, and `/health/live` latency (p50, p99) on a fresh connection while
they are all open.

    python3 bench/idle_connections.py [--binary .build/release/latchkey] [--connections 10000] [--silent] [--reference]
                                      [--settle 2]

With --silent the connections send nothing: the difference to a run without it is what serving one request leaves
behind on a connection (heaptrack names it: the connection task's stack slabs, sized by the deepest request).

The server runs with its caps raised above N (`server.max_connections*`) so that every connection is admitted; the
caps themselves are what bounds this memory in production. Raises the open-files limit to fit. A measurement only.

With --reference it measures the bare Hummingbird app of bench/reference instead (`swift build -c release --product
ReferenceServer`): the framework's own floor for the same connections.
"""
import argparse
import os
import resource
import socket
import subprocess
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "Tests", "blackbox"))
import harness  # noqa: E402

REQUEST = b"GET /health/live HTTP/1.1\r\nHost: bench\r\n\r\n"


def rss_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def one_request(sock):
    sock.sendall(REQUEST)
    data = b""
    while b"\r\n\r\n" not in data or not data.endswith(b"}"):
        chunk = sock.recv(4096)
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


def latencies(port, count=200):
    times = []
    for _ in range(count):
        started = time.perf_counter()
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            one_request(sock)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.99) - 1]


def start_latchkey(binary, connections):
    harness.BINARY = os.path.abspath(binary)
    cap = str(connections + 100)
    return harness.Server(env={"LATCHKEY_SERVER_MAX_CONNECTIONS": cap, "LATCHKEY_SERVER_MAX_CONNECTIONS_PER_IP": cap,
                               "LATCHKEY_SERVER_IDLE_TIMEOUT_SECONDS": "600", "LATCHKEY_LOG_LEVEL": "warning"}).start()


class Reference:
    """bench/reference's server on a free port, shaped like harness.Server for what this script uses."""

    def __init__(self, binary):
        self.port = harness.free_port()
        self.proc = subprocess.Popen([binary, str(self.port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                    one_request(sock)
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("the reference server did not start")

    def cleanup(self):
        self.proc.kill()
        self.proc.wait()


def start_reference(binary):
    return Reference(binary)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=os.path.join(harness.ROOT, ".build", "release", "latchkey"))
    parser.add_argument("--connections", type=int, default=10_000)
    parser.add_argument("--silent", action="store_true", help="open the connections without sending a request on them")
    parser.add_argument("--reference", action="store_true", help="measure bench/reference's bare Hummingbird app instead")
    parser.add_argument("--settle", type=float, default=2, help="seconds to wait after the last connection before reading RSS")
    args = parser.parse_args()
    if args.reference:
        args.binary = os.path.join(harness.ROOT, ".build", "release", "ReferenceServer")
    if not os.access(args.binary, os.X_OK) or args.connections < 1:
        parser.error(f"{args.binary} is not an executable (build it first) or --connections is below 1")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, args.connections + 1024), hard))
    server = start_reference(args.binary) if args.reference else start_latchkey(args.binary, args.connections)
    try:
        time.sleep(1)
        before = rss_kib(server.proc.pid)
        idle_p50, idle_p99 = latencies(server.port)
        sockets = []
        for _ in range(args.connections):
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            if not args.silent:
                one_request(sock)
            sockets.append(sock)
        time.sleep(args.settle)
        after = rss_kib(server.proc.pid)
        p50, p99 = latencies(server.port)
        for sock in sockets:
            sock.close()
        per = (after - before) / args.connections
        print(f"connections  {args.connections}")
        print(f"RSS          {before / 1024:.1f} MiB -> {after / 1024:.1f} MiB  ({per:.1f} KiB per idle connection)")
        print(f"health       p50 {idle_p50:.2f} ms, p99 {idle_p99:.2f} ms idle; p50 {p50:.2f} ms, p99 {p99:.2f} ms with them open")
    finally:
        server.cleanup()


if __name__ == "__main__":
    main()
