/// The Prometheus text exposition format (version 0.0.4), as a value: families of
/// samples that render with HELP and TYPE, each family in one block.
///
/// This module owns only the format: names, escaping, number spelling and the
/// histogram series. It reads nothing and knows nothing of extensiond; the daemon
/// decides what to expose.

/// What a family's samples mean to Prometheus.
public enum MetricType: String, Sendable {
    /// Only goes up (resets when the daemon restarts); its name ends in `_total`.
    case counter
    /// A value that goes up and down.
    case gauge
    /// Cumulative `_bucket{le=…}` counts with `_sum` and `_count`.
    case histogram
}

/// An ordered set of label names and values; the order is the rendered order.
public typealias MetricLabels = [(name: String, value: String)]

/// One metric name with its help, type and every labelled sample of it.
public struct MetricFamily: Sendable {
    public let name: String
    public let help: String
    public let type: MetricType
    public private(set) var samples: [MetricSample] = []

    /// A family; `name` must match `[a-zA-Z_:][a-zA-Z0-9_:]*` (the callers use constants).
    public init(_ name: String, _ type: MetricType, help: String) {
        self.name = name
        self.type = type
        self.help = help
    }

    /// Adds a counter or gauge sample.
    public mutating func add(_ labels: MetricLabels = [], _ value: Double) {
        precondition(type != .histogram, "\(name) is a histogram")
        samples.append(MetricSample(labels: labels, value: .number(value)))
    }

    /// Adds a histogram sample.
    public mutating func add(_ labels: MetricLabels = [], _ histogram: HistogramValue) {
        precondition(type == .histogram, "\(name) is a \(type)")
        samples.append(MetricSample(labels: labels, value: .histogram(histogram)))
    }
}

/// One labelled value of a family.
public struct MetricSample: Sendable {
    public enum Value: Sendable {
        case number(Double)
        case histogram(HistogramValue)
    }

    public var labels: MetricLabels
    public var value: Value
}

/// A histogram's series: how many observations fell at or below each upper bound,
/// their sum and their count.
public struct HistogramValue: Sendable, Equatable {
    /// Ascending upper bounds with the cumulative count at or below each; the `+Inf`
    /// bucket is added when rendering (it equals `count`).
    public var buckets: [Bucket]
    public var sum: Double
    public var count: UInt64

    public struct Bucket: Sendable, Equatable {
        public var upperBound: Double
        public var cumulativeCount: UInt64

        public init(upperBound: Double, cumulativeCount: UInt64) {
            self.upperBound = upperBound
            self.cumulativeCount = cumulativeCount
        }
    }

    public init(buckets: [Bucket], sum: Double, count: UInt64) {
        self.buckets = buckets
        self.sum = sum
        self.count = count
    }
}
