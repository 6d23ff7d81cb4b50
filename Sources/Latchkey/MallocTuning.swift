#if os(Linux)
import CMalloc
import Glibc
#endif

/// glibc's allocator gives a thread that finds the arenas busy an arena of its own, up to eight per core, and
/// each arena keeps the memory freed into it. NIO's event loops, the cooperative pool, the database queues and
/// the hashing threads end up with a dozen arenas between them, each holding freed pages that no other thread
/// can reuse. Two arenas serve this server's threads; `MALLOC_ARENA_MAX` still wins when an operator sets it.
enum MallocTuning {
    static func limitArenas() {
        #if os(Linux)
        if getenv("MALLOC_ARENA_MAX") == nil { _ = mallopt(M_ARENA_MAX, 2) }
        #endif
    }

    /// Hands the free pages inside the arenas back to the system (glibc only trims the top of the main heap by
    /// itself); called once the listener is up, for what start-up's one-off work (configuration, migrations) freed.
    static func returnFreePages() {
        #if os(Linux)
        _ = malloc_trim(0)
        #endif
    }
}
