/// Renders families in the text format: `# HELP`, `# TYPE`, then the samples of each
/// family together, in the order given.
public enum ExpositionText {
    /// The `Content-Type` of the rendered text.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    public static func render(_ families: [MetricFamily]) -> String {
        var text = ""
        for family in families {
            text += "# HELP \(family.name) \(escapeHelp(family.help))\n"
            text += "# TYPE \(family.name) \(family.type.rawValue)\n"
            for sample in family.samples {
                switch sample.value {
                case .number(let value):
                    line(&text, family.name, sample.labels, value)
                case .histogram(let histogram):
                    for bucket in histogram.buckets {
                        line(&text, family.name + "_bucket", sample.labels + [("le", number(bucket.upperBound))], Double(bucket.cumulativeCount))
                    }
                    line(&text, family.name + "_bucket", sample.labels + [("le", "+Inf")], Double(histogram.count))
                    line(&text, family.name + "_sum", sample.labels, histogram.sum)
                    line(&text, family.name + "_count", sample.labels, Double(histogram.count))
                }
            }
        }
        return text
    }

    private static func line(_ text: inout String, _ name: String, _ labels: MetricLabels, _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.name)=\"\(escapeLabel($0.value))\"" }.joined(separator: ",") + "}"
        }
        text += " " + number(value) + "\n"
    }

    /// Integers without a fraction (byte counts read better), `+Inf`, `-Inf`, `NaN`.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return String(Int64(value)) }
        return "\(value)"
    }

    private static func escapeHelp(_ text: String) -> String {
        text.replacing("\\", with: "\\\\").replacing("\n", with: "\\n")
    }

    private static func escapeLabel(_ value: String) -> String {
        escapeHelp(value).replacing("\"", with: "\\\"")
    }
}
