// Filled in by the bridge (issue 3).
