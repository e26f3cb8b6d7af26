import ExtensiondTestSupport
import PrometheusText
import Testing

@testable import DaemonSupport

/// The exposition format as values: what a family renders to, and the histograms built
/// from recorded durations.
@Suite struct ExpositionTests {
    @Test func aFamilyRendersHelpTypeAndItsSamplesInOneBlock() {
        var kills = MetricFamily("x_kills_total", .counter, help: "Kills,\nby reason \\ kind.")
        kills.add([("name", "a\"b\\c\nd"), ("reason", "oom")], 3)
        kills.add([("name", "e"), ("reason", "oom")], 0.25)
        var info = MetricFamily("x_info", .gauge, help: "Info.")
        info.add([], .infinity)
        #expect(
            ExpositionText.render([kills, info]) == """
                # HELP x_kills_total Kills,\\nby reason \\\\ kind.
                # TYPE x_kills_total counter
                x_kills_total{name="a\\"b\\\\c\\nd",reason="oom"} 3
                x_kills_total{name="e",reason="oom"} 0.25
                # HELP x_info Info.
                # TYPE x_info gauge
                x_info +Inf

                """)
    }

    @Test func aHistogramHasCumulativeBucketsInfSumAndCount() {
        var buckets = LatencyBuckets()
        for milliseconds in [0, 1, 3, 3, 400, 200_000] { buckets.record(.milliseconds(milliseconds)) }
        let value = buckets.exposition
        #expect(value.count == 6)
        #expect(value.sum == 200.407)
        let cumulative = Dictionary(uniqueKeysWithValues: value.buckets.map { ($0.upperBound, $0.cumulativeCount) })
        #expect(cumulative[0.0005] == 1 && cumulative[0.001] == 2 && cumulative[0.0025] == 2 && cumulative[0.005] == 4)
        #expect(cumulative[0.25] == 4 && cumulative[0.5] == 5 && cumulative[120] == 5)
        #expect(zip(value.buckets, value.buckets.dropFirst()).allSatisfy { $0.cumulativeCount <= $1.cumulativeCount })

        var family = MetricFamily("x_seconds", .histogram, help: "h")
        family.add([("name", "w")], value)
        let text = ExpositionText.render([family])
        #expect(text.contains("x_seconds_bucket{name=\"w\",le=\"0.005\"} 4\n"))
        #expect(text.contains("x_seconds_bucket{name=\"w\",le=\"+Inf\"} 6\nx_seconds_sum{name=\"w\"} 200.407\nx_seconds_count{name=\"w\"} 6\n"))
    }

    /// Buckets allocate their counts at the first duration; before it they expose every bound.
    @Test func emptyBucketsExposeEveryBoundAtZero() {
        let empty = LatencyBuckets()
        var one = LatencyBuckets()
        one.record(.seconds(1))
        #expect(empty.exposition.buckets.map(\.upperBound) == one.exposition.buckets.map(\.upperBound))
        #expect(empty.exposition.buckets.count == 17 && empty.exposition.buckets.allSatisfy { $0.cumulativeCount == 0 })
        #expect(empty.percentile(99) == 0 && empty.count == 0)
    }

    @Test func theHdrHistogramGivesTheSameBucketsWithinItsPrecision() {
        var distribution = LatencyDistribution()
        var buckets = LatencyBuckets()
        var random = SeededRandom(seed: 12)
        for _ in 0..<2_000 {
            let duration = Duration.microseconds(Int64.random(in: 1...3_000_000, using: &random))
            distribution.record(duration)
            buckets.record(duration)
        }
        let fromHistogram = distribution.exposition, exact = buckets.exposition
        #expect(fromHistogram.count == 2_000 && fromHistogram.sum == exact.sum)
        for (approximate, counted) in zip(fromHistogram.buckets, exact.buckets) {
            // 2 significant digits: only values within 1 % of a bound can land on its other side.
            #expect(abs(Double(approximate.cumulativeCount) - Double(counted.cumulativeCount)) <= 2_000 * 0.01 + 1, "le \(counted.upperBound)")
        }
        #expect(LatencyDistribution.emptyExposition.count == 0 && LatencyDistribution.emptyExposition.buckets.allSatisfy { $0.cumulativeCount == 0 })
    }
}
