#ifndef LATCHKEY_CSQLITE_SHIM_H
#define LATCHKEY_CSQLITE_SHIM_H
// sqlite3_config is variadic, which Swift cannot call: one wrapper per setting used.
#include <sqlite3.h>

// Off, every allocation SQLite makes takes one process-wide mutex to keep its counters (sqlite3_memory_used).
// Only before SQLite starts; returns SQLITE_MISUSE after.
static inline int latchkey_sqlite3_memory_statistics_off(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
#endif
