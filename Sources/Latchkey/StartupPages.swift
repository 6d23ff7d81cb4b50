import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging

/// Gives back the file-backed pages that only start-up touched (once the listener is up), and again what a burst of
/// requests touched once the server has gone quiet (`IdlePages`).
///
/// Idle, the static binary's resident set is mostly clean pages of its own file: the dynamic loader's relocation
/// and symbol tables, and the code of argument parsing, configuration, migrations and ICU's set-up, each fault
/// mapping a 64 KiB window around it. None of that is used again. `MADV_PAGEOUT` (Linux 5.4) drops such pages
/// that no other process maps, and `MADV_DONTNEED` unmaps what it could not drop from the read-only mappings;
/// what a request needs later faults back in, a page at a time (`MADV_RANDOM`: no readahead window around each
/// fault). Anonymous memory (heap, stacks) is left alone. On an older kernel the calls fail and nothing changes.
enum StartupPages {
    static func release(logger: Logger, after spell: String = "start-up") {
        #if os(Linux)
        let before = residentMiB()
        MallocTuning.returnFreePages()
        var released = 0
        for mapping in fileMappings() {
            let address = UnsafeMutableRawPointer(bitPattern: mapping.start), length = Int(mapping.end - mapping.start)
            if madvise(address, length, pageOut) == 0 { released += 1 }
            // The kernel skips page-cache folios it cannot split (large folios, as a fresh read of the binary makes
            // them). Code that no one ever wrote to holds nothing but the file's bytes: unmapping it loses nothing,
            // a later touch maps it again from the page cache. Only executable mappings with no private copy in
            // them: a read-only one may be relocated data made read-only afterwards (RELRO).
            if mapping.perms.hasPrefix("r-x"), mapping.anonymousKiB == 0 { _ = madvise(address, length, MADV_DONTNEED) }
            // What is needed later comes back a page at a time, not with the readahead window around each fault.
            _ = madvise(address, length, MADV_RANDOM)
        }
        logger.debug("released the pages \(spell) left in \(released) file mappings: resident \(before) -> \(residentMiB()) MiB")
        #endif
    }

    private struct Mapping {
        let start: UInt, end: UInt, perms: Substring
        var anonymousKiB = 0
    }

    /// The private mappings of a file (the binary and its libraries) from /proc/self/smaps: never the heap or
    /// stacks, nor a shared mapping such as SQLite's WAL index (`-shm`).
    private static func fileMappings() -> [Mapping] {
        guard let smaps = readWhole("/proc/self/smaps") else { return [] }
        var mappings: [Mapping] = []
        var current: Mapping?
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, let dash = first.firstIndex(of: "-"), !first.hasSuffix(":") {
                // A header: "start-end perms offset dev inode [path]".
                if let done = current { mappings.append(done) }
                current = nil
                guard fields.count >= 6, fields[5].hasPrefix("/"), fields[1].hasSuffix("p"),
                      let start = UInt(first[..<dash], radix: 16), let end = UInt(first[first.index(after: dash)...], radix: 16),
                      end > start else { continue }
                current = Mapping(start: start, end: end, perms: fields[1])
            } else if fields.first == "Anonymous:", fields.count > 1, let kib = Int(fields[1]) {
                current?.anonymousKiB = kib
            }
        }
        if let done = current { mappings.append(done) }
        return mappings
    }

    /// A /proc file read to its end: they report a size of 0, and a read by size stops at the first page.
    private static func readWhole(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Resident set size from /proc/self/statm (pages), in MiB.
    private static func residentMiB() -> Int {
        guard let statm = readWhole("/proc/self/statm") else { return -1 }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return -1 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / (1024 * 1024)
    }

    /// `MADV_PAGEOUT` from <linux/mman.h>; not every Glibc module map exports it.
    private static let pageOut: Int32 = 21
}
