import Foundation
import RichPushCLI

// First: a closed standard descriptor must not be reused by the next file opened.
StandardStreams.prepare()
exit(await RichPushCommandLine.main(Array(CommandLine.arguments.dropFirst())))
