import Foundation
import RichPushCLI

// First: a closed standard descriptor must not be reused by the next file opened.
StandardStreams.prepare()
// Then, before anything uses OpenSSL: no OpenSSL cleanup at exit racing threads still in libcrypto.
RichPushCommandLine.prepareProcess()
exit(await RichPushCommandLine.main(Array(CommandLine.arguments.dropFirst())))
