import ArgumentParser
import Live

/// `parley models`: the Live models parley knows and what each accepts; `--prices` prints the price table.
struct Models: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the Live models parley knows and the options each accepts.",
        discussion: "With --prices: the list prices per model and backend, per modality, with the date and source of each, and the config's [prices.\"MODEL\"] overrides.")

    @Flag(help: "Print the price table (US dollars per million tokens) instead.")
    var prices = false

    @Option(name: .customLong("config"), help: ArgumentHelp("Config file (for [prices.\"MODEL\"] overrides).", valueName: "file"))
    var configFile: String?

    func run() throws {
        guard prices else { return print(LiveModel.listing) }
        let paths = Paths()
        let config = try report { try Config.load(path: configFile ?? paths.configFile, required: configFile != nil) }
        print(config.priceTable.listing)
    }
}
