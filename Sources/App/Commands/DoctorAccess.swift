import Foundation
import GoogleAuth
import Live

/// `parley doctor`'s credential checks for Vertex AI and token commands: which source was found and where
/// (never a value), the project and location, whether the token endpoint or metadata server answers, a token
/// fetched from it and when it expires. Returns the access and a credential for the network checks when it got
/// that far.
enum DoctorAccess {
    static let area = "credentials"

    static func run(
        _ config: Config, environment: [String: String], timeout: Double = 5
    ) async -> (checks: [DoctorCheck], access: LiveAccess?, credential: Credential?) {
        var checks: [DoctorCheck] = []
        let access: LiveAccess
        do {
            access = try await LiveAccess.resolve(config, environment: environment)
        } catch let f as CredentialFailure {
            return ([.fail(area, "source", f.message, fix: f.hint)], nil, nil)
        } catch {
            return ([.fail(area, "source", "\(error)", fix: "see the message")], nil, nil)
        }
        switch access.backend {
        case .vertex(let project, let location):
            checks.append(.ok(area, "backend", "Vertex AI, project \(project) (from \(access.projectFrom ?? "?")), location \(location)"))
        case .vertexExpress:
            checks.append(.ok(area, "backend", "Vertex AI express mode (an API key, no project)"))
        case .geminiAPI:
            checks.append(.ok(area, "backend", "the Gemini API"))
        }
        checks.append(.ok(area, "source", access.source))
        if let adc = access.adcSource, let reached = await adc.reachability(timeout: timeout) {
            let item: String
            if case .metadataServer = adc { item = "metadata server" } else { item = "token endpoint" }
            switch reached {
            case .success(let what): checks.append(.ok(area, item, what))
            case .failure(let f):
                checks.append(.fail(area, item, f.message, fix: f.hint))
                checks.append(.skip(area, "token", "not fetched: the \(item) does not answer"))
                return (checks, access, nil)
            }
        }
        guard let authorizer = access.authorizer else { return (checks, access, access.credential) }
        do {
            try await authorizer.prepare()
            let credential = try await authorizer.credential(newSession: true)
            let expiry = authorizer.expiresIn.map { "expires in \(Int(($0 / 60).rounded())) min" } ?? "expiry not given"
            checks.append(.ok(area, "token", "fetched (\(expiry))"))
            return (checks, access, credential)
        } catch let f as CredentialFailure {
            checks.append(.fail(area, "token", f.message, fix: f.hint))
        } catch {
            checks.append(.fail(area, "token", "\(error)", fix: "see the message"))
        }
        return (checks, access, nil)
    }
}
