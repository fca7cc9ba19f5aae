#!/usr/bin/env python3
"""Writes the list of Apple's declarations that a stand-in mirrors — UserNotifications for
UserNotificationsStandIn (Tests/Fixtures/apple/UserNotifications-iOS16.4.api), Intents for
IntentsStandIn (Tests/Fixtures/apple/Intents-iOS16.4.api) — taken from Apple's headers (and the
framework's Swift overlay) in the iOS 16.4 SDK as this toolchain imports them into Swift.

Usage: python3 scripts/apple-api-list.py IOS_TYPECHECK_WORK [UserNotifications|Intents] > Tests/Fixtures/apple/MODULE-iOS16.4.api

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

# The symbols RichPush uses of each framework (RichPushNotificationService, RichPushExtensionHost).
USED_USER_NOTIFICATIONS = [
    "UNError", "UNErrorDomain", "UNMutableNotificationContent", "UNNotificationAction", "UNNotificationActionOptions",
    "UNNotificationAttachment", "UNNotificationAttachmentOptionsThumbnailClippingRectKey",
    "UNNotificationAttachmentOptionsThumbnailHiddenKey", "UNNotificationAttachmentOptionsThumbnailTimeKey",
    "UNNotificationAttachmentOptionsTypeHintKey", "UNNotificationCategory", "UNNotificationCategoryOptions",
    "UNNotificationContent", "UNNotificationContentProviding", "UNNotificationRequest", "UNNotificationServiceExtension",
    "UNNotificationSound", "UNNotificationSoundName", "UNNotificationTrigger", "UNPushNotificationTrigger",
    "UNTextInputNotificationAction", "UNUserNotificationCenter",
]
# Communication notifications (issue 30): the sender, the avatar as data, the intent, its donation.
USED_INTENTS = [
    "INImage", "INIntent", "INIntentResponse", "INIntentSetImageKeyPath", "INInteraction", "INInteractionDirection",
    "INOutgoingMessageType", "INPerson", "INPersonHandle", "INPersonHandleType", "INPersonSuggestionType",
    "INSendMessageAttachment", "INSendMessageIntent", "INSpeakableString",
]
MODULES = {"UserNotifications": USED_USER_NOTIFICATIONS, "Intents": USED_INTENTS}
USED = USED_USER_NOTIFICATIONS


def main(work, module="UserNotifications"):
    global USED
    USED = MODULES[module]
    sdk = os.path.join(work, "iPhoneOS16.5.sdk")
    headers = os.path.join(sdk, "System/Library/Frameworks/%s.framework/Headers" % module)
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([
            "swift-symbolgraph-extract", "-module-name", module, "-target", "arm64-apple-ios16.0",
            "-sdk", sdk, "-resource-dir", os.path.join(work, "res"), "-module-cache-path", os.path.join(work, "mc"),
            "-minimum-access-level", "public", "-output-dir", out,
        ], check=True)
        import json
        with open(os.path.join(out, "%s.symbols.json" % module)) as f:
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

    headers_named = {
        "UserNotifications": "UNError.h, UNNotificationAttachment.h, UNNotificationContent.h, …",
        "Intents": "INPerson.h, INImage.h, INSendMessageIntent.h, INInteraction.h, …, and its Swift overlay",
    }[module]
    print("# Apple's %s declarations for the symbols RichPush uses, as Swift imports them" % module)
    print("# from the iOS 16.4 SDK's headers (theos/sdks iPhoneOS16.5.sdk, %s.framework/" % module)
    print("# Headers/*.h: %s) with this" % headers_named)
    print("# toolchain's API notes. Generated by scripts/apple-api-list.py; the stand-in")
    print("# (Sources/%sStandIn) must declare nothing that is not here (StandInAPITests)." % module)
    print("# decl <path> <kind> <access> <declaration> | conforms <path> <protocol> | inherits <path> <class>")
    print("# inherited <path>: given by NSObject, NSCopying, NSMutableCopying or RawRepresentable, not")
    print("# declared in the headers (init() only where the header does not mark it NS_UNAVAILABLE).")
    for line in sorted(set(lines) | inherited):
        print(line)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] not in MODULES):
        sys.exit(__doc__)
    main(*sys.argv[1:])
