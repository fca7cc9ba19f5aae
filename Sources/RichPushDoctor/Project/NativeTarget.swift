/// A `PBXNativeTarget` of a project: its name, product type and the ids it points to.
public struct NativeTarget: Sendable, Hashable {
    /// The object id.
    public let id: String
    /// The target name (`TARGET_NAME`).
    public let name: String
    /// The product type, e.g. `com.apple.product-type.application` or `…app-extension`.
    public let productType: String
    /// The `PBXFileReference` of the built product (`NotificationService.appex`).
    public let productReference: String?
    /// The `XCConfigurationList` id.
    public let buildConfigurationList: String?
    /// The build phase ids, in order.
    public let buildPhases: [String]
    /// The `PBXTargetDependency` ids.
    public let dependencies: [String]
    /// The `XCSwiftPackageProductDependency` ids.
    public let packageProductDependencies: [String]
    /// The `PBXFileSystemSynchronizedRootGroup` ids (Xcode 16 folders).
    public let synchronizedGroups: [String]

    /// Reads a target object.
    /// - Parameters:
    ///   - id: the object id.
    ///   - object: the `PBXNativeTarget` dictionary.
    public init(id: String, object: [String: PlistValue]) {
        self.id = id
        name = object["name"]?.string ?? object["productName"]?.string ?? id
        productType = object["productType"]?.string ?? ""
        productReference = object["productReference"]?.string
        buildConfigurationList = object["buildConfigurationList"]?.string
        buildPhases = object["buildPhases"]?.strings ?? []
        dependencies = object["dependencies"]?.strings ?? []
        packageProductDependencies = object["packageProductDependencies"]?.strings ?? []
        synchronizedGroups = object["fileSystemSynchronizedGroups"]?.strings ?? []
    }

    /// An iOS app (or a multi-platform app): `com.apple.product-type.application`.
    public var isApplication: Bool { productType == "com.apple.product-type.application" }
    /// An app extension: `com.apple.product-type.app-extension` (and its ExtensionKit variant).
    public var isAppExtension: Bool {
        productType == "com.apple.product-type.app-extension" || productType == "com.apple.product-type.extensionkit-extension"
    }
}
