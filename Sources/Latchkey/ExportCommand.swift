import ArgumentParser
import Foundation
import LatchkeyCore

/// `latchkey export FILE`: every user as one line of Latchkey's neutral format, hashes included, for backups and for
/// moving between deployments (`latchkey import --format jsonl` reads it back). The file is created new, readable
/// by its owner only.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Write every user, with password hashes, as JSON lines (mode 0600).")
    @OptionGroup var options: ConfigOption
    @Argument(help: "The file to create; an existing file is not overwritten.") var file: String

    func run() async throws {
        let engine = try await Runtime.engine(options), operatorService = OperatorService(engine: engine)
        let output = try PrivateFile.create(file, key: "FILE")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var cursor: UserCursor?
        var written = 0
        repeat {
            let page = try await operatorService.adminListUsers(prefix: nil, after: cursor, limit: 500)
            var chunk = Data()
            let identities = try await operatorService.identities(ofUsers: page.users.map(\.id))
            let passkeys = Dictionary(grouping: try await operatorService.passkeys(ofUsers: page.users.map(\.id)), by: \.userId)
            let customData = Dictionary(grouping: try await operatorService.customData(ofUsers: page.users.map(\.id)), by: \.userId)
            for user in page.users {
                chunk.append(try encoder.encode(NeutralUserLine(user, identities: identities[user.id] ?? [], passkeys: passkeys[user.id] ?? [],
                                                                customData: customData[user.id] ?? [])))
                chunk.append(UInt8(ascii: "\n"))
            }
            do { try output.write(contentsOf: chunk) } catch {
                throw StartupError(key: "FILE", message: "writing \(file): \(error.localizedDescription)", exitCode: .ioError)
            }
            written += page.users.count
            cursor = page.next
        } while cursor != nil
        try output.synchronize()
        try await UserImporter(engine: engine).auditExport(count: written, file: URL(fileURLWithPath: file).lastPathComponent)
        print("exported \(written) users to \(file)")
    }
}
