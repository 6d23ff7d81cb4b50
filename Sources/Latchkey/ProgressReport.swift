import Foundation
import Synchronization

/// Progress of a long command on standard error: on a terminal a bar redrawn in place with the rate and the time
/// left; otherwise (a log, CI) one line every few seconds. Output goes to standard error so that the command's own
/// report on standard output stays clean for scripts.
final class ProgressReport: Sendable {
    private struct State { var total: Int; var done = 0; var lastShown = Date.distantPast }
    private let what: String
    private let state: Mutex<State>
    private let started = Date()
    private let terminal = isatty(2) == 1
    /// A terminal is redrawn a few times a second; a log gets a line every few seconds.
    private var interval: TimeInterval { terminal ? 0.2 : 5 }

    /// `total` may be 0 when unknown (the bar then shows only the count and the rate).
    init(_ what: String, total: Int) { self.what = what; state = Mutex(State(total: total)) }

    func advance() {
        let due = state.withLock { state -> State? in
            state.done += 1
            // Looking at the clock is cheap, but not per record of a million: every 256th is often enough.
            guard state.done & 255 == 0, Date().timeIntervalSince(state.lastShown) >= interval else { return nil }
            state.lastShown = Date()
            return state
        }
        if let due { show(due) }
    }

    /// The last state, then a newline on a terminal so the command's report starts on its own line.
    func finish() {
        let last = state.withLock { state in state.lastShown = Date(); return state }
        guard last.done > 0 else { return }
        show(last)
        if terminal { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    private func show(_ state: State) {
        let done = state.done, total = state.total
        let seconds = max(state.lastShown.timeIntervalSince(started), 0.001)
        let rate = Double(done) / seconds
        var text = "\(what): \(done)\(total > 0 ? "/\(total)" : "") (\(Int(rate))/s"
        if total > 0, rate > 0, done < total { text += ", \(Self.clock(Double(total - done) / rate)) left" }
        text += ")"
        if terminal {
            let width = 30, filled = total > 0 ? min(width, width * done / max(total, 1)) : 0
            let bar = total > 0 ? "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] " : ""
            FileHandle.standardError.write(Data(("\r\u{1B}[K" + bar + text).utf8))
        } else {
            FileHandle.standardError.write(Data("latchkey: \(text)\n".utf8))
        }
    }

    /// `2:03` or `1:02:03`.
    static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.up)), h = total / 3600, m = total / 60 % 60, s = total % 60
        return h > 0 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%d:%02d", m, s)
    }
}
