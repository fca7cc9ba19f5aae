/// Retries for APNs' 429 `TooManyRequests`, 500, 503 (`ServiceUnavailable`, `Shutdown`), 400
/// `IdleTimeout` and dropped connections.
public typealias APNsRetryPolicy = PushRetryPolicy
