import DaemonSupport
import ExtensiondPolicy
import WireProtocol

/// Counters of one extension's requests.
package struct ExtensionStatistics {
    package var pullsCached = 0
    package var pullsCoalesced = 0
    package var pullsUpdated = 0
    package var resultsNewData = 0
    package var resultsNoData = 0
    package var resultsFailed = 0
    /// Update round trips (`update` sent → `result`).
    package var updateLatency: LatencyDistribution?
    /// Pulls, from the host's request to the answer sent (cached, coalesced or updated).
    package var pullLatency = LatencyBuckets()

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
