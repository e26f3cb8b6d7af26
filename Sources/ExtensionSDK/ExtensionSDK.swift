/// The Swift SDK for extension authors.
