import Foundation

/// The periodic sweep.
public protocol MaintenanceRepository: Sendable {
    /// Drops what has outlived its use; returns how many rows went.
    func purge(_ cutoffs: PurgeCutoffs) async throws -> Int
}
