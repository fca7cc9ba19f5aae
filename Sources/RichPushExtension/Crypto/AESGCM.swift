import Foundation

#if canImport(CryptoKit)
import CryptoKit
#elseif canImport(COpenSSL)
import COpenSSL
#endif

/// AES-256-GCM, sealed and opened with CryptoKit on Apple platforms and libcrypto (OpenSSL 3)
/// elsewhere. Same inputs and outputs on both: a 32-byte key, a 12-byte nonce, the ciphertext
/// (same length as the plaintext) and a 16-byte tag, and optional additional authenticated data
/// (envelope version 2: the clear push id; version 1: none).
enum AESGCM {
    /// Key length in bytes (AES-256).
    static let keyBytes = 32
    /// Nonce (IV) length in bytes: 96 bits, NIST SP 800-38D's recommended length.
    static let nonceBytes = 12
    /// Tag length in bytes: the full 128-bit GCM tag.
    static let tagBytes = 16

    /// A failure inside the cipher: the tag did not verify, or the library refused the inputs.
    enum Failure: Error, Sendable {
        case authentication
        case library(String)
    }

    /// Encrypts `plaintext`, authenticating `associatedData` with it (not encrypted, not stored).
    static func seal(_ plaintext: Data, key: Data, nonce: Data, associatedData: Data = Data()) throws(Failure) -> (ciphertext: Data, tag: Data) {
        #if canImport(CryptoKit)
        do {
            let box = try AES.GCM.seal(
                plaintext, using: SymmetricKey(data: key), nonce: AES.GCM.Nonce(data: nonce), authenticating: associatedData)
            return (box.ciphertext, box.tag)
        } catch {
            throw .library(String(describing: error))
        }
        #else
        guard let ctx = EVP_CIPHER_CTX_new() else { throw .library("EVP_CIPHER_CTX_new failed") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        guard EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), nil, nil, nil) == 1,
            richpush_gcm_set_ivlen(ctx, Int32(nonce.count)) == 1
        else { throw .library("EVP_EncryptInit_ex(aes-256-gcm) failed") }
        let keyBytes = [UInt8](key)
        let nonceBytes = [UInt8](nonce)
        guard EVP_EncryptInit_ex(ctx, nil, nil, keyBytes, nonceBytes) == 1 else {
            throw .library("EVP_EncryptInit_ex(key, iv) failed")
        }
        if !associatedData.isEmpty {
            var aadWritten: Int32 = 0
            let aad = [UInt8](associatedData)
            guard EVP_EncryptUpdate(ctx, nil, &aadWritten, aad, Int32(aad.count)) == 1 else {
                throw .library("EVP_EncryptUpdate(aad) failed")
            }
        }
        let input = [UInt8](plaintext)
        var output = [UInt8](repeating: 0, count: input.count + 16)
        var written: Int32 = 0
        if !input.isEmpty {
            guard EVP_EncryptUpdate(ctx, &output, &written, input, Int32(input.count)) == 1 else {
                throw .library("EVP_EncryptUpdate failed")
            }
        }
        var finalWritten: Int32 = 0
        let finalOK = output.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return EVP_EncryptFinal_ex(ctx, base + Int(written), &finalWritten) == 1
        }
        guard finalOK else { throw .library("EVP_EncryptFinal_ex failed") }
        var tag = [UInt8](repeating: 0, count: tagBytes)
        guard richpush_gcm_get_tag(ctx, Int32(tagBytes), &tag) == 1 else { throw .library("GCM get tag failed") }
        return (Data(output.prefix(Int(written + finalWritten))), Data(tag))
        #endif
    }

    /// Decrypts and authenticates `ciphertext` with `associatedData` (which must be what it was
    /// sealed with).
    static func open(ciphertext: Data, tag: Data, key: Data, nonce: Data, associatedData: Data = Data()) throws(Failure) -> Data {
        #if canImport(CryptoKit)
        let box: AES.GCM.SealedBox
        do {
            box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: nonce), ciphertext: ciphertext, tag: tag)
        } catch {
            throw .library(String(describing: error))
        }
        do {
            return try AES.GCM.open(box, using: SymmetricKey(data: key), authenticating: associatedData)
        } catch {
            throw .authentication
        }
        #else
        guard let ctx = EVP_CIPHER_CTX_new() else { throw .library("EVP_CIPHER_CTX_new failed") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        guard EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), nil, nil, nil) == 1,
            richpush_gcm_set_ivlen(ctx, Int32(nonce.count)) == 1
        else { throw .library("EVP_DecryptInit_ex(aes-256-gcm) failed") }
        let keyBytes = [UInt8](key)
        let nonceBytes = [UInt8](nonce)
        guard EVP_DecryptInit_ex(ctx, nil, nil, keyBytes, nonceBytes) == 1 else {
            throw .library("EVP_DecryptInit_ex(key, iv) failed")
        }
        if !associatedData.isEmpty {
            var aadWritten: Int32 = 0
            let aad = [UInt8](associatedData)
            guard EVP_DecryptUpdate(ctx, nil, &aadWritten, aad, Int32(aad.count)) == 1 else {
                throw .library("EVP_DecryptUpdate(aad) failed")
            }
        }
        let input = [UInt8](ciphertext)
        var output = [UInt8](repeating: 0, count: input.count + 16)
        var written: Int32 = 0
        if !input.isEmpty {
            guard EVP_DecryptUpdate(ctx, &output, &written, input, Int32(input.count)) == 1 else {
                throw .library("EVP_DecryptUpdate failed")
            }
        }
        var tagBytes = [UInt8](tag)
        guard richpush_gcm_set_tag(ctx, Int32(tagBytes.count), &tagBytes) == 1 else {
            throw .library("GCM set tag failed")
        }
        var finalWritten: Int32 = 0
        let verified = output.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return EVP_DecryptFinal_ex(ctx, base + Int(written), &finalWritten) > 0
        }
        // Never hand out unauthenticated plaintext.
        guard verified else { throw .authentication }
        return Data(output.prefix(Int(written + finalWritten)))
        #endif
    }

    /// `count` bytes from the system's cryptographically secure generator.
    static func randomBytes(_ count: Int) throws(Failure) -> Data {
        #if canImport(CryptoKit)
        var generator = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        #else
        var bytes = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&bytes, Int32(count)) == 1 else { throw .library("RAND_bytes failed") }
        return Data(bytes)
        #endif
    }
}
