import PrometheusText

/// Durations counted straight into the exposed Prometheus buckets, for figures nothing
/// asks percentiles of (pulls, launches): about 150 bytes where an HdrHistogram takes
/// 11 KiB, which matters with hundreds of extensions.
package struct LatencyBuckets {
    /// Per bound of ``LatencyDistribution/bucketBounds``, the durations at or below it
    /// and above the previous one.
    package init() {}

    /// Empty until the first duration: most extensions' pull figures never get one.
    private var counts: [UInt64] = []
    private var sumMicroseconds: UInt64 = 0
    package private(set) var count: UInt64 = 0
    package private(set) var maxMicroseconds: UInt64 = 0

    package mutating func record(_ duration: Duration) {
        let micros = UInt64(max(0, duration.wholeMicroseconds))
        maxMicroseconds = max(maxMicroseconds, micros)
        let seconds = Double(micros) / 1_000_000
        if counts.isEmpty { counts = Array(repeating: 0, count: LatencyDistribution.bucketBounds.count) }
        if let index = LatencyDistribution.bucketBounds.firstIndex(where: { seconds <= $0 }) { counts[index] += 1 }
        sumMicroseconds += micros
        count += 1
    }

    /// The upper bound (µs) of the bucket holding the `percent`th duration, at most the largest.
    package func percentile(_ percent: Double) -> UInt64 {
        let rank = UInt64((Double(count) * percent / 100).rounded(.up))
        var cumulative: UInt64 = 0
        for (bound, inBucket) in zip(LatencyDistribution.bucketBounds, counts) {
            cumulative += inBucket
            if cumulative >= max(rank, 1) { return min(UInt64(bound * 1_000_000), maxMicroseconds) }
        }
        return maxMicroseconds
    }

    /// The Prometheus histogram in seconds.
    package var exposition: HistogramValue {
        var cumulative: UInt64 = 0
        return HistogramValue(
            buckets: LatencyDistribution.bucketBounds.indices.map { index in
                cumulative += counts.isEmpty ? 0 : counts[index]
                return .init(upperBound: LatencyDistribution.bucketBounds[index], cumulativeCount: cumulative)
            },
            sum: Double(sumMicroseconds) / 1_000_000,
            count: count
        )
    }
}
