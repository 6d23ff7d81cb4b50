/// A small bar chart drawn on the server as SVG: one bar per time slice, series stacked. Only numbers and the fixed
/// colors below go into the markup (labels are the page's, escaped by Mustache), so it is inserted unescaped; its
/// colors are attributes, not style, so the console's CSP needs no `unsafe-inline`.
struct BarChart {
    /// Colors with at least 4.5:1 contrast on white, named for the legend's CSS classes.
    static let colors = ["good": "#1a7f37", "bad": "#b42318", "info": "#2f5bd3", "warn": "#8a5a00"]

    var series: [(counts: [Int], color: String)]
    /// Under the first and the last bar.
    var firstLabel: String
    var lastLabel: String

    var svg: String {
        let width = 600, height = 140, top = 14, bottom = 18
        let plot = height - top - bottom
        let slices = series.map(\.counts.count).max() ?? 0
        let totals = (0..<slices).map { index in series.reduce(0) { $0 + ($1.counts.indices.contains(index) ? $1.counts[index] : 0) } }
        let peak = max(totals.max() ?? 0, 1)
        let step = Double(width) / Double(max(slices, 1))
        var out = "<svg viewBox=\"0 0 \(width) \(height)\" width=\"100%\" preserveAspectRatio=\"none\" aria-hidden=\"true\" focusable=\"false\">"
        out += "<line x1=\"0\" y1=\"\(top + plot)\" x2=\"\(width)\" y2=\"\(top + plot)\" stroke=\"#57606a\" stroke-width=\"1\"/>"
        out += "<text x=\"2\" y=\"11\" font-size=\"11\" fill=\"#24292f\">\(peak)</text>"
        for index in 0..<slices {
            var base = Double(top + plot)
            for (counts, color) in series where counts.indices.contains(index) && counts[index] > 0 {
                let barHeight = Double(plot) * Double(counts[index]) / Double(peak)
                base -= barHeight
                out += "<rect x=\"\(Self.number(Double(index) * step + 1))\" y=\"\(Self.number(base))\" width=\"\(Self.number(max(step - 2, 1)))\" "
                    + "height=\"\(Self.number(barHeight))\" fill=\"\(Self.colors[color] ?? "#57606a")\"/>"
            }
        }
        out += "<text x=\"2\" y=\"\(height - 4)\" font-size=\"11\" fill=\"#24292f\">\(Self.digits(firstLabel))</text>"
        out += "<text x=\"\(width - 2)\" y=\"\(height - 4)\" font-size=\"11\" fill=\"#24292f\" text-anchor=\"end\">\(Self.digits(lastLabel))</text>"
        return out + "</svg>"
    }

    private static func number(_ value: Double) -> String { String((value * 10).rounded() / 10) }

    /// Axis labels are times: only digits and `-: ` survive, so nothing in them can be markup.
    private static func digits(_ text: String) -> String { String(text.filter { $0.isASCII && ($0.isNumber || "-: ".contains($0)) }) }
}
