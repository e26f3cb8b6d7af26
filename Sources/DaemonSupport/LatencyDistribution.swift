import Histogram
import PrometheusText

/// Recorded durations whose percentiles are shown (update round trips): an HdrHistogram
/// in microseconds, plus the exact sum that Prometheus' `_sum` needs. Allocated on the
/// first record (a histogram costs 11 KiB; ``LatencyBuckets`` serves the other figures).
package struct LatencyDistribution {
    private var histogram = Histogram<UInt32>(highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: .two)
    private(set) var sumMicroseconds: UInt64 = 0

    package var count: UInt64 { histogram.totalCount }

    mutating func record(_ duration: Duration) {
        let micros = UInt64(Swift.max(1, duration.wholeMicroseconds))
        if histogram.record(micros) { sumMicroseconds += micros }
    }

    package func percentile(_ percent: Double) -> UInt64 { histogram.valueAtPercentile(percent) }
    package var max: UInt64 { histogram.max }

    /// The upper bounds, in seconds, of the exposed buckets: 0.5 ms to 2 min.
    static let bucketBounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120]

    /// The Prometheus histogram in seconds: for each bound the count recorded at or below it
    /// (to the histogram's 1 % precision).
    package var exposition: HistogramValue {
        HistogramValue(
            buckets: Self.bucketBounds.map { bound in
                .init(upperBound: bound, cumulativeCount: histogram.count(within: 0...UInt64(bound * 1_000_000)))
            },
            sum: Double(sumMicroseconds) / 1_000_000,
            count: count
        )
    }

    /// The exposition of no durations at all, for a process that has none yet.
    package static let emptyExposition = LatencyBuckets().exposition
}

extension Optional where Wrapped == LatencyDistribution {
    /// Records into the distribution, creating it on the first value.
    package mutating func record(_ duration: Duration) {
        if case .none = self { self = LatencyDistribution() }
        self?.record(duration)
    }
}
