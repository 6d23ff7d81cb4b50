import Foundation

/// Reads a folder of template files into `(name, text)` pairs, names relative to the folder without the
/// suffix (`en/sign_up_code.text`), as MustacheLibrary names them.
public enum TemplateFiles {
    public struct Missing: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    public static func read(directory: String, suffix: String) throws -> [(name: String, text: String)] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw Missing(description: "folder \(directory) does not exist")
        }
        guard let walker = FileManager.default.enumerator(atPath: directory) else {
            throw Missing(description: "cannot read folder \(directory)")
        }
        var files: [(name: String, text: String)] = []
        for case let relative as String in walker where relative.hasSuffix(suffix) {
            let path = (directory as NSString).appendingPathComponent(relative)
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw Missing(description: "cannot read \(path)")
            }
            files.append((String(relative.dropLast(suffix.count)), text))
        }
        guard !files.isEmpty else { throw Missing(description: "no *\(suffix) files in \(directory)") }
        return files.sorted { $0.name < $1.name }
    }
}
