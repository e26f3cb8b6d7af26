import ExtensionSDKTesting
import HelloWidgetCore
import Testing


@Test func theWidgetCountsItsUpdatesInTheSharedDefaults() throws {
    let driver = try WidgetDriver(HelloWidget())
    driver.defaults["group.hello"] = ["count": .number(41)]
    let result = try driver.update(mode: .expanded)
    #expect(result.result == .newData)
    #expect(result.snapshot == .object(["text": .string("Hello from Swift, update #42")]))
    #expect(driver.defaults["group.hello"]?["count"] == .number(42))
    driver.terminate()
}
