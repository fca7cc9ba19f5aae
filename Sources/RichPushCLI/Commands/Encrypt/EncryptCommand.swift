import Foundation
@_spi(RichPushInternal) import RichPushCore
@_spi(RichPushInternal) import RichPushExtension

/// `richpush encrypt`: makes the `enc` envelope (AES-256-GCM) a provider puts in an encrypted payload.
enum EncryptCommand {
    static let spec = CommandSpec(
        name: "encrypt",
        summary: "Encrypt a payload's private part into an AES-256-GCM \"enc\" envelope",
        usage: "richpush encrypt --key FILE --kid ID PLAINTEXT.json [--payload BASE.json] [--encrypt-push-id]",
        discussion: """
            PLAINTEXT.json is a JSON object the device decrypts before any media work. The
            extension reads "title", "subtitle" and "body" into the alert, and every other key
            (e.g. "media-url", a URL or an array of URLs, "push_id", "buttons", "thumbnail", "badge_op")
            as if it were a top-level payload key.

            Prints the envelope {"v":2,"kid":ID,"iv":…,"ct":…,"tag":…} (base64: a fresh random
            12-byte IV, the ciphertext, the 16-byte tag), or with --payload the BASE payload with
            the envelope under "enc". Keep a generic alert in BASE (e.g. "New message"): it is
            what the user sees if the device cannot decrypt.

            Envelope version 2 binds the push id the payload carries in the clear (BASE's, or
            PLAINTEXT.json's push_id moved out of it) as AES-GCM associated data: the device
            decrypts it only in a payload with that same push id (or, with none bound, with no
            push id), so a ciphertext copied into another push fails as decrypt_failed.

            A "push_id" in PLAINTEXT.json stays in the clear by default, so a device that cannot
            decrypt still sends its receipt (outcome text_only, reason decrypt_failed): with
            --payload it is written at the payload's top level (a BASE push id that differs is
            an error); without, it is left out of the envelope and a note says to put it next to
            "enc". --encrypt-push-id keeps it inside the ciphertext instead (hidden from APNs,
            but a failed decryption then sends no receipt).

            Key file: {"k-2": "<base64 of 32 bytes>"}, the same file `simulate --keys` reads;
            make a key with `openssl rand -base64 32`.

            The result must fit an APNs payload (Apple: at most 4096 bytes): a plaintext over
            4096 bytes is refused (the ciphertext is as long, and base64 makes it 4/3 longer), as
            is a --payload result over 4096 bytes; a bare envelope over it gets a warning.

            Exit status: 0 on success, 64 for bad usage, 1 for an unreadable or invalid file or
            a result too large for APNs.
            """,
        options: [
            .value("key", "FILE", help: "The key file: a JSON object mapping key ids to base64 AES-256 keys (32 bytes)."),
            .value("kid", "ID", help: "The key id to encrypt with (must be in the key file); the device looks it up."),
            .value("payload", "BASE.json", help: "Print this APNs payload with the envelope under \"enc\" instead of the bare envelope."),
            .flag("encrypt-push-id", help: "Keep PLAINTEXT.json's push_id inside the ciphertext (default: in the clear)."),
        ],
        run: run
    )

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        guard let keyPath = arguments.value("key") else {
            throw UsageError(command: "encrypt", message: "missing '--key FILE' (a JSON key file, e.g. {\"k-2\": \"<base64 of 32 bytes>\"})")
        }
        guard let kid = arguments.value("kid") else {
            throw UsageError(command: "encrypt", message: "missing '--kid ID' (a key id from the key file)")
        }
        guard arguments.positionals.count == 1, let plaintextPath = arguments.positionals.first else {
            throw UsageError(command: "encrypt", message: "give exactly one PLAINTEXT.json file")
        }
        let keys = try FileKeyProvider(contentsOf: URL(fileURLWithPath: keyPath), option: "--key")
        guard let key = keys.key(for: kid) else {
            throw RichPushError(code: .configuration, message: "key id '\(kid)' is not in \(keyPath); it has: \(keys.keyIDs.joined(separator: ", "))")
        }
        var plaintext = try readObject(plaintextPath, what: "PLAINTEXT.json", file: "the plaintext", option: nil)
        // The push id in the clear: a device that cannot decrypt still reports the push.
        var clearPushID: RichPushJSONValue?
        if !arguments.flag("encrypt-push-id"), let pushID = plaintext["push_id"] {
            guard pushID.stringValue.map({ !$0.isEmpty }) == true || pushID.intValue != nil else {
                throw RichPushError(code: .invalidPayload, message: "PLAINTEXT.json file \(plaintextPath): push_id must be a non-empty string or an integer")
            }
            clearPushID = pushID
            plaintext["push_id"] = nil
        }
        // AES-GCM ciphertext is as long as the plaintext, and base64 makes it 4/3 longer: a
        // plaintext over APNs' limit can never fit in a payload.
        let limit = RichPushPayloadLinter.maximumPayloadBytes
        let plaintextBytes = RichPushJSONValue.object(plaintext).jsonData(sortedKeys: true).count
        guard plaintextBytes <= limit else {
            throw RichPushError(
                code: .invalidPayload,
                message:
                    "PLAINTEXT.json file \(plaintextPath) is \(plaintextBytes) bytes as compact JSON; the encrypted payload cannot fit APNs' \(limit)-byte limit (Apple; ciphertext in base64 is 4/3 of the plaintext): send media by URL and keep the text short"
            )
        }
        var base: [String: RichPushJSONValue]?
        if let basePath = arguments.value("payload") {
            base = try readObject(basePath, what: "--payload", file: "the base payload", option: "--payload")
        }
        // Envelope version 2 binds the push id the payload carries in the clear (AES-GCM AAD).
        let boundPushID =
            base.flatMap { DecryptedPayload.clearPushID(in: .object($0)) } ?? clearPushID.flatMap { DecryptedPayload.clearPushID(in: .object(["push_id": $0])) }
        let envelope = try PayloadCipher.encrypt(plaintext, key: key, kid: kid, pushID: boundPushID)
        var output = envelope.json
        if let basePath = arguments.value("payload"), var base {
            if let clearPushID {
                let existing = RichPushPayloadKeyPath.defaultPushIDKeyPaths.lazy.compactMap { $0.lookup(in: .object(base)) }.first
                if let existing, existing != clearPushID {
                    throw RichPushError(
                        code: .invalidPayload,
                        message:
                            "--payload file \(basePath) has push id \(existing.compactText()) but PLAINTEXT.json has push_id \(clearPushID.compactText()): make them the same, or drop one"
                    )
                }
                if existing == nil { base["push_id"] = clearPushID }
            }
            base[EncryptedEnvelope.payloadKey] = envelope.json
            output = .object(base)
        } else if let clearPushID {
            FileHandle.standardError.write(
                Data(
                    "richpush encrypt: note: push_id \(clearPushID.compactText()) is not in the envelope (a device that cannot decrypt still sends its receipt): put \"push_id\": \(clearPushID.compactText()) in the payload next to \"enc\", or use --payload (--encrypt-push-id keeps it inside)\n"
                        .utf8))
        }
        let outputData = output.jsonData(sortedKeys: true)
        if arguments.value("payload") != nil, outputData.count > limit {
            throw RichPushError(
                code: .invalidPayload,
                message:
                    "the payload with the envelope is \(outputData.count) bytes; APNs accepts at most \(limit) bytes (Apple's limit): shorten PLAINTEXT.json (\(plaintextBytes) bytes) or the --payload file"
            )
        }
        if outputData.count > limit {
            FileHandle.standardError.write(
                Data(
                    "richpush encrypt: warning: the envelope alone is \(outputData.count) bytes, over APNs' \(limit)-byte payload limit (Apple); shorten PLAINTEXT.json (\(plaintextBytes) bytes)\n"
                        .utf8))
        }
        try StandardOutput.write(outputData + Data("\n".utf8))
        return 0
    }

    /// A JSON object from a file: `file` names it when it cannot be read, `what` when it does not parse.
    private static func readObject(_ path: String, what: String, file: String, option: String?) throws -> [String: RichPushJSONValue] {
        let data = try FileProblem.read(path, what: file, option: option)
        let json: RichPushJSONValue
        do {
            json = try RichPushJSONValue.parseStrictly(data)
        } catch let error as RichPushError {
            throw RichPushError(code: error.code, message: "\(what) file \(path): \(error.message)", underlying: error)
        }
        guard let object = json.objectValue else {
            throw RichPushError(code: .invalidPayload, message: "\(what) file \(path) must hold a JSON object")
        }
        return object
    }
}
