import ExtensiondPolicy
import WireProtocol

/// Counters of one extension's requests.
struct ExtensionStatistics {
    var pullsCached = 0
    var pullsCoalesced = 0
    var pullsUpdated = 0
    var resultsNewData = 0
    var resultsNoData = 0
    var resultsFailed = 0
    /// Update round trips (`update` sent → `result`).
    var updateLatency: LatencyDistribution?
    /// Pulls, from the host's request to the answer sent (cached, coalesced or updated).
    var pullLatency = LatencyBuckets()

    mutating func count(_ delivery: PullDelivery) {
        switch delivery {
        case .cached: pullsCached += 1
        case .coalesced: pullsCoalesced += 1
        case .updated: pullsUpdated += 1
        }
    }

    mutating func count(_ result: UpdateOutcome) {
        switch result {
        case .newData: resultsNewData += 1
        case .noData: resultsNoData += 1
        case .failed: resultsFailed += 1
        }
    }
}
