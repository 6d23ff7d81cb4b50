import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging

/// Gives back the file-backed pages that only start-up touched.
///
/// Idle, the static binary's resident set is mostly clean pages of its own file: the dynamic loader's relocation
/// and symbol tables, and the code of argument parsing, configuration, migrations and ICU's set-up, each fault
/// mapping a 64 KiB window around it. None of that is used again. `MADV_PAGEOUT` (Linux 5.4) drops such pages
/// that no other process maps; what a request needs later faults back in from the file, a page at a time
/// (`MADV_RANDOM`: no readahead window around each fault). Anonymous memory (heap, stacks) is left alone. On an
/// older kernel the calls fail and nothing changes.
enum StartupPages {
    static func release(logger: Logger) {
        #if os(Linux)
        guard let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) else { return }
        let before = residentMiB()
        var released = 0
        for line in maps.split(separator: "\n") {
            // "start-end perms offset dev inode path": private mappings of a file (the binary and its libraries),
            // never the heap or stacks, nor a shared mapping such as SQLite's WAL index (`-shm`).
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[5].hasPrefix("/"), fields[1].hasSuffix("p"), let dash = fields[0].firstIndex(of: "-"),
                  let start = UInt(fields[0][..<dash], radix: 16),
                  let end = UInt(fields[0][fields[0].index(after: dash)...], radix: 16), end > start else { continue }
            let address = UnsafeMutableRawPointer(bitPattern: start), length = Int(end - start)
            if madvise(address, length, pageOut) == 0 { released += 1 }
            // What is needed later comes back a page at a time, not with the readahead window around each fault.
            _ = madvise(address, length, MADV_RANDOM)
        }
        logger.debug("released start-up pages of \(released) file mappings: resident \(before) -> \(residentMiB()) MiB")
        #endif
    }

    /// Resident set size from /proc/self/statm (pages), in MiB.
    private static func residentMiB() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return -1 }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return -1 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / (1024 * 1024)
    }

    /// `MADV_PAGEOUT` from <linux/mman.h>; not every Glibc module map exports it.
    private static let pageOut: Int32 = 21
}
