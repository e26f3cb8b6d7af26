import ExtensiondPolicy

extension ConfigurationDecoder {
    /// `[types]`: `"com.example.raw" = ["public.image"]` adds parents to a type identifier,
    /// on top of the built-in hierarchy. Declarations are taken in key order; one that would
    /// close a conformance cycle is reported at its array element and left out.
    func types(_ node: ConfigNode) -> TypeHierarchy {
        var hierarchy = TypeHierarchy()
        guard let table = node.table else {
            diagnostics.report(node.mismatch(#"a table of type identifiers, such as "com.example.raw" = ["public.image"]"#))
            return hierarchy
        }
        for (type, parents) in table.sorted(by: { $0.key < $1.key }) {
            guard case .array(let elements) = parents.value else {
                diagnostics.report(parents.mismatch(#"an array of the type identifiers it conforms to, such as ["public.image"]"#))
                continue
            }
            for element in elements {
                guard case .string(let parent) = element.value else {
                    diagnostics.report(element.mismatch("a type identifier string"))
                    continue
                }
                do {
                    try hierarchy.declare(type, conformsTo: parent)
                } catch {
                    diagnostics.report(element.origin.error(error.description))
                }
            }
        }
        return hierarchy
    }
}
