"""The suite's table: each path before (with --baseline) and now, beside its floor and target."""
import os

import floors


def print_table(results, baseline, parts, seconds, connections, log_level):
    print(f"\nwrk -t1 -c{connections} -d{seconds}s over loopback, limits off, log level {log_level}, metrics on, release build, "
          f"{os.cpu_count()} cores")
    print("bare: req/s over the bare Hummingbird app's /health/live measured just before; own: over Latchkey's own /health/live;")
    print("floor: /health/live's CPU plus the path's parts (bench/floors.py); target 1.5 x floor; RT: statements per request "
          "(before>now); before: req/s and CPU µs of --baseline")
    print(floors.describe(parts))
    before = {r["store"]: r for r in baseline or []}
    print(f"{'store':<11} {'path':<50} {'before':>14} {'req/s':>7} {'p99 ms':>7} {'CPU µs':>7} {'floor':>6} {'target':>6} "
          f"{'/floor':>6} {'RT':>7} {'bare':>5} {'own':>5}")
    for result in results:
        store = result["store"]
        ref = result["reference"]
        print(f"{store:<11} {'bare Hummingbird GET /health/live':<50} {'':>14} {ref['rps']:>7.0f} {ref['p99_ms']:>7.2f} "
              f"{ref['cpu_us_per_request']:>7.1f}")
        health = result["paths"]["GET /health/live (ceiling)"]["cpu_us_per_request"]
        for path, row in result["paths"].items():
            old = before.get(store, {}).get("paths", {}).get(path)
            was = (f"{old['rps']:>6.0f}/" if "rps" in old else "") + f"{old['cpu_us_per_request']:>6.0f}µs" if old else ""
            floor = floors.floor(path, parts, "postgres" if store == "PostgreSQL" else "sqlite", health)
            cells = [f"{row['rps']:>7.0f}" if "rps" in row else f"{'':>7}", f"{row['p99_ms']:>7.2f}" if "p99_ms" in row else f"{'':>7}",
                     f"{row['cpu_us_per_request']:>7.1f}",
                     f"{floor:>6.0f} {floor * floors.TARGET:>6.0f} {row['cpu_us_per_request'] / floor:>6.2f}" if floor else f"{'':>20}",
                     (f"{old['round_trips']:>3.1f}>{row['round_trips']:<3.1f}" if old and "round_trips" in old else f"{row['round_trips']:>7.1f}")
                     if "round_trips" in row else f"{'':>7}",
                     f"{row['bare_ratio']:>5.2f} {row['ratio']:>5.2f}" if "ratio" in row else ""]
            print(f"{store:<11} {path:<50} {was:>14} " + " ".join(cells))
        for r in [before.get(store), result]:
            if not r:
                continue
            m = r["memory"]
            print(f"{store:<11} {'before' if r is not result else 'now':<6} start to ready {m['start_to_ready_ms']:.0f} ms, RSS idle after start "
                  f"{m['idle_after_start_mib']:.1f} MiB, after the loads {m['after_loads_mib']:.1f} MiB, after them again "
                  f"{m['after_second_loads_mib']:.1f} MiB, after sign-in {m['after_sign_in_mib']:.1f} MiB")
