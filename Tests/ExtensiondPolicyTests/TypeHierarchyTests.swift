import ExtensiondPolicy
import ExtensiondTestSupport
import Testing

@Suite struct TypeHierarchyTests {
    @Test func builtInTypesConformAlongTheirParents() {
        let types = TypeHierarchy()
        #expect(types.conforms("public.jpeg", to: "public.image"))
        #expect(types.conforms("public.jpeg", to: "public.data"))
        #expect(types.conforms("public.utf8-plain-text", to: "public.text"))
        #expect(types.conforms("public.plain-text", to: "public.item"))
        #expect(types.conforms("public.image", to: "public.image"))
        #expect(!types.conforms("public.image", to: "public.jpeg"), "conformance goes up, never down")
        #expect(!types.conforms("public.text", to: "public.image"))
        #expect(types.conforms("com.example.unknown", to: "com.example.unknown"))
        #expect(!types.conforms("com.example.unknown", to: "public.data"))
        #expect(types.lineage(of: "public.jpeg").prefix(2) == ["public.jpeg", "public.image"])
    }

    @Test func declarationsExtendTheHierarchy() throws {
        var types = TypeHierarchy()
        try types.declare("com.example.raw-photo", conformsTo: "public.image")
        #expect(types.conforms("com.example.raw-photo", to: "public.data"))
        try types.declare("com.example.raw-photo", conformsTo: "public.image")  // again: harmless
        #expect(types.lineage(of: "com.example.raw-photo").filter { $0 == "public.image" }.count == 1)
    }

    @Test func aDeclarationThatClosesACycleIsRefusedAndNamesIt() throws {
        var types = TypeHierarchy()
        #expect(throws: TypeHierarchy.DeclarationError.cycle(["public.image", "public.jpeg", "public.image"])) {
            try types.declare("public.image", conformsTo: "public.jpeg")
        }
        #expect(throws: TypeHierarchy.DeclarationError.cycle(["a", "a"])) { try types.declare("a", conformsTo: "a") }
        #expect(!types.conforms("public.image", to: "public.jpeg"), "a refused declaration changes nothing")
    }

    @Test func identifiersAndTheNumberOfDeclarationsAreBounded() throws {
        var types = TypeHierarchy()
        let long = String(repeating: "x", count: TypeHierarchy.maxIdentifierLength + 1)
        #expect(throws: TypeHierarchy.DeclarationError.invalidIdentifier(long)) { try types.declare(long, conformsTo: "public.data") }
        #expect(throws: TypeHierarchy.DeclarationError.invalidIdentifier("a b")) { try types.declare("public.data", conformsTo: "a b") }
        #expect(throws: TypeHierarchy.DeclarationError.invalidIdentifier("")) { try types.declare("", conformsTo: "public.data") }
        for index in 0..<TypeHierarchy.maxDeclarations {
            try types.declare("t\(index)", conformsTo: "public.data")
        }
        #expect(throws: TypeHierarchy.DeclarationError.tooManyDeclarations) { try types.declare("one-more", conformsTo: "public.data") }
    }

    /// Random declarations over a few names: whatever is accepted leaves a hierarchy without
    /// cycles, exactly the declarations whose parent conformed to their type are refused, and
    /// conformance is transitive and agrees with the lineage.
    @Test func randomDeclarationsNeverMakeACycle() throws {
        let names = ["public.data", "public.image", "public.jpeg", "public.text", "a", "b", "c", "d", "e"]
        for seed in UInt64(0)..<2000 {
            var random = SeededRandom(seed: seed)
            var types = TypeHierarchy()
            for _ in 0..<12 {
                let type = names.randomElement(using: &random)!
                let parent = names.randomElement(using: &random)!
                let closesACycle = types.conforms(parent, to: type)
                do {
                    try types.declare(type, conformsTo: parent)
                    #expect(!closesACycle, "seed \(seed): \(type) → \(parent) was accepted")
                } catch {
                    #expect(closesACycle, "seed \(seed): \(type) → \(parent) was refused: \(error)")
                }
            }
            for type in names {
                let lineage = types.lineage(of: type)
                #expect(lineage.first == type && Set(lineage).count == lineage.count, "seed \(seed)")
                for ancestor in lineage {
                    #expect(types.conforms(type, to: ancestor), "seed \(seed)")
                    #expect(ancestor == type || !types.conforms(ancestor, to: type), "seed \(seed): cycle through \(type)")
                    for further in types.lineage(of: ancestor) {
                        #expect(types.conforms(type, to: further), "seed \(seed): not transitive")
                    }
                }
            }
        }
    }
}
