#!/usr/bin/env python3
"""Writes the `richpush doctor` fixture projects (Tests/Fixtures/xcode/<case>/) and, with
--large, one big generated project for the parser test and benchmarks/doctor.sh.

Each case is a small, complete iOS project as Xcode 15 writes it (objectVersion 56): an app, a
notification service extension linking RichPushNotificationService, a content extension; the
case changes the one thing its finding is about. Re-run after changing it:

    python3 Tests/Fixtures/xcode/make_fixtures.py            # the cases
    python3 Tests/Fixtures/xcode/make_fixtures.py --large DIR --targets 20 --bytes 5000000
"""
import argparse
import hashlib
import os
import plistlib
import re
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
COMMUNICATION = "com.apple.developer.usernotifications.communication"
TIME_SENSITIVE = "com.apple.developer.usernotifications.time-sensitive"
MESSAGE_INTENT = "INSendMessageIntent"
UNQUOTED = re.compile(r"^[A-Za-z0-9_$/:.-]+$")


def oid(*parts):
    return hashlib.sha1("/".join(parts).encode()).hexdigest()[:24].upper()


def q(s):
    if UNQUOTED.match(s):
        return s
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'


class Project:
    """Collects objects and writes them the way Xcode does (sections by isa, ids sorted)."""

    def __init__(self, name):
        self.name = name
        self.objects = {}  # id -> (isa, comment, [(key, value)], single_line)

    def add(self, id_, isa, comment, fields, single=False):
        self.objects[id_] = (isa, comment, fields, single)
        return id_

    def value(self, v, indent):
        if isinstance(v, tuple):  # (id, comment)
            return f"{v[0]} /* {v[1]} */" if v[1] else v[0]
        if isinstance(v, list):
            if not v:
                return "(\n" + "\t" * indent + ")"
            inner = "".join("\t" * (indent + 1) + self.value(x, indent + 1) + ",\n" for x in v)
            return "(\n" + inner + "\t" * indent + ")"
        if isinstance(v, dict):
            inner = "".join("\t" * (indent + 1) + f"{q(k)} = {self.value(v[k], indent + 1)};\n" for k in sorted(v))
            return "{\n" + inner + "\t" * indent + "}"
        return q(v)

    def single(self, v):
        if isinstance(v, tuple):
            return f"{v[0]} /* {v[1]} */" if v[1] else v[0]
        if isinstance(v, list):
            return "(" + "".join(self.single(x) + ", " for x in v) + ")"
        if isinstance(v, dict):
            return "{" + "".join(f"{q(k)} = {self.single(v[k])}; " for k in sorted(v)) + "}"
        return q(v)

    def write(self, root_id, object_version="56"):
        out = ["// !$*UTF8*$!\n{\n\tarchiveVersion = 1;\n\tclasses = {\n\t};\n", f"\tobjectVersion = {object_version};\n\tobjects = {{\n"]
        for isa in sorted({o[0] for o in self.objects.values()}):
            out.append(f"\n/* Begin {isa} section */\n")
            for id_ in sorted(i for i, o in self.objects.items() if o[0] == isa):
                _, comment, fields, single = self.objects[id_]
                head = f"\t\t{id_} /* {comment} */ = " if comment else f"\t\t{id_} = "
                if single:
                    out.append(head + "{isa = " + isa + "; " + "".join(f"{q(k)} = {self.single(v)}; " for k, v in fields) + "};\n")
                else:
                    body = f"\t\t\tisa = {isa};\n" + "".join(f"\t\t\t{q(k)} = {self.value(v, 3)};\n" for k, v in fields)
                    out.append(head + "{\n" + body + "\t\t};\n")
            out.append(f"/* End {isa} section */\n")
        out.append(f"\t}};\n\trootObject = {root_id} /* Project object */;\n}}\n")
        return "".join(out)


