/// The status lines this server writes.
public struct HTTPStatus: Sendable, Equatable {
    public let line: String

    public init(_ line: String) { self.line = line }

    public static let ok = HTTPStatus("200 OK")
    public static let noContent = HTTPStatus("204 No Content")
    public static let badRequest = HTTPStatus("400 Bad Request")
    public static let forbidden = HTTPStatus("403 Forbidden")
    public static let notFound = HTTPStatus("404 Not Found")
    public static let methodNotAllowed = HTTPStatus("405 Method Not Allowed")
    public static let lengthRequired = HTTPStatus("411 Length Required")
    public static let payloadTooLarge = HTTPStatus("413 Content Too Large")
    public static let headersTooLarge = HTTPStatus("431 Request Header Fields Too Large")
    public static let badGateway = HTTPStatus("502 Bad Gateway")
    public static let serviceUnavailable = HTTPStatus("503 Service Unavailable")
    public static let gatewayTimeout = HTTPStatus("504 Gateway Timeout")
}
