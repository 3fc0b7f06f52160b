import ArgumentParser
import Live

/// `parley models`: the Live models parley knows and what each accepts.
struct Models: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the Live models parley knows and the options each accepts.")

    func run() { print(LiveModel.listing) }
}
