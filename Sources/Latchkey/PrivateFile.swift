import Foundation

/// A new file only its owner reads (0600), never one that exists already (O_EXCL: nothing is written over, or
/// through a link to, a file that is there): for exports with password hashes and for client secrets.
enum PrivateFile {
    static func create(_ path: String, key: String) throws -> FileHandle {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StartupError(key: key, message: "cannot create \(path): \(String(cString: strerror(errno)))", exitCode: .cannotCreate)
        }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// Runs `body` with a new private file; removes the file again when `body` fails before writing it.
    static func filling<T>(_ path: String, key: String, _ body: (FileHandle) async throws -> T) async throws -> T {
        let handle = try create(path, key: key)
        do { return try await body(handle) } catch {
            try? handle.close()
            unlink(path)
            throw error
        }
    }
}
