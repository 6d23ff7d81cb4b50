/// "Did you mean": the known name nearest to a misspelt one, when it is near enough to be the likely intent.
enum KeySuggestion {
    /// The closest candidate by edit distance (a swap of two neighbours counts once), if within a third of the
    /// name's last part (at least 2 edits), else nil; ties go to the first in sorted order.
    static func nearest(to name: String, among candidates: some Sequence<String>, separator: Character = ".") -> String? {
        let last = name.split(separator: separator).last.map(String.init) ?? name
        let allowed = max(2, last.count / 3)
        var best: (name: String, distance: Int)?
        for candidate in candidates.sorted() {
            let distance = editDistance(Array(name.lowercased()), Array(candidate.lowercased()))
            if distance <= allowed, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// `message`, with " (did you mean X?)" when a candidate is near.
    static func unknown(_ message: String, _ name: String, among candidates: some Sequence<String>, separator: Character = ".") -> String {
        guard let near = nearest(to: name, among: candidates, separator: separator) else { return message }
        return "\(message) (did you mean \(near)?)"
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and adjacent transpositions.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + [Int](repeating: 0, count: b.count)
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { current[j] = min(current[j], previous2[j - 2] + 1) }
            }
            previous2 = previous
            previous = current
        }
        return previous[b.count]
    }
}
