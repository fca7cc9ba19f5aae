import Foundation
import RichPushCLI

exit(await RichPushCommandLine.main(Array(CommandLine.arguments.dropFirst())))
