import HostProtocol
import Testing

/// Decoding errors name the message type and the field.
@Suite struct DecodingErrorTests {
    @Test func missingFieldIsNamed() {
        #expect(
            decodingError(#"{"type":"update","id":1,"mode":"compact","reason":"pull"}"#, as: SupervisorToExtension.self)
                == .invalidField(messageType: "update", field: "maxSize", problem: "missing"))
        #expect(
            decodingError(
                #"{"type":"pull","id":1,"extension":"e","mode":"compact","maxSize":{"width":1}}"#,
                as: HostToSupervisor.self)
                == .invalidField(messageType: "pull", field: "maxSize.height", problem: "missing"))
        #expect(
            decodingError(#"{"type":"result","id":1,"result":"newData"}"#, as: ExtensionToSupervisor.self)
                == .invalidField(messageType: "result", field: "snapshot", problem: "missing"))
        #expect(
            decodingError(#"{"type":"defaults","id":1,"group":"g","op":"get"}"#, as: ExtensionToSupervisor.self)
                == .invalidField(messageType: "defaults", field: "key", problem: "missing"))
    }

    @Test func mistypedFieldIsNamed() {
        #expect(
            decodingError(#"{"type":"ready","protocol":"1"}"#, as: ExtensionToSupervisor.self)
                == .invalidField(messageType: "ready", field: "protocol", problem: "expected an integer"))
        #expect(
            decodingError(#"{"type":"setHasContent","value":1}"#, as: ExtensionToSupervisor.self)
                == .invalidField(messageType: "setHasContent", field: "value", problem: "expected a boolean"))
        #expect(
            decodingError(#"{"type":"subscribe","extensions":"a"}"#, as: HostToSupervisor.self)
                == .invalidField(messageType: "subscribe", field: "extensions", problem: "expected an array"))
        #expect(
            decodingError(#"{"type":"openURL","id":1,"url":null}"#, as: ExtensionToSupervisor.self)?.field == "url")
        #expect(decodingError(#"{"type":"openURL","id":-1,"url":"x"}"#, as: ExtensionToSupervisor.self)?.field == "id")
    }

    @Test func valuesOutsideTheirSetAreNamed() {
        let error = decodingError(#"{"type":"result","id":1,"result":"maybe"}"#, as: ExtensionToSupervisor.self)
        #expect(error?.field == "result")
        #expect(error?.description.contains(#""newData", "noData", "failed""#) == true)
        #expect(
            decodingError(#"{"type":"result","id":1,"result":"noData","reload":"soon"}"#, as: ExtensionToSupervisor.self)?
                .field == "reload")
        #expect(
            decodingError(
                #"{"type":"result","id":1,"result":"noData","reload":{"after":"tomorrow"}}"#,
                as: ExtensionToSupervisor.self)?.field == "reload.after")
    }

    @Test func nestedItemsAreNamedWithTheirIndex() {
        let line = #"{"type":"begin","id":1,"items":[{"type":"a","path":"/x"},{"type":"b"}]}"#
        let error = decodingError(line, as: SupervisorToExtension.self)
        #expect(error?.field == "items[1]")
        #expect(error?.description == #"message "begin": field "items[1]": needs "path" or "value""#)
        #expect(
            decodingError(#"{"type":"perform","id":1,"extension":"e","items":[{"path":"/x"}]}"#, as: HostToSupervisor.self)
                == .invalidField(messageType: "perform", field: "items[0].type", problem: "missing"))
    }

    @Test func typeErrors() {
        #expect(decodingError(#"{"type":"pull2"}"#, as: HostToSupervisor.self) == .unknownType("pull2"))
        // A message of the other direction is unknown here.
        #expect(decodingError(#"{"type":"update"}"#, as: ExtensionToSupervisor.self) == .unknownType("update"))
        #expect(decodingError(#"{"id":1}"#, as: HostToSupervisor.self) == .malformed(reason: #"missing field "type""#))
        #expect(
            decodingError(#"{"type":7}"#, as: HostToSupervisor.self)
                == .malformed(reason: #"field "type" must be a string"#))
        #expect(decodingError(#"[1,2]"#, as: HostToSupervisor.self) == .malformed(reason: "not a JSON object"))
        #expect(decodingError(#"{"type":"list""#, as: HostToSupervisor.self) == .malformed(reason: "not valid UTF-8 JSON"))
        #expect(
            ((try? SupervisorToHost.decode(line: [0x7B, 0xFF, 0xFE, 0x7D])) == nil))
    }
}

extension ProtocolError {
    /// The field an `invalidField` error names.
    var field: String? {
        guard case .invalidField(_, let field, _) = self else { return nil }
        return field
    }
}

/// Every bounded string field names itself and its bound when a peer exceeds it.
@Suite struct BoundedFieldTests {
    @Test func aCancelErrorIsAtMost4096Bytes() throws {
        let fits = String(repeating: "x", count: 4096)
        #expect(
            try ExtensionToSupervisor.decode(line: Array(#"{"type":"cancel","id":1,"error":"\#(fits)"}"#.utf8))
                == .cancel(.init(id: 1, error: fits)))
        #expect(
            decodingError(#"{"type":"cancel","id":1,"error":"\#(fits)y"}"#, as: ExtensionToSupervisor.self)
                == .invalidField(messageType: "cancel", field: "error", problem: "longer than 4096 bytes (4097)"))
        #expect(decodingError(#"{"type":"cancel","id":1}"#, as: ExtensionToSupervisor.self)?.field == "error")
    }
}
