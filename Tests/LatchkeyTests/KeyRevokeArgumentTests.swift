import ArgumentParser
@testable import Latchkey
import Testing

/// A kid is base64url: one in 64 begins with "-". `keys revoke` takes it as the kid, not as flags (a `-…h…` kid
/// once showed the help and exited 0 without revoking anything).
@Suite struct KeyRevokeArgumentTests {
    @Test func aKidBeginningWithADashIsTheKid() throws {
        let command = try KeysCommand.Revoke.parse(["-oRDTQtDD5RT4SwqvYtHo9GOag-jowwy89dhvYQsPL0"])
        #expect(command.kids == ["-oRDTQtDD5RT4SwqvYtHo9GOag-jowwy89dhvYQsPL0"])
        #expect(throws: (any Error).self) { try KeysCommand.Revoke.parse([]) }
        #expect(throws: (any Error).self) { try KeysCommand.Revoke.parse(["one", "two"]) }
    }
}
