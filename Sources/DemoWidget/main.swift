/// The demo widget: shows the time, the load average and a counter shared through the
/// `group.demo` app group. It owns only its own content; protocol handling is the SDK's.
import ExtensionSDK

ExtensionRuntime.run(DemoWidget())