def info_plist(point, principal, categories=None, ats_host=None, app_group=None, intents=None):
    ext = {"NSExtensionPointIdentifier": point}
    if principal is not None:
        ext["NSExtensionPrincipalClass"] = principal
    if categories is not None:
        ext["NSExtensionAttributes"] = {"UNNotificationExtensionCategory": categories}
    if intents is not None:
        ext.setdefault("NSExtensionAttributes", {})["IntentsSupported"] = intents
    d = {"CFBundleDisplayName": "$(PRODUCT_NAME)", "CFBundleExecutable": "$(EXECUTABLE_NAME)", "CFBundleIdentifier": "$(PRODUCT_BUNDLE_IDENTIFIER)",
         "CFBundlePackageType": "$(PRODUCT_BUNDLE_PACKAGE_TYPE)", "CFBundleShortVersionString": "$(MARKETING_VERSION)", "NSExtension": ext}
    if app_group:
        d["RichPush"] = {"AppGroupIdentifier": app_group, "AllowedHTTPHosts": [ats_host] if ats_host else []}
    if ats_host:
        d["NSAppTransportSecurity"] = {"NSExceptionDomains": {ats_host: {"NSExceptionAllowsInsecureHTTPLoads": True}}}
    return d


def build_project(case, name="Fixture", extra_targets=0, files_per_target=0):
    """Returns (pbxproj text, {relative path: bytes}) for a case."""
    p = Project(name)
    c = dict(nse=True, embed=True, only_installing=False, point="com.apple.usernotifications.service",
             principal="$(PRODUCT_MODULE_NAME).NotificationService", nse_deployment=None, nse_bundle="$(APP_BUNDLE_ID).NotificationService",
             nse_group="group.com.example.fixture", app_aps=True, link=True, nse_deployment_debug=None,
             app_entitlements={}, app_activity_types=None, nse_intents=None, nse_uses_intent=False)
    c.update(CASES[case] if case in CASES else {})
    files = {}
    products = p.add(oid(case, "group", "Products"), "PBXGroup", "Products", [])
    main_children = []
    targets = []
    embed_files = []
    dependencies = []
    package_ref = p.add(oid(case, "package"), "XCLocalSwiftPackageReference", 'XCLocalSwiftPackageReference "RichPush"', [("relativePath", "../../../..")])

    def file_ref(group_id, fname, ftype, rel_dir):
        return p.add(oid(case, "ref", rel_dir, fname), "PBXFileReference", fname, [("lastKnownFileType", ftype), ("path", fname), ("sourceTree", "<group>")], single=True)

    def configs(owner, settings_release, settings_debug=None, xcconfig=None):
        ids = []
        for cfg in ("Debug", "Release"):
            fields = []
            if xcconfig:
                fields.append(("baseConfigurationReference", xcconfig))
            s = dict(settings_debug if cfg == "Debug" and settings_debug is not None else settings_release)
            fields.append(("buildSettings", s))
            fields.append(("name", cfg))
            ids.append((p.add(oid(case, owner, "config", cfg), "XCBuildConfiguration", cfg, fields), cfg))
        return p.add(oid(case, owner, "configlist"), "XCConfigurationList", f'Build configuration list for {owner}',
                     [("buildConfigurations", ids), ("defaultConfigurationIsVisible", "0"), ("defaultConfigurationName", "Release")])

    # Config group: Shared.xcconfig (deployment target, bundle id prefix) included by App.xcconfig.
    cfg_children = []
    shared = file_ref(None, "Shared.xcconfig", "text.xcconfig", "Config")
    appcfg = file_ref(None, "App.xcconfig", "text.xcconfig", "Config")
    cfg_children += [(shared, "Shared.xcconfig"), (appcfg, "App.xcconfig")]
    files["Config/Shared.xcconfig"] = ("// Settings every target shares.\nIPHONEOS_DEPLOYMENT_TARGET = 16.0\nAPP_BUNDLE_ID = com.example.fixture // the app's bundle id\n"
                                       "#include? \"Local.xcconfig\"\n").encode()
    files["Config/App.xcconfig"] = b"#include \"Shared.xcconfig\"\nPRODUCT_BUNDLE_IDENTIFIER = $(APP_BUNDLE_ID)\nSWIFT_ACTIVE_COMPILATION_CONDITIONS = $(inherited) APP\n"
    main_children.append((p.add(oid(case, "group", "Config"), "PBXGroup", "Config", [("children", cfg_children), ("path", "Config"), ("sourceTree", "<group>")]), "Config"))

    def target(tname, product, ptype, group_files, settings, xcconfig=None, phases_extra=(), package_products=(), deps=(), settings_debug=None):
        gid = oid(case, "group", tname)
        children, sources = [], []
        for fname, ftype, content in group_files:
            rid = file_ref(gid, fname, ftype, tname)
            children.append((rid, fname))
            files[f"{tname}/{fname}"] = content
            if fname.endswith(".swift"):
                sources.append((p.add(oid(case, "bf", tname, fname), "PBXBuildFile", f"{fname} in Sources", [("fileRef", (rid, fname))], single=True), f"{fname} in Sources"))
        main_children.append((p.add(gid, "PBXGroup", tname, [("children", children), ("path", tname), ("sourceTree", "<group>")]), tname))
        explicit = "wrapper.application" if ptype.endswith("application") else "wrapper.app-extension"
        prod = p.add(oid(case, "product", tname), "PBXFileReference", product,
                     [("explicitFileType", explicit), ("includeInIndex", "0"), ("path", product), ("sourceTree", "BUILT_PRODUCTS_DIR")], single=True)
        p.objects[products][2].clear()
        src_phase = p.add(oid(case, tname, "sources"), "PBXSourcesBuildPhase", "Sources",
                          [("buildActionMask", "2147483647"), ("files", sources), ("runOnlyForDeploymentPostprocessing", "0")])
        fw_files = []
        pkg_deps = []
        for prod_name in package_products:
            dep = p.add(oid(case, tname, "pkgdep", prod_name), "XCSwiftPackageProductDependency", prod_name, [("package", (package_ref, 'XCLocalSwiftPackageReference "RichPush"')), ("productName", prod_name)])
            pkg_deps.append((dep, prod_name))
            fw_files.append((p.add(oid(case, tname, "bf", prod_name), "PBXBuildFile", f"{prod_name} in Frameworks", [("productRef", (dep, prod_name))], single=True), f"{prod_name} in Frameworks"))
        fw_phase = p.add(oid(case, tname, "frameworks"), "PBXFrameworksBuildPhase", "Frameworks",
                         [("buildActionMask", "2147483647"), ("files", fw_files), ("runOnlyForDeploymentPostprocessing", "0")])
        phases = [(src_phase, "Sources"), (fw_phase, "Frameworks")] + list(phases_extra)
        fields = [("buildConfigurationList", (configs(f'PBXNativeTarget "{tname}"', settings, settings_debug, xcconfig=xcconfig), f'Build configuration list for PBXNativeTarget "{tname}"')),
                  ("buildPhases", phases), ("buildRules", []), ("dependencies", list(deps)), ("name", tname)]
        if pkg_deps:
            fields.append(("packageProductDependencies", pkg_deps))
        fields += [("productName", tname), ("productReference", (prod, product)), ("productType", ptype)]
        tid = p.add(oid(case, "target", tname), "PBXNativeTarget", tname, fields)
        targets.append((tid, tname, prod, product))
        return tid, prod

    ext_settings = lambda bundle, plist, ents, dep: {k: v for k, v in {
        "CODE_SIGN_ENTITLEMENTS": ents, "CODE_SIGN_STYLE": "Automatic", "CURRENT_PROJECT_VERSION": "1", "GENERATE_INFOPLIST_FILE": "YES",
        "INFOPLIST_FILE": plist, "INFOPLIST_KEY_CFBundleDisplayName": "$(TARGET_NAME)", "IPHONEOS_DEPLOYMENT_TARGET": dep, "MARKETING_VERSION": "1.0",
        "PRODUCT_BUNDLE_IDENTIFIER": bundle, "PRODUCT_NAME": "$(TARGET_NAME)", "SKIP_INSTALL": "YES", "SWIFT_VERSION": "5.0",
        "TARGETED_DEVICE_FAMILY": "1,2"}.items() if v is not None}

    ext_targets = []
    if c["nse"]:
        nse_plist = info_plist(c["point"], c["principal"], ats_host="media.example.com", app_group="group.com.example.fixture", intents=c["nse_intents"])
        nse_source = b"import RichPushNotificationService\nimport UserNotifications\n\nfinal class NotificationService: RichPushServiceExtension {}\n"
        if c["nse_uses_intent"]:
            # An extension that makes its own message intents (as apps with their own code do).
            nse_source = (b"import Intents\nimport UserNotifications\n\nfinal class NotificationService: UNNotificationServiceExtension {\n"
                          b"    func intent(_ sender: INPerson) -> INSendMessageIntent {\n"
                          b"        INSendMessageIntent(\n"
                          b"            recipients: nil, outgoingMessageType: .outgoingMessageText, content: nil, speakableGroupName: nil,\n"
                          b"            conversationIdentifier: nil, serviceName: nil, sender: sender, attachments: nil)\n    }\n}\n")
        nse_files = [("NotificationService.swift", "sourcecode.swift", nse_source),
                     ("Info.plist", "text.plist.xml", plistlib.dumps(nse_plist, fmt=plistlib.FMT_XML)),
                     ("NotificationService.entitlements", "text.plist.entitlements",
                      plistlib.dumps({"com.apple.security.application-groups": [c["nse_group"]]} if c["nse_group"] else {}, fmt=plistlib.FMT_XML))]
        nse_debug = None
        if c["nse_deployment_debug"]:
            nse_debug = dict(ext_settings(c["nse_bundle"], "NotificationService/Info.plist", "NotificationService/NotificationService.entitlements", c["nse_deployment"]),
                             IPHONEOS_DEPLOYMENT_TARGET=c["nse_deployment_debug"])
        ext_targets.append(target("NotificationService", "NotificationService.appex", "com.apple.product-type.app-extension", nse_files,
                                  ext_settings(c["nse_bundle"], "NotificationService/Info.plist", "NotificationService/NotificationService.entitlements", c["nse_deployment"]),
                                  package_products=["RichPushNotificationService"] if c["link"] else [], settings_debug=nse_debug))
    content_plist = info_plist("com.apple.usernotifications.content-extension", "$(PRODUCT_MODULE_NAME).NotificationViewController", categories=["image", "video"])
    content_files = [("NotificationViewController.swift", "sourcecode.swift", b"import UIKit\nimport UserNotificationsUI\n\nfinal class NotificationViewController: UIViewController, UNNotificationContentExtension {\n    func didReceive(_ notification: UNNotification) {}\n}\n"),
                     # A binary plist, as some projects keep them.
                     ("Info.plist", "file.bplist", plistlib.dumps(content_plist, fmt=plistlib.FMT_BINARY))]
    ext_targets.append(target("NotificationContent", "NotificationContent.appex", "com.apple.product-type.app-extension", content_files,
                              ext_settings("$(APP_BUNDLE_ID).NotificationContent", "NotificationContent/Info.plist", None, None)))

    for tid, prod in ext_targets:
        tname = next(t[1] for t in targets if t[0] == tid)
        product = next(t[3] for t in targets if t[0] == tid)
        proxy = p.add(oid(case, "proxy", tname), "PBXContainerItemProxy", "PBXContainerItemProxy",
                      [("containerPortal", (oid(case, "project"), "Project object")), ("proxyType", "1"), ("remoteGlobalIDString", tid), ("remoteInfo", tname)])
        dependencies.append((p.add(oid(case, "dep", tname), "PBXTargetDependency", "PBXTargetDependency", [("target", (tid, tname)), ("targetProxy", (proxy, "PBXContainerItemProxy"))]), "PBXTargetDependency"))
        if c["embed"] or tname != "NotificationService":
            embed_files.append((p.add(oid(case, "embed", tname), "PBXBuildFile", f"{product} in Embed Foundation Extensions",
                                      [("fileRef", (prod, product)), ("settings", {"ATTRIBUTES": ["RemoveHeadersOnCopy"]})], single=True), f"{product} in Embed Foundation Extensions"))
    embed = p.add(oid(case, "App", "embed"), "PBXCopyFilesBuildPhase", "Embed Foundation Extensions",
                  [("buildActionMask", "2147483647"), ("dstPath", ""), ("dstSubfolderSpec", "13"), ("files", embed_files), ("name", "Embed Foundation Extensions"),
                   ("runOnlyForDeploymentPostprocessing", "1" if c["only_installing"] else "0")])
    app_ents = {"com.apple.security.application-groups": ["group.com.example.fixture"]}
    if c["app_aps"]:
        app_ents["aps-environment"] = "development"
    app_ents.update(c["app_entitlements"])
    app_files = [("AppDelegate.swift", "sourcecode.swift", b"import UIKit\n\n@main\nfinal class AppDelegate: UIResponder, UIApplicationDelegate {}\n"),
                 ("App.entitlements", "text.plist.entitlements", plistlib.dumps(app_ents, fmt=plistlib.FMT_XML))]
    if c["app_activity_types"] is not None:
        app_files.append(("Info.plist", "text.plist.xml", plistlib.dumps({"NSUserActivityTypes": c["app_activity_types"]}, fmt=plistlib.FMT_XML)))
    app_settings = {"ASSETCATALOG_COMPILER_APPICON_NAME": "AppIcon", "CODE_SIGN_ENTITLEMENTS": "App/App.entitlements", "CODE_SIGN_STYLE": "Automatic",
                    "GENERATE_INFOPLIST_FILE": "YES", "INFOPLIST_KEY_UILaunchScreen_Generation": "YES", "MARKETING_VERSION": "1.0", "PRODUCT_NAME": "$(TARGET_NAME)",
                    "SWIFT_VERSION": "5.0", "TARGETED_DEVICE_FAMILY": "1,2"}
    if c["app_activity_types"] is not None:
        app_settings["INFOPLIST_FILE"] = "App/Info.plist"
    target("App", "App.app", "com.apple.product-type.application", app_files, app_settings, xcconfig=(appcfg, "App.xcconfig"),
           phases_extra=[(embed, "Embed Foundation Extensions")], package_products=["RichPushExtension"], deps=dependencies)

    # The large project: more targets with many files each (as big apps have).
    for n in range(extra_targets):
        tname = f"Module{n:02d}"
        mfiles = [(f"File{n:02d}_{i:04d}.swift", "sourcecode.swift", b"") for i in range(files_per_target)]
        target(tname, f"{tname}.app", "com.apple.product-type.application", mfiles,
               dict(app_settings, PRODUCT_BUNDLE_IDENTIFIER=f"com.example.module{n:02d}", CODE_SIGN_ENTITLEMENTS=None) if False else
               {"PRODUCT_BUNDLE_IDENTIFIER": f"com.example.module{n:02d}", "PRODUCT_NAME": "$(TARGET_NAME)", "SDKROOT": "iphoneos",
                "IPHONEOS_DEPLOYMENT_TARGET": "16.0", "GENERATE_INFOPLIST_FILE": "YES"})

    p.objects[products] = ("PBXGroup", "Products", [("children", [(t[2], t[3]) for t in targets]), ("name", "Products"), ("sourceTree", "<group>")], False)
    main_children.append((products, "Products"))
    main = p.add(oid(case, "group", "main"), "PBXGroup", None, [("children", main_children), ("sourceTree", "<group>")])
    project_settings = {"ALWAYS_SEARCH_USER_PATHS": "NO", "CLANG_ENABLE_MODULES": "YES", "IPHONEOS_DEPLOYMENT_TARGET": "16.0", "SDKROOT": "iphoneos",
                        "SWIFT_COMPILATION_MODE": "wholemodule", "VALIDATE_PRODUCT": "YES"}
    debug_settings = dict(project_settings, SWIFT_ACTIVE_COMPILATION_CONDITIONS="DEBUG $(inherited)", ONLY_ACTIVE_ARCH="YES")
    debug_settings.pop("SWIFT_COMPILATION_MODE")
    plist_cfg = configs(f'PBXProject "{name}"', project_settings, debug_settings, xcconfig=(shared, "Shared.xcconfig"))
    p.add(oid(case, "project"), "PBXProject", "Project object", [
        ("attributes", {"BuildIndependentTargetsInParallel": "1", "LastSwiftUpdateCheck": "1540", "LastUpgradeCheck": "1540"}),
        ("buildConfigurationList", (plist_cfg, f'Build configuration list for PBXProject "{name}"')),
        ("compatibilityVersion", "Xcode 14.0"), ("developmentRegion", "en"), ("hasScannedForEncodings", "0"), ("knownRegions", ["en", "Base"]),
        ("mainGroup", main), ("packageReferences", [(package_ref, 'XCLocalSwiftPackageReference "RichPush"')]),
        ("productRefGroup", (products, "Products")), ("projectDirPath", ""), ("projectRoot", ""), ("targets", [(t[0], t[1]) for t in targets])])
    return p.write(oid(case, "project")), files


