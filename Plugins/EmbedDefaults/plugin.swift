import Foundation
import PackagePlugin

/// Builds `EmbeddedDefaults.swift` into the build folder from the files the binary carries (migrations, mail
/// templates, hosted pages, the console, the common-password list, the OpenAPI document), so the shipped binary runs from any
/// folder and no generated Swift is committed. The sources stay where operators look for them (config/,
/// Migrations/, openapi/); a change to any of them rebuilds the file.
@main
struct EmbedDefaults: BuildToolPlugin {
    /// Folders (walked for files with the suffix) and single files, relative to the package root.
    static let folders = [("Migrations/sqlite", ".sql"), ("Migrations/postgres", ".sql"), ("config/templates", ".mustache"),
                          ("config/pages", ".mustache"), ("config/pages", ".strings"), ("config/console", ".mustache"),
                          ("config/console", ".strings")]
    static let files = ["config/common-passwords.txt", "openapi/openapi.json", "config/pages/style.css", "config/console/style.css"]

    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let root = context.package.directoryURL
        var inputs = Self.files.map { root.appending(path: $0) }
        for (folder, suffix) in Self.folders {
            let base = root.appending(path: folder)
            let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)
            while let url = walker?.nextObject() as? URL { if url.path.hasSuffix(suffix) { inputs.append(url) } }
        }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedDefaults.swift")
        return [.buildCommand(displayName: "Embedding migrations, templates, pages, passwords and the OpenAPI document",
                              executable: try context.tool(named: "EmbedDefaultsTool").url,
                              arguments: [root.path, output.path],
                              inputFiles: inputs, outputFiles: [output])]
    }
}
