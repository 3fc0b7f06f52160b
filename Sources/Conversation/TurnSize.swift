import Live

/// Whether a typed turn fits the model's input window, checked before it is sent: a 1 MB paste used to go out
/// and sit in memory until the service refused it.
///
/// Tokens are estimated as UTF-8 bytes / 4, rounded up: Gemini's tokens average about four characters of
/// English text. The estimate errs toward sending rather than refusing a turn the model would take: English
/// prose and code come out close or high, while text of three-byte characters (CJK), where a character is often
/// a token of its own, comes out low, so a turn refused here is over the window for certain and one near the
/// limit is left to the service, which has the last word.
package struct TurnSize: Equatable {
    package let bytes: Int
    package let estimatedTokens: Int
    package let limit: Int
    package let model: String

    package init(text: String, model: String) {
        bytes = text.utf8.count
        estimatedTokens = Self.estimatedTokens(bytes: bytes)
        limit = LiveModel.traits(of: model).inputTokenLimit
        self.model = model
    }

    package static func estimatedTokens(bytes: Int) -> Int { (bytes + 3) / 4 }

    package var fits: Bool { estimatedTokens <= limit }

    /// What the user is told when it does not fit: how large the turn is and what the limit is.
    package var refusal: String? {
        fits ? nil : "not sent: this message is about \(estimatedTokens) tokens (\(Self.size(bytes))) and \(model) "
            + "takes at most \(limit) tokens of input — shorten it or send it in parts"
    }

    package static func size(_ bytes: Int) -> String {
        bytes >= 1_048_576 ? "\(bytes * 10 / 1_048_576 / 10).\(bytes * 10 / 1_048_576 % 10) MB"
            : bytes >= 1024 ? "\(bytes / 1024) KB" : "\(bytes) bytes"
    }
}