CASES = {
    "correct": {},
    "nse_missing": {"nse": False},
    "nse_not_embedded": {"embed": False},
    "nse_copy_only_when_installing": {"only_installing": True},
    "nse_wrong_extension_point": {"point": "com.apple.widgetkit-extension"},
    "nse_principal_class": {"principal": "$(PRODUCT_MODULE_NAME).NotificationServce"},
    "nse_deployment_target_above_app": {"nse_deployment": "17.0"},
    "nse_bundle_id_prefix": {"nse_bundle": "com.example.other.NotificationService"},
    "app_group_mismatch": {"nse_group": "group.com.example.other"},
    "aps_environment_missing": {"app_aps": False},
    "richpush_not_linked": {"link": False},
    # Issue 29: a fault in the Debug configuration only (what Xcode installs when it runs the app).
    "nse_deployment_target_debug_only": {"nse_deployment_debug": "17.0"},
    # Issue 30: capabilities. A complete communication setup (no finding), then each part missing;
    # the interruption-level cases are checked with --interruption-level time-sensitive / critical.
    "communication_correct": {"app_entitlements": {COMMUNICATION: True}, "app_activity_types": [MESSAGE_INTENT], "nse_intents": [MESSAGE_INTENT]},
    "communication_capability_missing": {"app_activity_types": [MESSAGE_INTENT], "nse_intents": [MESSAGE_INTENT]},
    "communication_activity_type_missing": {"app_entitlements": {COMMUNICATION: True}, "app_activity_types": ["INStartCallIntent"], "nse_intents": [MESSAGE_INTENT]},
    "communication_intents_supported_missing": {"app_entitlements": {COMMUNICATION: True}, "app_activity_types": [MESSAGE_INTENT]},
    # An extension with its own intent code and nothing else of the setup: every part is missing.
    "communication_own_code": {"nse_uses_intent": True, "link": False},
    "interruption_entitlements": {"app_entitlements": {TIME_SENSITIVE: True}},
}


