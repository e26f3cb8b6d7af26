#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import WireProtocol

extension ReloadHint {
    /// Not before `date`: the protocol's ``ReloadHint/after(_:)-swift.enum.case`` for a Foundation `Date`.
    public static func after(_ date: Date) -> ReloadHint {
        .after(UnixTime(secondsSince1970: date.timeIntervalSince1970))
    }
}
