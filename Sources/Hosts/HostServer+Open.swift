import HostProtocol

extension HostServer {
    /// A host's `open` of a link in an extension's snapshot: the URL goes to the extension's
    /// containing app when that app owns its scheme (launched if needed), never to the
    /// extension, which is not launched. Refusals are answered with their reason.
    func openLink(_ request: HostToSupervisor.Open) -> SupervisorToHost.OpenResult {
        do {
            let record = try extensions.usableRecord(request.extensionID, point: nil)
            try openInApp(request.url, record.spec.app, "a host (a link of \(record.id))")
            return .init(id: request.id, success: true)
        } catch {
            return .init(id: request.id, success: false, error: "\(error)")
        }
    }
}
