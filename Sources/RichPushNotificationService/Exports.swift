// One import for an app extension: the bridge, the pipeline types (PipelineConfiguration,
// PipelineResult) and RichPushCore.
@_exported import RichPushExtension
