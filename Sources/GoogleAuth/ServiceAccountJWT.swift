import Crypto
import Foundation
import Live
import _CryptoExtras

/// The signed JWT a service account exchanges for an access token (RFC 7523, as google-auth builds it):
/// RS256 over `iss` (the account's email), `scope`, `aud` (the file's `token_uri`), `iat` and `exp` (an hour
/// later, the longest Google accepts). Signed with swift-crypto's RSA.
public enum ServiceAccountJWT {
    public static let scope = "https://www.googleapis.com/auth/cloud-platform"
    public static let lifetime = 3600.0

    /// The assertion, signed at wall-clock `now` (seconds since 1970).
    public static func assertion(_ account: CredentialsFile.ServiceAccount, now: Double) throws(CredentialFailure) -> Secret {
        let key: _RSA.Signing.PrivateKey
        do {
            key = try _RSA.Signing.PrivateKey(pemRepresentation: account.privateKey.revealed)
        } catch {
            throw CredentialFailure("\(account.path): field private_key is not an RSA private key in PEM form", hint: "download a new key for \(account.clientEmail)")
        }
        var header: [String: String] = ["alg": "RS256", "typ": "JWT"]
        if let kid = account.privateKeyID { header["kid"] = kid }
        let iat = Int(now)
        let claims: [String: Any] = [
            "iss": account.clientEmail, "scope": scope, "aud": account.tokenURI, "iat": iat, "exp": iat + Int(lifetime),
        ]
        guard let h = try? JSONSerialization.data(withJSONObject: header, options: .sortedKeys),
            let c = try? JSONSerialization.data(withJSONObject: claims, options: .sortedKeys)
        else { throw CredentialFailure("cannot encode the JWT for \(account.clientEmail)", hint: "report this as a bug") }
        let input = base64URL(h) + "." + base64URL(c)
        do {
            let signature = try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
            return Secret(input + "." + base64URL(signature.rawRepresentation))
        } catch {
            throw CredentialFailure("\(account.path): signing with field private_key failed", hint: "download a new key for \(account.clientEmail)")
        }
    }

    /// Base64url without padding (RFC 7515).
    public static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
