import Foundation
@testable import Latchkey
import Testing

/// Each component reads its own section; together they must read exactly the keys they declare, or a declared
/// key would be accepted and ignored (or a read key refused as unknown).
@Suite struct ConfigSectionTests {
    private static func source(_ yaml: String? = nil, folder: String? = nil, environment: [String: String] = [:]) throws -> ConfigSource {
        try ConfigSource(yaml: yaml, fileDirectory: folder, environment: environment, sections: LatchkeyConfig.sections)
    }

    @Test func everyDeclaredKeyIsReadAndNothingElse() throws {
        let source = try Self.source()
        _ = try LatchkeyConfig(source)
        let declared = Set(LatchkeyConfig.sections.flatMap { section in
            (section.keys + section.lists).map { ConfigSource.join(section.section, $0) }
        })
        #expect(source.keysRead == declared)
        #expect(declared.contains("mail.smtp.password_file") && declared.contains("limits.signup_per_ip.requests"))
    }

    @Test func environmentOverridesTheFileAndPathsFollowTheirSource() throws {
        let yaml = """
            server: { port: 9000, trusted_proxies: [10.0.0.1] }
            database: { path: db/latchkey.sqlite }
            mail: { templates: mail-templates }
            clients: [{ id: from-file }]
            """
        let config = try LatchkeyConfig(Self.source(yaml, folder: "/etc/latchkey", environment: [
            "LATCHKEY_SERVER_PORT": "9100", "LATCHKEY_MAIL_TEMPLATES": "here", "LATCHKEY_SERVER_CORS_ALLOWED_ORIGINS": "https://a.example,https://b.example",
            "LATCHKEY_CLIENTS": #"[{"id": "from-env", "scopes": ["read"]}]"#,
        ]))
        #expect(config.server.port == 9100)
        #expect(config.server.trustedProxies == ["10.0.0.1"])
        #expect(config.server.corsAllowedOrigins == ["https://a.example", "https://b.example"])
        #expect(config.database.path == "/etc/latchkey/db/latchkey.sqlite")
        #expect(config.mail.templates == "here")
        #expect(config.engine.clients == [.init(id: "from-env", name: "from-env", scopes: ["read"])])
    }

    @Test(arguments: [
        ("server: { port: eighty }", [String: String](), "server.port: must be an integer"),
        ("", ["LATCHKEY_SERVER_PORT": "70000"], "server.port: must be between 0 and 65535"),
        ("mail: { smtp: { prot: 25 } }", [:], "mail.smtp.prot: unknown key (did you mean mail.smtp.port?)"),
        ("server: { zzzzzzzz: 1 }", [:], "server.zzzzzzzz: unknown key"),
        ("", ["LATCHKEY_MAIL_SMTP_PROT": "25"], "LATCHKEY_MAIL_SMTP_PROT: names no configuration key (did you mean LATCHKEY_MAIL_SMTP_PORT?)"),
        ("clients: [{ id: a, name: b, scope: [x] }]", [:], "clients[0].scope: unknown key (did you mean scopes?)"),
        ("mail: { transport: smtp }", [:], "mail.smtp.host: is required with mail.transport: smtp"),
        ("limits: { enabled: maybe }", [:], "limits.enabled: must be true or false"),
        ("server: { cors: { allowed_origins: [[a]] } }", [:], "server.cors.allowed_origins[0]: must be a string"),
        ("clients: [{ id: a, name: b, secret: c }]", [:], "clients[0].secret: unknown key"),
        ("clients: [{ name: b }]", [:], "clients[0].id: is required"),
        ("attributes: [{ name: a, required: sometimes }]", [:], "attributes[0].required: must be true or false"),
        ("functions: { f: { kind: command, command: [/bin/true], url: x } }", [:], "functions.f.url: unknown key"),
        ("app_services: { apps: [{ id: a, reset: { mode: email, url: ftp://x } }] }", [:], "app_services.apps[0].reset.url: must be an http(s) URL"),
        ("parse: { mount: /api/x }", [:], "parse.mount: must be a path like /parse that no other dialect uses"),
        ("parse: { apps: [{ id: a, cloud_functions: [nope] }] }", [:], "parse.apps[0].cloud_functions: nope is not declared under functions:"),
        ("parse: { apps: [{ id: a, master_key: short }] }", [:], "parse.apps[0].master_key: must be at least 16 characters"),
    ])
    func mistakesNameTheirKey(yaml: String, environment: [String: String], message: String) throws {
        do {
            _ = try LatchkeyConfig(Self.source(yaml, environment: environment))
            Issue.record("accepted: \(yaml) \(environment)")
        } catch let error as ConfigError {
            #expect(error.description == message)
        }
    }

    @Test func theShippedConfigurationsLoad() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        for name in ["latchkey.example.yaml", "latchkey.dev.yaml"] {
            let path = root.appendingPathComponent("config/\(name)").path
            let config = try LatchkeyConfig.load(path: path, environment: [:])
            #expect(config.server.port > 0, "\(name)")
        }
    }

    /// docs/configuration.md has one table per section (`## \`server\``, `## Top level` for the keys outside any
    /// section); each table lists exactly the keys its section declares, so the page cannot fall behind the code.
    @Test func configurationPageListsEveryDeclaredKey() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let page = try String(contentsOf: root.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        var documented: [String: Set<String>] = [:]
        var heading: String?
        for line in page.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") {
                heading = line.dropFirst(3).trimmingCharacters(in: CharacterSet(charactersIn: "` "))
            } else if let heading, line.hasPrefix("| `") {
                // The first cell: one or more keys in backticks, e.g. `mail.from.address` / `mail.from.name`.
                let cell = line.dropFirst().prefix { $0 != "|" }
                let keys = cell.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
                documented[heading, default: []].formUnion(keys)
            }
        }
        var declared: [String: Set<String>] = [:]
        for section in LatchkeyConfig.sections {
            declared[section.section.isEmpty ? "Top level" : section.section, default: []]
                .formUnion((section.keys + section.lists).map { ConfigSource.join(section.section, $0) })
        }
        #expect(Set(documented.keys) == Set(declared.keys), "one table per section")
        for (section, keys) in declared {
            let listed = documented[section] ?? []
            #expect(keys.subtracting(listed).isEmpty, "\(section): declared, not on the page: \(keys.subtracting(listed).sorted())")
            #expect(listed.subtracting(keys).isEmpty, "\(section): on the page, not declared: \(listed.subtracting(keys).sorted())")
        }
    }
}

