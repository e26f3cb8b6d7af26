import ExtensiondConfig
import ExtensiondPolicy
import WireProtocol

extension RefreshParameters {
    /// The policy's parameters from an extension's `[refresh]` table.
    init(_ settings: RefreshSettings) {
        self.init()
        interval = settings.interval
        minInterval = settings.minInterval
        jitter = settings.jitter
        maxInterval = settings.maxInterval
        pullCooldown = settings.pullCooldown
        deadline = settings.deadline
        dailyBudget = settings.dailyBudget
        budgetBurst = settings.budgetBurst
        backoffBase = settings.backoffBase
        backoffMax = settings.backoffMax
    }
}

extension WireProtocol.UpdateReason {
    init(_ reason: ExtensiondPolicy.UpdateReason) {
        switch reason {
        case .pull: self = .pull
        case .schedule: self = .schedule
        case .manual: self = .manual
        }
    }
}