def write_case(case, folder):
    text, files = build_project(case)
    if os.path.isdir(folder):
        shutil.rmtree(folder)
    os.makedirs(os.path.join(folder, "Fixture.xcodeproj"))
    with open(os.path.join(folder, "Fixture.xcodeproj", "project.pbxproj"), "w") as f:
        f.write(text)
    for rel, content in files.items():
        path = os.path.join(folder, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(content)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--large", metavar="DIR", help="write one large project (DIR/Large.xcodeproj) instead of the cases")
    ap.add_argument("--targets", type=int, default=20, help="--large: targets in all (3 are the app and its extensions)")
    ap.add_argument("--bytes", type=int, default=5_000_000, help="--large: about this many bytes of project.pbxproj")
    args = ap.parse_args()
    if args.large:
        extra = max(0, args.targets - 3)
        per = 10
        text, files = build_project("correct", "Large", extra, per)
        # Grow the modules' file count until the pbxproj reaches the size asked for.
        while len(text.encode()) < args.bytes:
            per = max(per + 1, int(per * args.bytes / len(text.encode()) * 1.02))
            text, files = build_project("correct", "Large", extra, per)
        write = {k: v for k, v in files.items() if not k.startswith("Module")}
        os.makedirs(os.path.join(args.large, "Large.xcodeproj"), exist_ok=True)
        with open(os.path.join(args.large, "Large.xcodeproj", "project.pbxproj"), "w") as f:
            f.write(text)
        for rel, content in write.items():
            path = os.path.join(args.large, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(content)
        print(f"{args.large}/Large.xcodeproj/project.pbxproj: {len(text.encode())} bytes, {args.targets} targets")
        return
    for case in CASES:
        write_case(case, os.path.join(HERE, case))
    bad = os.path.join(HERE, "malformed")
    write_case("correct", bad)
    path = os.path.join(bad, "Fixture.xcodeproj", "project.pbxproj")
    lines = open(path).read().split("\n")
    # Drop the ';' after the first PBXBuildFile entry's closing brace: a merge-conflict-like typo.
    for i, line in enumerate(lines):
        if "isa = PBXBuildFile" in line:
            lines[i] = line.rstrip(";")
            break
    open(path, "w").write("\n".join(lines))
    os.makedirs(os.path.join(HERE, "xcodegen"), exist_ok=True)
    open(os.path.join(HERE, "xcodegen", "project.yml"), "w").write("name: App\ntargets:\n  App:\n    type: application\n    platform: iOS\n")
    os.makedirs(os.path.join(HERE, "tuist"), exist_ok=True)
    open(os.path.join(HERE, "tuist", "Project.swift"), "w").write('import ProjectDescription\n\nlet project = Project(name: "App", targets: [])\n')


if __name__ == "__main__":
    main()
