import ExtensiondTestSupport
import Foundation
import Testing

/// docs/grafana-dashboard.json reads as an operator expects: one unit per panel (the
/// pressure level is a state, not a percentage; bytes are not drawn against counts), a
/// `$name` variable that every per-process query follows, and kills and reloads as
/// annotations. MetricsTests checks that every family it queries is exposed.
@Suite struct DashboardTests {
    let dashboard: [String: Any]

    init() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Binaries.packageRoot() + "/docs/grafana-dashboard.json"))
        dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    var panels: [[String: Any]] { dashboard["panels"] as? [[String: Any]] ?? [] }

    func expressions(_ panel: [String: Any]) -> [String] {
        (panel["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String }
    }

    func unit(_ panel: [String: Any]) -> String? {
        ((panel["fieldConfig"] as? [String: Any])?["defaults"] as? [String: Any])?["unit"] as? String
    }

    @Test func eachPanelDrawsOneKindOfQuantityInItsUnit() throws {
        #expect(panels.count >= 12)
        for panel in panels {
            let title = panel["title"] as? String ?? "?"
            let unit = try #require(self.unit(panel), "\(title) has no unit")
            let queries = expressions(panel)
            let bytes = queries.filter { $0.contains("_bytes") }
            #expect(bytes.isEmpty || bytes.count == queries.count, "\(title) mixes bytes with other quantities")
            #expect(bytes.isEmpty || unit == "bytes", "\(title): bytes drawn in \(unit)")
            if queries.contains(where: { $0.contains("extensiond_pressure_level") }) {
                #expect(queries.count == 1 && !unit.hasPrefix("percent"), "the pressure level is a state (0, 1, 2) on a panel of its own: \(title)")
            }
            if queries.contains(where: { $0.contains("process_cpu_seconds_total") }) {
                #expect(queries.count == 1, "\(title): CPU beside other quantities")
            }
        }
    }

    @Test func aNameVariableFiltersEveryPerProcessQuery() throws {
        let variables = (dashboard["templating"] as? [String: Any])?["list"] as? [[String: Any]] ?? []
        let name = try #require(variables.first { $0["name"] as? String == "name" })
        #expect((name["query"] as? String)?.contains("label_values(extensiond_process_state") == true)
        for panel in panels {
            for query in expressions(panel)
            where query.contains("extensiond_process_") || query.contains("extensiond_update_")
                || query.contains("extensiond_pull") || query.contains("extensiond_launch_")
            {
                #expect(query.contains("name=~\"$name\""), "\(panel["title"] ?? "?"): \(query)")
            }
        }
    }

    @Test func killsAndReloadsAreAnnotations() throws {
        let annotations = (dashboard["annotations"] as? [String: Any])?["list"] as? [[String: Any]] ?? []
        let queries = annotations.compactMap { $0["expr"] as? String }
        #expect(queries.contains { $0.contains("extensiond_process_kills_total") }, "\(queries)")
        #expect(queries.contains { $0.contains("extensiond_reloads_total") }, "\(queries)")
    }
}
