/// The subtree a supervised process's cgroup lives in: `<root>/<kind>/<id>`.
public enum CgroupKind: String, CaseIterable, Equatable, Sendable {
    case hosts
    case apps
    case extensions
}
