/// A small bar chart drawn on the server as SVG: one bar per time slice, series stacked. Only numbers and the fixed
/// colors below go into the markup, so it is inserted unescaped; its colors are attributes, not style, so the console's
/// CSP needs no `unsafe-inline`. The axis labels (the peak, the first and last slice) are the page's text beside it, not
/// SVG text: the drawing stretches to its box, and text inside it would shrink and distort with it.
struct BarChart {
    /// Colors with at least 4.5:1 contrast on white, named for the legend's CSS classes.
    static let colors = ["good": "#1a7f37", "bad": "#b42318", "info": "#2f5bd3", "warn": "#8a5a00"]

    var series: [(counts: [Int], color: String)]

    /// The tallest stack, the top of the scale.
    var peak: Int {
        let slices = series.map(\.counts.count).max() ?? 0
        let totals = (0..<slices).map { index in series.reduce(0) { $0 + ($1.counts.indices.contains(index) ? $1.counts[index] : 0) } }
        return max(totals.max() ?? 0, 1)
    }

    var svg: String {
        let width = 600, height = 120
        let slices = series.map(\.counts.count).max() ?? 0
        let peak = peak
        let step = Double(width) / Double(max(slices, 1))
        var out = "<svg viewBox=\"0 0 \(width) \(height)\" preserveAspectRatio=\"none\" aria-hidden=\"true\" focusable=\"false\">"
        out += "<line x1=\"0\" y1=\"\(height)\" x2=\"\(width)\" y2=\"\(height)\" stroke=\"#57606a\" stroke-width=\"2\"/>"
        for index in 0..<slices {
            var base = Double(height)
            for (counts, color) in series where counts.indices.contains(index) && counts[index] > 0 {
                let barHeight = Double(height) * Double(counts[index]) / Double(peak)
                base -= barHeight
                out += "<rect x=\"\(Self.number(Double(index) * step + 1))\" y=\"\(Self.number(base))\" width=\"\(Self.number(max(step - 2, 1)))\" "
                    + "height=\"\(Self.number(barHeight))\" fill=\"\(Self.colors[color] ?? "#57606a")\"/>"
            }
        }
        return out + "</svg>"
    }

    private static func number(_ value: Double) -> String { String((value * 10).rounded() / 10) }
}
