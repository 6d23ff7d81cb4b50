#!/usr/bin/env python3
"""What one scrypt hash at Latchkey's default cost (N=2^17, r=8, p=1) costs in CPU on this machine, through
Python's hashlib on the same OpenSSL: alone, and with one hash running per core at once (how a sign-in load runs
them). Compare with the sign-in row of bench/suite.py (the server's CPU per sign-in): the difference is what a
sign-in costs beyond its hash.

    python3 bench/scrypt_cost.py [--hashes 8]
"""
import argparse
import hashlib
import multiprocessing
import os
import time

N, R, P = 2 ** 17, 8, 1


def hash_cpu(count):
    """CPU seconds (user + system) per hash over `count` hashes in this process."""
    start = os.times()
    for i in range(count):
        hashlib.scrypt(b"correct horse battery staple", salt=os.urandom(16), n=N, r=R, p=P, maxmem=256 * 1024 * 1024, dklen=32)
    end = os.times()
    return ((end.user - start.user) + (end.system - start.system)) / count, (end.system - start.system) / count


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hashes", type=int, default=8)
    args = ap.parse_args()
    cores = os.cpu_count()
    alone, alone_sys = hash_cpu(args.hashes)
    started = time.monotonic()
    with multiprocessing.Pool(cores) as pool:
        results = pool.map(hash_cpu, [args.hashes] * cores)
    wall = time.monotonic() - started
    parallel = sum(r[0] for r in results) / cores
    parallel_sys = sum(r[1] for r in results) / cores
    print(f"scrypt N=2^17 r=8 p=1 through hashlib ({hashlib.__name__}, OpenSSL), {cores} cores")
    print(f"  one at a time:       {alone * 1000:.0f} ms CPU per hash ({alone_sys * 1000:.0f} ms of it in the kernel)")
    print(f"  {cores} at once (1/core): {parallel * 1000:.0f} ms CPU per hash ({parallel_sys * 1000:.0f} ms in the kernel), "
          f"{cores * args.hashes / wall:.2f} hashes/s")


if __name__ == "__main__":
    main()
