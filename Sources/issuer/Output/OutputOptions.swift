import ArgumentParser

/// `--output text|json`, on every command that lists or shows (docs/cli.md).
struct OutputOptions: ParsableArguments {
    @Option(name: .customLong("output"), help: ArgumentHelp("text (default) or json: one JSON document on stdout", valueName: "format"))
    var format: OutputFormat = .text

    var isJSON: Bool { format == .json }
}
