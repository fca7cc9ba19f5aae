#!/usr/bin/env python3
"""Writes the list of Apple's UserNotifications declarations that UserNotificationsStandIn mirrors
(Tests/Fixtures/apple/UserNotifications-iOS16.4.api), taken from Apple's headers in the iOS 16.4
SDK as this toolchain imports them into Swift.

Usage: python3 scripts/apple-api-list.py IOS_TYPECHECK_WORK > Tests/Fixtures/apple/UserNotifications-iOS16.4.api

IOS_TYPECHECK_WORK is the work directory of the team's ios-typecheck tool after one run: it
holds the SDK extracted from theos/sdks (iPhoneOS16.5.sdk, whose headers are iOS 16.4's) and the
resource directory with the toolchain's API notes. Nothing of the SDK is copied: the output is the
declarations' Swift text (swift-symbolgraph-extract), reduced by Tests/Support/symbol_api.py, plus
"inherited" lines for what the headers leave to NSObject and the protocols (see below).
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Support"))
import symbol_api  # noqa: E402

# The UserNotifications symbols RichPush uses (RichPushNotificationService, RichPushExtensionHost).
USED = [
    "UNError", "UNErrorDomain", "UNMutableNotificationContent", "UNNotificationAction", "UNNotificationActionOptions",
    "UNNotificationAttachment", "UNNotificationAttachmentOptionsThumbnailClippingRectKey",
    "UNNotificationAttachmentOptionsThumbnailHiddenKey", "UNNotificationAttachmentOptionsThumbnailTimeKey",
    "UNNotificationAttachmentOptionsTypeHintKey", "UNNotificationCategory", "UNNotificationCategoryOptions",
    "UNNotificationContent", "UNNotificationRequest", "UNNotificationServiceExtension", "UNNotificationSound",
    "UNNotificationSoundName", "UNNotificationTrigger", "UNPushNotificationTrigger", "UNTextInputNotificationAction",
    "UNUserNotificationCenter",
]


def main(work):
    sdk = os.path.join(work, "iPhoneOS16.5.sdk")
    headers = os.path.join(sdk, "System/Library/Frameworks/UserNotifications.framework/Headers")
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([
            "swift-symbolgraph-extract", "-module-name", "UserNotifications", "-target", "arm64-apple-ios16.0",
            "-sdk", sdk, "-resource-dir", os.path.join(work, "res"), "-module-cache-path", os.path.join(work, "mc"),
            "-minimum-access-level", "public", "-output-dir", out,
        ], check=True)
        import json
        with open(os.path.join(out, "UserNotifications.symbols.json")) as f:
            lines = symbol_api.reduce(json.load(f), set(USED))

    # What Swift gives these classes without the headers declaring it: NSObject's init() unless
    # the class (or a superclass) marks it NS_UNAVAILABLE, NSObject's isEqual(_:) and hash,
    # copy(with:) / mutableCopy(with:) of NSCopying / NSMutableCopying, and rawValue of
    # RawRepresentable (ClangImporter synthesizes it; symbol graphs leave it out).
    superclass, unavailable_init = {}, set()
    for name in os.listdir(headers):
        if not name.endswith(".h"):
            continue
        text = open(os.path.join(headers, name), encoding="utf-8").read()
        for match in re.finditer(r"@interface\s+(\w+)\s*:\s*(\w+)(.*?)@end", text, re.S):
            superclass[match.group(1)] = match.group(2)
            if re.search(r"-\s*\(instancetype\)\s*init\s+NS_UNAVAILABLE", match.group(3)):
                unavailable_init.add(match.group(1))

    def init_unavailable(cls):
        while cls in superclass:
            if cls in unavailable_init:
                return True
            cls = superclass[cls]
        return False

    conforms = {}
    for line in lines:
        parts = line.split("\t")
        if parts[0] == "conforms":
            conforms.setdefault(parts[1], set()).add(parts[2])
    inherited = set()
    for cls in USED:
        if cls in superclass:
            inherited.update({f"inherited\t{cls}.isEqual(_:)", f"inherited\t{cls}.hash"})
            if not init_unavailable(cls):
                inherited.add(f"inherited\t{cls}.init()")
        if "NSCopying" in conforms.get(cls, ()):
            inherited.add(f"inherited\t{cls}.copy(with:)")
        if "NSMutableCopying" in conforms.get(cls, ()):
            inherited.add(f"inherited\t{cls}.mutableCopy(with:)")
        if "RawRepresentable" in conforms.get(cls, ()):
            inherited.add(f"inherited\t{cls}.rawValue")
    for cls, parent in superclass.items():  # subclasses inherit their superclass's conformances
        if cls in USED and "NSMutableCopying" in conforms.get(parent, ()):
            inherited.add(f"inherited\t{cls}.mutableCopy(with:)")

    print("# Apple's UserNotifications declarations for the symbols RichPush uses, as Swift imports them")
    print("# from the iOS 16.4 SDK's headers (theos/sdks iPhoneOS16.5.sdk, UserNotifications.framework/")
    print("# Headers/*.h: UNError.h, UNNotificationAttachment.h, UNNotificationContent.h, …) with this")
    print("# toolchain's API notes. Generated by scripts/apple-api-list.py; the stand-in")
    print("# (Sources/UserNotificationsStandIn) must declare nothing that is not here (StandInAPITests).")
    print("# decl <path> <kind> <access> <declaration> | conforms <path> <protocol> | inherits <path> <class>")
    print("# inherited <path>: given by NSObject, NSCopying, NSMutableCopying or RawRepresentable, not")
    print("# declared in the headers (init() only where the header does not mark it NS_UNAVAILABLE).")
    for line in sorted(set(lines) | inherited):
        print(line)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
