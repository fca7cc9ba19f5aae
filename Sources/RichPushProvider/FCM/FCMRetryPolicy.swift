/// Retries for FCM's 429 `QUOTA_EXCEEDED`, 503 `UNAVAILABLE`, 500 `INTERNAL`, other 5xx and
/// dropped connections.
public typealias FCMRetryPolicy = PushRetryPolicy
