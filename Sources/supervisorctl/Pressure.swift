import ArgumentParser
import ControlProtocol

struct Pressure: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pressure",
        abstract: "Memory budget use, the pressure watermarks, PSI averages and the detection mechanisms in use."
    )

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let response = try global.call(.pressure)
        global.show(response) { $0.pressure.map(PressureFormat.text) }
    }
}

/// How `pressure` shows its report.
enum PressureFormat {
    static func text(_ report: PressureReport) -> String {
        var lines: [String] = []
        if let budget = report.budgetBytes, budget > 0 {
            lines.append(
                "usage      \(Format.bytes(report.usageBytes)) of \(Format.bytes(budget)) (\(report.usageBytes * 100 / budget)%), level \(report.level)")
        } else {
            lines.append("usage      \(Format.bytes(report.usageBytes)), no memory_budget")
        }
        if let low = report.lowBytes, let critical = report.criticalBytes {
            let warn = report.warnBytes.map { "warn \(Format.bytes($0)), " } ?? ""
            lines.append("watermarks \(warn)low \(Format.bytes(low)), critical \(Format.bytes(critical))")
        }
        let psi = report.psi.keys.sorted().map { "\($0)=\(report.psi[$0] ?? 0)" }
        lines.append("psi        " + (psi.isEmpty ? "not available" : psi.joined(separator: " ")))
        lines.append("backend    cgroup \(report.cgroupBackend)")
        lines.append("mechanisms")
        lines += report.mechanisms.map { "  " + $0 }
        return lines.joined(separator: "\n")
    }
}
