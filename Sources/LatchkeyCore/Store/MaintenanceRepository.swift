import Foundation

/// The periodic sweep.
public protocol MaintenanceRepository: Sendable {
    /// Drops what has outlived its use, at most `limit` rows of each table per call, so one call is a short write
    /// that requests queue behind for milliseconds, not the whole backlog; returns how many rows went.
    func purge(_ cutoffs: PurgeCutoffs, limit: Int) async throws -> Int
}
