import Foundation
import LatchkeyCore

/// The summary table an import prints: what came in, what did not and why, hashes by scheme, identities by provider.
struct ImportReport {
    var tally: ImportTally
    var dryRun: Bool
    var sessions: Bool

    func text(seconds: Double) -> String {
        var lines = [dryRun ? "dry run: nothing was written; an import would give:" : "import finished in \(String(format: "%.1f", seconds)) s:"]
        func row(_ name: String, _ value: String) { lines.append("  " + name.padding(toLength: 24, withPad: " ", startingAt: 0) + value) }
        func counts(_ map: [String: Int]) -> String {
            map.isEmpty ? "" : " (" + map.sorted(by: { $0.key < $1.key }).map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"
        }
        row("imported", "\(tally.imported)")
        row("skipped (already here)", "\(tally.skipped)")
        row("conflicts", "\(tally.conflicts)")
        row("invalid", "\(tally.invalid)")
        row("password hashes", "\(tally.hashesByScheme.values.reduce(0, +))\(counts(tally.hashesByScheme))")
        row("unsupported hashes", "\(tally.unsupportedHashes.values.reduce(0, +))\(counts(tally.unsupportedHashes))")
        row("without password", "\(tally.withoutPassword)")
        if tally.legacyPasswords > 0 { row("legacy passwords", "\(tally.legacyPasswords) (checked by accounts.legacy_password.function at first sign-in)") }
        let unconfigured = tally.identitiesUnconfigured
        row("identities", "\(tally.identitiesCarried)\(counts(tally.identitiesByProvider))"
            + (unconfigured == 0 ? "" : ", \(unconfigured) of providers not configured here"))
        if tally.passkeysCarried > 0 { row("passkeys", "\(tally.passkeysCarried)") }
        if tally.customDataCarried > 0 { row("custom data", "\(tally.customDataCarried)") }
        row("fields dropped", "\(tally.fieldsDropped)")
        if sessions {
            row("sessions", "\(tally.sessionsImported) imported, \(tally.sessionsSkipped) already here, "
                + "\(tally.sessionsExpired) expired, \(tally.sessionsOrphaned) without their user")
        }
        if !tally.problems.isEmpty {
            lines.append(tally.problems.count < ImportTally.problemsKept ? "problems:" : "the first \(ImportTally.problemsKept) problems:")
            lines += tally.problems.map { "  \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}
