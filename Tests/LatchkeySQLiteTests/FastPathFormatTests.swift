import Foundation
import GRDB
import LatchkeyTestSupport
import Testing
@testable import LatchkeyCore
@testable import LatchkeySQLite

/// The hand-written formatters on the refresh path must write what the library they replace writes.
@Suite struct FastPathFormats {
    @Test func storedDatesMatchGRDBByteForByte() {
        var generator = SystemRandomNumberGenerator()
        let fixed = [0.0, 0.0005, 0.9995, 0.999_999, 1_645_557_742.123, 1_800_000_000.0, 253_402_300_799.999]
        let random = (0..<2000).map { _ in Double.random(in: 0..<4_102_444_800, using: &generator) }
        for seconds in fixed + random {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(StoredDate.text(date) == date.databaseValue, "\(seconds)")
        }
        // Before year 1000 the formatter's own rules apply, by handing the date to it.
        for outside in [Date(timeIntervalSince1970: -40_000_000_000), Date(timeIntervalSince1970: 1e300)] {
            #expect(StoredDate.text(outside) == outside.databaseValue)  // and no trap converting to time_t
        }
    }

    @Test func clientIDsCompareWithASCIICaseFolded() {
        #expect(ClientApplication.sameID("11111111-AbCd-4EF0-8000-00000000000a", "11111111-aBcD-4ef0-8000-00000000000A"))
        #expect(!ClientApplication.sameID("abc", "abcd"))
        #expect(!ClientApplication.sameID("@", "`"))  // 0x40 and 0x60 differ only in the case bit but are not letters
        #expect(!ClientApplication.sameID("[", "{"))
        #expect(!ClientApplication.sameID("é", "É"))  // ids are ASCII; anything else must match exactly
    }

    @Test func uuidsAreVersion4AndHexIsLowerCase() {
        let ids = (0..<1000).map { _ in SecureRandom.uuidString() }
        #expect(Set(ids).count == ids.count)
        for id in ids {
            #expect(UUID(uuidString: id) != nil && id == id.lowercased())
            #expect(Array(id)[14] == "4" && "89ab".contains(Array(id)[19]))
        }
        #expect([0x00, 0x0f, 0xa0, 0xff].hex == "000fa0ff")
        #expect(SecureRandom.uuidString([UInt8](0..<16)) == "00010203-0405-0607-0809-0a0b0c0d0e0f")
    }

    /// A joined read names the account's columns one by one: a column the migrations add must be named there too.
    @Test func joinedReadsNameEveryAccountColumn() async throws {
        let path = NSTemporaryDirectory() + "latchkey-columns-" + UUID().uuidString + "/db.sqlite"
        let store = try SQLiteStore(path: path, migrations: try SQLMigrations.read(directory: EngineHarness.migrations))
        try store.migrate()
        let stored = try await store.database.read { try $0.columns(in: "users").map(\.name) }
        #expect(stored.sorted() == UserColumns.names.sorted())
        #expect(UserColumns.joined.lockedUntil == "u_locked_until" && UserColumns.stored.lockedUntil == "locked_until")
        try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }
}
