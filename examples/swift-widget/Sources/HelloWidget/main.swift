import ExtensionSDK
import HelloWidgetCore

ExtensionRuntime.run(HelloWidget())
