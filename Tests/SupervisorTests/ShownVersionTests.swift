import ExtensiondTestSupport
import Foundation
import Testing

@testable import ExtensionCoordination

/// The `.version` file (docs/PROTOCOL.md, "Bounds and guarantees"): it holds a reservation
/// ahead of the versions shown, so that an update writes nothing, and the exact version
/// after a clean stop, so that a restart shows the saved snapshots under the same versions.
@Suite struct ShownVersionTests {
    private func saved(_ harness: CoordinatorHarness) throws -> [UInt64] {
        let text = try String(contentsOfFile: harness.statePath + "/extensions/w.version", encoding: .utf8)
        return text.split(whereSeparator: \.isWhitespace).compactMap { UInt64($0) }
    }

    @Test func versionsAreShownUnderAReservationAndSavedExactlyAtAStop() throws {
        let harness = try CoordinatorHarness([CoordinatorHarness.widget("w")])
        let reserved = ExtensionCoordinator.reservedVersions
        #expect(try saved(harness) == [reserved, 0], "reserved when the extension is configured")
        for _ in 1...5 {
            try harness.coordinator.refresh(["w"])
            harness.clock.advance(by: .milliseconds(200))
        }
        #expect(harness.pushes.map(\.snapshot.version) == [1, 2, 3, 4, 5])
        #expect(try saved(harness) == [reserved, 0], "no write for versions within the reservation")

        harness.coordinator.saveRecords()
        #expect(try saved(harness) == [5, 0], "the exact version at a clean stop")

        // The next version is past what the file holds: a new reservation before it is shown.
        try harness.coordinator.refresh(["w"])
        harness.clock.advance(by: .milliseconds(200))
        #expect(harness.pushes.last?.snapshot.version == 6)
        #expect(try saved(harness) == [6 + reserved, 0])
    }

    @Test func aVersionReachingTheReservationWritesTheNextOne() throws {
        let harness = try CoordinatorHarness([CoordinatorHarness.widget("w")])
        let reserved = ExtensionCoordinator.reservedVersions
        for _ in 1...reserved {
            try harness.coordinator.refresh(["w"])
            harness.clock.advance(by: .milliseconds(200))
        }
        #expect(harness.pushes.last?.snapshot.version == reserved)
        #expect(try saved(harness) == [reserved, 0])
        try harness.coordinator.refresh(["w"])
        harness.clock.advance(by: .milliseconds(200))
        #expect(harness.pushes.last?.snapshot.version == reserved + 1)
        #expect(try saved(harness) == [2 * reserved + 1, 0])
    }
}
