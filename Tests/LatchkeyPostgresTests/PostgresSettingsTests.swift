import Testing
@testable import LatchkeyPostgres

@Suite struct PostgresSettingsTests {
    /// `prefer` to a host across a network can be downgraded to clear text: the server warns about it at start.
    @Test func preferOffLoopbackMayBeDowngraded() throws {
        func settings(_ host: String, _ tls: PostgresSettings.TLSMode) throws -> PostgresSettings {
            try PostgresSettings(url: "postgres://latchkey@\(host)/latchkey", password: nil, tls: tls)
        }
        #expect(try settings("db.example.com", .prefer).mayBeDowngraded)
        #expect(try settings("192.0.2.10:5432", .prefer).mayBeDowngraded)
        #expect(try !settings("db.example.com", .verifyFull).mayBeDowngraded)
        #expect(try !settings("db.example.com", .require).mayBeDowngraded)
        #expect(try !settings("127.0.0.1", .prefer).mayBeDowngraded)
        #expect(try !settings("localhost", .prefer).mayBeDowngraded)
        #expect(try !settings("[::1]", .prefer).mayBeDowngraded)
    }
}
