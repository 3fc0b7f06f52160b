import Foundation
import Live

/// A Google credentials JSON file of the two types google-auth reads for application default credentials:
/// a service-account key and gcloud's authorized-user file. Other types get a message saying what parley
/// supports. Errors name the file and the field, never a value.
public enum CredentialsFile: Sendable {
    case serviceAccount(ServiceAccount)
    case authorizedUser(AuthorizedUser)

    public struct ServiceAccount: Sendable {
        public var path: String
        public var clientEmail: String
        public var privateKey: Secret
        public var privateKeyID: String?
        public var tokenURI: String
        public var projectID: String?
    }

    public struct AuthorizedUser: Sendable {
        public var path: String
        public var clientID: String
        public var clientSecret: Secret
        public var refreshToken: Secret
        public var tokenURI: String
        public var quotaProjectID: String?
    }

    /// Google's token endpoint, for files that name none.
    public static let googleTokenURI = "https://oauth2.googleapis.com/token"

    public var path: String {
        switch self {
        case .serviceAccount(let s): s.path
        case .authorizedUser(let u): u.path
        }
    }

    /// The project the file names: a service account's `project_id`, a user's `quota_project_id`.
    public var projectID: String? {
        switch self {
        case .serviceAccount(let s): s.projectID
        case .authorizedUser(let u): u.quotaProjectID
        }
    }

    public var tokenURI: String {
        switch self {
        case .serviceAccount(let s): s.tokenURI
        case .authorizedUser(let u): u.tokenURI
        }
    }

    /// Who the credential is, for `parley doctor` (no secret).
    public var summary: String {
        switch self {
        case .serviceAccount(let s): "service account \(s.clientEmail)"
        case .authorizedUser: "user credentials (gcloud auth application-default login)"
        }
    }

    public static func load(_ path: String, origin: String) throws(CredentialFailure) -> CredentialsFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CredentialFailure("cannot read \(path) (\(origin))", hint: "check that the file exists and is readable, or unset \(origin == "GOOGLE_APPLICATION_CREDENTIALS" ? "GOOGLE_APPLICATION_CREDENTIALS" : "it")")
        }
        return try parse(data, path: path)
    }

    public static func parse(_ data: Data, path: String) throws(CredentialFailure) -> CredentialsFile {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw CredentialFailure("\(path) is not a JSON object", hint: "download the key again, or run `gcloud auth application-default login`")
        }
        func field(_ name: String) throws(CredentialFailure) -> String {
            guard let v = object[name] as? String, !v.isEmpty else {
                throw CredentialFailure("\(path): field \(name) is missing or not a string", hint: "download the key again, or run `gcloud auth application-default login`")
            }
            return v
        }
        let optional = { (name: String) -> String? in (object[name] as? String).flatMap { $0.isEmpty ? nil : $0 } }
        guard let type = object["type"] as? String else {
            throw CredentialFailure("\(path): field type is missing", hint: "a credentials file says \"type\": \"service_account\" or \"authorized_user\"")
        }
        switch type {
        case "service_account":
            return .serviceAccount(ServiceAccount(
                path: path, clientEmail: try field("client_email"), privateKey: Secret(try field("private_key")),
                privateKeyID: optional("private_key_id"), tokenURI: optional("token_uri") ?? googleTokenURI,
                projectID: optional("project_id")))
        case "authorized_user":
            return .authorizedUser(AuthorizedUser(
                path: path, clientID: try field("client_id"), clientSecret: Secret(try field("client_secret")),
                refreshToken: Secret(try field("refresh_token")), tokenURI: optional("token_uri") ?? googleTokenURI,
                quotaProjectID: optional("quota_project_id")))
        case "external_account", "external_account_authorized_user":
            throw CredentialFailure(
                "\(path): credentials of type \(type) (workload identity federation) are not supported",
                hint: "parley reads service_account and authorized_user files, the metadata server and gcloud; for federation set [auth] token_command = \"gcloud auth print-access-token\"")
        case "impersonated_service_account":
            throw CredentialFailure(
                "\(path): credentials of type impersonated_service_account are not supported",
                hint: "parley reads service_account and authorized_user files, the metadata server and gcloud; for impersonation set [auth] token_command = \"gcloud auth print-access-token --impersonate-service-account=SA\"")
        default:
            throw CredentialFailure(
                "\(path): field type is \"\(type)\", which parley does not read",
                hint: "use a service_account key or `gcloud auth application-default login` (authorized_user)")
        }
    }
}
