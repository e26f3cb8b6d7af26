/// `status` as scripts and monitoring call it, over and over: `[--socket PATH] [--json]
/// status [NAME…]`, read without ArgumentParser, whose reflection was two thirds of the
/// instructions of such a call (bench/README.md, "status-load"). Anything else (an option
/// after the command, help, a name that looks like an option) is left to ArgumentParser,
/// which words usage and errors for the whole tool.
enum PlainStatus {
    static func command(_ arguments: [String]) -> Status? {
        let (globalArguments, line) = GlobalOptions.split(arguments)
        guard line.first == Status.configuration.commandName,
            !line.dropFirst().contains(where: { $0.hasPrefix("-") || Supervisorctl.needsTheRoot($0) })
        else { return nil }
        var global = GlobalOptions()
        global.json = false
        global.socket = nil
        var index = globalArguments.startIndex
        while index < globalArguments.endIndex {
            let argument = globalArguments[index]
            if argument == "--json" {
                global.json = true
            } else if argument.hasPrefix("--socket=") {
                global.socket = String(argument.dropFirst("--socket=".count))
            } else {
                // `--socket` without its path is ArgumentParser's to report.
                guard index + 1 < globalArguments.endIndex else { return nil }
                index += 1
                global.socket = globalArguments[index]
            }
            index += 1
        }
        var status = Status()
        status.global = global
        status.names = Array(line.dropFirst())
        return status
    }
}
