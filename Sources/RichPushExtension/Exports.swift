@_exported import RichPushCore
