// The floors bench/suite.py sets beside each token path: what the work a path must do costs on this machine, timed
// the way the suite times the server (process CPU, user + system, over many operations), through the same code the
// server runs. Prints one JSON object.
//
//   .build/release/FloorBench --migrations Migrations/sqlite [--postgres URL --postgres-migrations Migrations/postgres]
//
// - es256_sign / es256_verify: one signature and one check over an access token's signing input (the server's own
//   `SigningKey`);
// - rs256_verify: one Google-shaped ID token checked by jwt-kit with its key already loaded (an identity login);
// - indexed_read: a user found by id through the store (what userinfo reads), from 16 tasks at once;
// - group_write: the refresh's conditional write (mark one row rotated, insert its child) from 16 tasks at once,
//   so commits are shared as under the suite's 16 connections; on SQLite every commit is synced (synchronous=FULL).
import Foundation
import JWTKit
import LatchkeyCore
import LatchkeyPostgres
import LatchkeySQLite
import Logging
import _CryptoExtras

func cpuSeconds() -> Double {
    var usage = rusage()
    #if os(Linux)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Microseconds of process CPU per operation, over `count` operations after a tenth as many unmeasured.
func perOperation(_ count: Int, _ body: (Int) throws -> Void) rethrows -> Double {
    for i in 0..<max(count / 10, 1) { try body(i) }
    let before = cpuSeconds()
    for i in 0..<count { try body(i) }
    return (cpuSeconds() - before) * 1e6 / Double(count)
}

func perOperation(_ count: Int, _ body: (Int) async throws -> Void) async rethrows -> Double {
    for i in 0..<max(count / 10, 1) { try await body(i) }
    let before = cpuSeconds()
    for i in 0..<count { try await body(i) }
    return (cpuSeconds() - before) * 1e6 / Double(count)
}

func argument(_ name: String) -> String? {
    let args = CommandLine.arguments
    guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
    return args[i + 1]
}

// MARK: signatures

func signatureFloors() async throws -> [String: Double] {
    let key = try SigningKey.generate()
    let now = Int(Date().timeIntervalSince1970)
    let claims: [String: JSONValue] = [
        "iss": "http://127.0.0.1:8080/00000000-0000-0000-0000-000000000000/v2.0", "sub": .string(UUID().uuidString),
        "oid": .string(UUID().uuidString), "tid": "00000000-0000-0000-0000-000000000000", "aud": .string(UUID().uuidString),
        "iat": .int(now), "nbf": .int(now), "exp": .int(now + 3600), "ver": "2.0", "scp": "openid profile offline_access",
        "azp": .string(UUID().uuidString), "jti": .string(UUID().uuidString), "auth_time": .int(now),
    ]
    let token = try JWT.sign(claims: claims, key: key, accessToken: true)
    let input = Array(token.utf8[..<token.utf8.lastIndex(of: UInt8(ascii: "."))!])
    let signature = try key.sign(input)
    var sink = 0
    let sign = try perOperation(20_000) { _ in sink &+= try key.sign(input).count }
    let verify = perOperation(20_000) { _ in sink &+= key.verify(input, signature: signature) ? 1 : 0 }
    precondition(key.verify(input, signature: signature) && sink > 0)

    // An identity login's check: jwt-kit, RS256, the key already in the collection (as the cached JWKS is).
    let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    let signer = JWTKeyCollection()
    await signer.add(rsa: try Insecure.RSA.PrivateKey(pem: rsa.pemRepresentation), digestAlgorithm: .sha256, kid: "google")
    let verifier = JWTKeyCollection()
    await verifier.add(rsa: try Insecure.RSA.PublicKey(pem: rsa.publicKey.pemRepresentation), digestAlgorithm: .sha256, kid: "google")
    let idToken = try await signer.sign(IDToken(iss: "https://accounts.google.com", aud: "bench.apps.googleusercontent.com",
                                                sub: "1234567890", exp: .init(value: Date() + 3600)), kid: "google")
    let rs256 = try await perOperation(5_000) { _ in sink &+= try await verifier.verify(idToken, as: IDToken.self).sub.count }
    return ["es256_sign": sign, "es256_verify": verify, "rs256_verify": rs256]
}

struct IDToken: JWTPayload {
    var iss: String
    var aud: String
    var sub: String
    var exp: ExpirationClaim
    func verify(using algorithm: some JWTAlgorithm) async throws { try exp.verifyNotExpired() }
}

// MARK: the store

func storeFloors(_ store: any Store, users count: Int) async throws -> [String: Double] {
    let now = Date(), run = SecureRandom.alphanumeric(8).lowercased()  // a second run on the same database makes new accounts
    var users: [UserRecord] = []
    for i in 0..<count {
        users.append(UserRecord(id: TimeOrderedID.make(at: now), email: "floor-\(run)-\(i)@example.com", passwordHash: nil, emailVerified: true,
                                status: .active, attributes: ["displayName": .string("Floor \(i)")], now: now))
    }
    for chunk in stride(from: 0, to: users.count, by: 1_000) {
        try await store.direct.users.insert(contentsOf: Array(users[chunk..<min(chunk + 1_000, users.count)]))
    }
    let ids = users.map(\.id)
    // 16 readers at once, as the suite's 16 connections read (on PostgreSQL one at a time would time the pool's
    // wake-ups, not the reads).
    let readers = 16, perReader = 1_500
    func reads(_ rounds: Int) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for r in 0..<readers {
                group.addTask {
                    for i in 0..<rounds where try await store.direct.users.find(id: ids[(r &* 7_919 &+ i &* 104_729) % ids.count]) == nil {
                        fatalError("a user was not found")
                    }
                }
            }
            try await group.waitForAll()
        }
    }
    try await reads(perReader / 10)
    let readStart = cpuSeconds()
    try await reads(perReader)
    let read = (cpuSeconds() - readStart) * 1e6 / Double(readers * perReader)

    // 16 writers, each rotating its own chain as a refresh does.
    let writers = Int(ProcessInfo.processInfo.environment["FLOOR_WRITERS"] ?? "16")!, perWriter = 400
    func session(user: String, family: String, parent: String?) -> SessionRecord {
        SessionRecord(id: TimeOrderedID.make(at: Date()), familyId: family, userId: user, kind: .native, audience: "floor",
                      scope: "openid profile offline_access", tokenHash: Data(SecureRandom.bytes(38)), createdAt: Date(),
                      expiresAt: Date() + 86_400, parentId: parent, ip: "127.0.0.1", userAgent: "floor-bench")
    }
    var heads: [SessionRecord] = []
    for w in 0..<writers {
        let head = session(user: ids[w], family: TimeOrderedID.make(at: now), parent: nil)
        try await store.direct.sessions.insert(head)
        heads.append(head)
    }
    func rotations(_ rounds: Int) async throws {
        try await withThrowingTaskGroup(of: SessionRecord.self) { group in
            for (w, head) in heads.enumerated() {
                group.addTask {
                    var current = head
                    for _ in 0..<rounds {
                        let child = session(user: ids[w], family: current.familyId, parent: current.id)
                        guard try await store.direct.sessions.rotate(id: current.id, at: Date(), child: child) else {
                            fatalError("a rotation did not apply")
                        }
                        current = child
                    }
                    return current
                }
            }
            heads = []
            for try await head in group { heads.append(head) }
        }
    }
    try await rotations(perWriter / 10)
    let before = cpuSeconds(), started = Date()
    try await rotations(perWriter)
    let cpu = (cpuSeconds() - before) * 1e6 / Double(writers * perWriter)
    let rate = Double(writers * perWriter) / Date().timeIntervalSince(started)
    return ["indexed_read": read, "group_write": cpu, "group_writes_per_second": rate]
}

let sqliteMigrations = argument("--migrations") ?? "Migrations/sqlite"
var result: [String: [String: Double]] = ["crypto": try await signatureFloors()]
let directory = NSTemporaryDirectory() + "latchkey-floor-" + UUID().uuidString
let sqlite = try SQLiteStore(path: directory + "/db.sqlite", migrations: SQLMigrations.read(directory: sqliteMigrations))
try sqlite.migrate()
result["sqlite"] = try await storeFloors(sqlite, users: 10_000)
try? FileManager.default.removeItem(atPath: directory)
if let url = argument("--postgres") {
    let settings = try PostgresSettings(url: url, password: nil)
    let postgres = try PostgresStore(settings: settings, migrations: SQLMigrations.read(directory: argument("--postgres-migrations")
                                                                                        ?? "Migrations/postgres"),
                                     logger: Logger(label: "floor"))
    try await postgres.migrate()
    result["postgres"] = try await storeFloors(postgres, users: 10_000)
    await postgres.shutdown()
}
let json = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys, .prettyPrinted])
print(String(decoding: json, as: UTF8.self))
