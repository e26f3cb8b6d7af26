import ExtensiondTestSupport
import HostProtocol
import Testing
import WireProtocol

/// docs/PROTOCOL.md §6 on the wire: the environment, `execute`, `asset`, and the bounds of a card.
@Suite struct CardMessageTests {
    let size = Size(width: 320, height: 110)

    @Test func theEnvironmentTravelsWithUpdatesAndHostRequests() throws {
        let environment = RenderEnvironment(colorScheme: .dark, locale: "zh-CN", scale: 2.5)
        // update is written by its own fast writer: its keys and values must be the general encoder's.
        try expectWire(
            SupervisorToExtension.update(.init(id: 1, mode: .compact, maxSize: size, reason: .pull, environment: environment)),
            #"{"type":"update","id":1,"mode":"compact","maxSize":{"width":320,"height":110},"reason":"pull","colorScheme":"dark","locale":"zh-CN","scale":2.5}"#
        )
        try expectWire(
            HostToSupervisor.pull(.init(id: 2, extensionID: "w", mode: .compact, maxSize: size, environment: environment)),
            #"{"type":"pull","id":2,"extension":"w","mode":"compact","maxSize":{"width":320,"height":110},"colorScheme":"dark","locale":"zh-CN","scale":2.5}"#)
        try expectWire(
            HostToSupervisor.subscribe(.init(extensions: ["w"], environment: RenderEnvironment(locale: "en"))),
            #"{"type":"subscribe","extensions":["w"],"locale":"en"}"#)
        try expectWire(
            HostToSupervisor.visible(.init(extensions: [.init(extensionID: "w")], visible: false, environment: RenderEnvironment(colorScheme: .light))),
            #"{"type":"visible","extensions":[{"extension":"w"}],"visible":false,"colorScheme":"light"}"#)
    }

    @Test(arguments: [
        (#""colorScheme":"blue""#, "colorScheme"), (#""locale":"""#, "locale"), (#""locale":"fr FR""#, "locale"),
        (#""locale":"<script>""#, "locale"), ("\"locale\":\"" + String(repeating: "a", count: 65) + "\"", "locale"),
        (#""scale":0.2"#, "scale"), (#""scale":16.5"#, "scale"), (#""scale":"2""#, "scale"),
    ])
    func anEnvironmentOutsideItsSetIsAnErrorNamingTheField(field: String, name: String) throws {
        let line = #"{"type":"pull","id":1,"extension":"w","mode":"compact","maxSize":{"width":1,"height":1},"# + field + "}"
        let error = try #require(decodingError(line, as: HostToSupervisor.self))
        #expect("\(error)".contains(name), "\(error)")
    }

    @Test func executeAndAssetsOnTheWire() throws {
        try expectWire(
            HostToSupervisor.execute(.init(id: 3, extensionID: "w", verb: "toggle", data: ["on": true], mode: .compact, maxSize: size, instance: "a")),
            #"{"type":"execute","id":3,"extension":"w","verb":"toggle","data":{"on":true},"mode":"compact","maxSize":{"width":320,"height":110},"instance":"a"}"#
        )
        try expectWire(
            SupervisorToExtension.execute(
                .init(
                    id: 4, verb: "toggle", data: nil, mode: .expanded, maxSize: size,
                    environment: RenderEnvironment(colorScheme: .light))),
            #"{"type":"execute","id":4,"verb":"toggle","data":null,"mode":"expanded","maxSize":{"width":320,"height":110},"colorScheme":"light"}"#)
        try expectWire(
            HostToSupervisor.asset(.init(id: 5, extensionID: "w", name: "sun.png")),
            #"{"type":"asset","id":5,"extension":"w","name":"sun.png"}"#)
        try expectWire(
            SupervisorToHost.assetResult(.init(id: 5, contentType: "image/png", data: "iVBO")),
            #"{"type":"assetResult","id":5,"contentType":"image/png","data":"iVBO"}"#)
        let longVerb = String(repeating: "v", count: 256)
        let error = try #require(
            decodingError(
                #"{"type":"execute","id":3,"extension":"w","verb":""# + longVerb + #"","mode":"compact","maxSize":{"width":1,"height":1}}"#,
                as: HostToSupervisor.self))
        #expect("\(error)".contains("verb"))
        let bigData =
            #"{"type":"execute","id":3,"extension":"w","verb":"v","data":""# + String(repeating: "d", count: 4100)
            + #"","mode":"compact","maxSize":{"width":1,"height":1}}"#
        #expect("\(try #require(decodingError(bigData, as: HostToSupervisor.self)))".contains("data"))
    }

    /// Cards built at random within every bound pass; each bound's extreme passes and one past it fails.
    @Test func cardShapeKeepsEachBoundAndNoMore() throws {
        var random = SeededRandom(seed: 21)
        for _ in 0..<300 {
            let card = Self.randomCard(depth: Int.random(in: 0...6, using: &random), using: &random)
            #expect(CardShape.problem(with: card) == nil, "\(card)")
        }
        func card(_ body: [JSONValue]) -> JSONValue { ["type": "AdaptiveCard", "version": "1.5", "body": .array(body)] }
        func text(_ count: Int) -> JSONValue { ["type": "TextBlock", "text": .string(String(repeating: "x", count: count))] }
        #expect(CardShape.problem(with: card([text(CardShape.maxStringBytes)])) == nil)
        #expect(CardShape.problem(with: card([text(CardShape.maxStringBytes + 1)]))?.contains("card.body[0].text") == true)
        let uri = "data:image/png;base64," + String(repeating: "A", count: CardShape.maxDataURIBytes - 22)
        #expect(CardShape.problem(with: card([["type": "Image", "url": .string(uri)]])) == nil)
        #expect(CardShape.problem(with: card([["type": "Image", "url": .string(uri + "A")]])) != nil)
        // Depth: the card is level 0, body 1, each Container and its items two more.
        func nested(_ levels: Int) -> JSONValue {
            (0..<levels).reduce(text(1)) { inner, _ in ["type": "Container", "items": [inner]] }
        }
        #expect(CardShape.problem(with: card([nested(14)])) == nil)
        #expect(CardShape.problem(with: card([nested(16)]))?.contains("nested deeper than 32") == true)
        #expect(CardShape.problem(with: card(Array(repeating: text(1), count: CardShape.maxObjects - 1))) == nil)
        #expect(CardShape.problem(with: card(Array(repeating: text(1), count: CardShape.maxObjects)))?.contains("more than 2000 objects") == true)
        #expect(CardShape.problem(with: card([["text": "no type"]]))?.contains("an element is an object with a string type") == true)
        #expect(CardShape.problem(with: ["type": "AdaptiveCard", "body": "text"]) == "body is not an array")
        #expect(CardShape.problem(with: ["type": "AdaptiveCard", "version": 1.5]) == "version is not a string")
    }

    static func randomCard(depth: Int, using random: inout SeededRandom) -> JSONValue {
        func element(_ depth: Int) -> JSONValue {
            switch Int.random(in: 0...3, using: &random) {
            case 0 where depth > 0:
                return ["type": "Container", "style": "emphasis", "items": .array((0..<Int.random(in: 0...3, using: &random)).map { _ in element(depth - 1) })]
            case 1 where depth > 0:
                return ["type": "ColumnSet", "columns": [["type": "Column", "width": "auto", "items": [element(depth - 1)]], ["items": []]]]
            case 2:
                return [
                    "type": "FactSet", "facts": [["title": "a", "value": .string(String(repeating: "é", count: Int.random(in: 0...8000, using: &random)))]],
                ]
            default: return ["type": "RichTextBlock", "inlines": ["plain", ["type": "TextRun", "text": "run", "italic": true]]]
            }
        }
        return [
            "type": "AdaptiveCard", "version": "1.5", "body": .array((0..<Int.random(in: 0...5, using: &random)).map { _ in element(depth) }),
            "actions": [["type": "Action.Execute", "verb": "go", "data": ["n": .number(Double(Int.random(in: 0...9, using: &random)))]]],
        ]
    }
}
